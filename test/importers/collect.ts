import { fileURLToPath } from "node:url";
import { openExport } from "../../src/importers/index.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";

export const fixtures = fileURLToPath(new URL("../../fixtures/exports/", import.meta.url));

/** Every conversation an export yields, in order. */
export async function collect(path: string, options?: { platform?: string }): Promise<UploadConversation[]> {
  const reader = await openExport(path, options);
  const out: UploadConversation[] = [];
  for await (const conversation of reader.conversations()) out.push(conversation);
  return out;
}
