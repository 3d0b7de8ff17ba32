import { fileURLToPath } from "node:url";
import { openExport } from "../../src/importers/index.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";
import type { RecordContext } from "../../src/importers/types.js";

export const fixtures = fileURLToPath(new URL("../../fixtures/exports/", import.meta.url));

/** Every conversation an export yields, in order. */
export async function collect(path: string, options?: { platform?: string; name?: string }): Promise<UploadConversation[]> {
  const reader = await openExport(path, options);
  const out: UploadConversation[] = [];
  for await (const conversation of reader.conversations()) out.push(conversation);
  return out;
}

/** A record's context for calling one converter directly; what it leaves out is counted in `skipped`. */
export function recordContext(label = "conversations.json"): RecordContext & { skipped: Map<string, number> } {
  const skipped = new Map<string, number>();
  return {
    label,
    path: label,
    index: 0,
    byte: 0,
    fallbackDate: new Date(),
    unreadable: (problem) => {
      throw problem;
    },
    skip: (reason, count = 1) => void skipped.set(reason, (skipped.get(reason) ?? 0) + count),
    skipped,
  };
}

/** Every conversation an export yields, and what it left out (reason → count, over all its files). */
export async function collectWithSkips(path: string): Promise<{ conversations: UploadConversation[]; skipped: Record<string, number> }> {
  const reader = await openExport(path);
  const conversations: UploadConversation[] = [];
  for await (const conversation of reader.conversations()) conversations.push(conversation);
  const skipped: Record<string, number> = {};
  for (const { reason, count } of reader.skipped()) skipped[reason] = (skipped[reason] ?? 0) + count;
  return { conversations, skipped };
}

/** Every conversation an export yields when each record that cannot be read is skipped, and those records' problems. */
export async function collectReporting(path: string): Promise<{ conversations: UploadConversation[]; problems: string[] }> {
  const problems: string[] = [];
  const reader = await openExport(path, { onUnreadable: (problem) => problems.push(problem.message) });
  const conversations: UploadConversation[] = [];
  for await (const conversation of reader.conversations()) conversations.push(conversation);
  return { conversations, problems };
}
