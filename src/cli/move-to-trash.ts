import type { MoveToTrashRequest } from "../schemas/trash.js";
import { type Session, withService } from "./session.js";

/** `memories delete --trash`, `chats delete --trash`: moved there, no question asked (it can be undone). */
export async function moveToTrash(session: Session, body: MoveToTrashRequest): Promise<void> {
  await withService(session, async (service) => {
    const result = await service.trash.move(body);
    if (result.notFound.length > 0) session.io.exitCode = 1;
    if (session.out.json) return session.out.data(result);
    for (const item of result.items) session.out.success(`Moved ${item.kind} ${item.itemId} to the trash as ${item.id}`);
    const [only] = result.items;
    if (result.items.length === 1 && only) session.out.notice(`Kept 30 days: \`mnemo trash restore ${only.id}\` puts it back.`);
    if (result.items.length > 1) session.out.notice("Kept 30 days: `mnemo trash restore <id…>` (either id above) puts them back.");
    if (result.notFound.length > 0) session.out.warn(`Not found: ${result.notFound.join(", ")}`);
  });
}
