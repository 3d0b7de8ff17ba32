import type { Command } from "commander";
import { counted } from "../output.js";
import { confirmOrAbort } from "../prompts.js";
import { action, withService } from "../session.js";
import { shownId } from "../../text/cut-text.js";
import { shortDate } from "../../text/local-time.js";
import { parseCount } from "./memories.js";

/**
 * The trash the web app's deletes go to (core/trash/): what it holds, putting entries back, and
 * deleting them for good. The CLI's own deletes remove at once, as the API's do, unless given --trash.
 */
export function registerTrash(program: Command): void {
  const trash = program
    .command("trash")
    .description("what the web app's deletes and `delete --trash` moved to the trash (kept 30 days): list, restore, empty")
    .option("-p, --page <n>", "page number", "1")
    .action(
      action(async (session, options: { page: string }) => {
        await withService(
          session,
          async (service) => {
            const result = await service.trash.list({ page: parseCount("--page", options.page) });
            if (session.out.json) return session.out.data(result);
            if (result.total === 0) return session.out.notice("The trash is empty.");
            session.out.table(
              [
                { key: "id", title: "ID" },
                { key: "kind", title: "KIND" },
                { key: "deleted", title: "DELETED" },
                { key: "until", title: "KEPT UNTIL" },
                { key: "title", title: "WHAT", flexible: true },
              ],
              result.items.map((item) => ({
                id: item.id,
                kind: item.kind,
                deleted: shortDate(item.deletedAt, session.out.timeZone),
                until: item.expiresAt.slice(0, 10),
                title: `${item.title} (${item.detail})`,
              })),
            );
            if (result.totalPages > 1) session.out.notice(`Page ${result.page} of ${result.totalPages}: --page <n> for another.`);
          },
          { existing: true },
        );
      }),
    );

  trash
    .command("restore")
    .description("put trash entries back as they were (same ids, versions, bucket, flags)")
    .argument("<ids...>", "trash entry ids (trs_…), as `mnemo trash` lists them, or the ids of the memories and conversations moved there")
    .action(
      action(async (session, ids: string[]) => {
        await withService(session, async (service) => {
          const result = await service.trash.restore({ ids });
          if (session.out.json) return session.out.data(result);
          for (const item of result.restored) session.out.success(`Restored ${item.kind} ${item.itemId}: ${item.title}`);
          for (const item of result.present)
            session.out.notice(`${item.kind} ${item.itemId} is in the store again already: left as it is.`);
          for (const problem of result.problems) session.out.warn(problem);
          const skipped = ids.length - result.restored.length - result.present.length;
          if (skipped > 0) session.out.warn(`${skipped === 1 ? "One id was" : `${skipped} ids were`} not in the trash.`);
        });
      }),
    );

  trash
    .command("empty")
    .description("delete trash entries for good: those given, or all (asks first unless --yes)")
    .argument("[ids...]", "trash entry ids, or the ids of the memories and conversations moved there; none empties the whole trash")
    .action(
      action(async (session, ids: string[]) => {
        const what =
          ids.length === 0 ? "everything in the trash" : ids.length === 1 ? "this trash entry" : `these ${ids.length} trash entries`;
        await confirmOrAbort(`Delete ${what} for good?`, session);
        await withService(session, async (service) => {
          const result = await service.trash.empty(ids.length === 0 ? {} : { ids });
          if (session.out.json) return session.out.data(result);
          session.out.success(`Deleted ${counted(result.deleted, "trash entry", "trash entries")} for good`);
          const { notFound } = result;
          const more = notFound.length > 5 ? ` and ${notFound.length - 5} more` : "";
          if (notFound.length > 0)
            session.out.warn(
              `Not in the trash (restored or deleted already, or expired): ${notFound
                .slice(0, 5)
                .map((id) => shownId(id))
                .join(", ")}${more}`,
            );
        });
      }),
    );
}
