import type { MnemoExportReader } from "../../importers/mnemo-export.js";
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportBucket,
  type ExportConversation,
  type ExportHeader,
  type ExportMemory,
  type ExportPlatform,
  type ExportRecord,
} from "../../schemas/export.js";
import type { TrashRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";

/** What a trash row's `entryJson` holds: the item's export record and what restoring it needs besides. */
export interface Entry {
  /** The model the record's vectors were made with. */
  embedder: ExportHeader["embedder"];
  /** A memory's bucket as it was: a restore finds it by name, or makes it again. */
  bucket?: ExportBucket;
  /** A conversation's import record for its platform, when there was one. */
  platform?: ExportPlatform;
  record: ExportMemory | ExportConversation;
}

interface Held {
  row: Pick<TrashRow, "id">;
  entry: Entry;
}

/**
 * The entries as one user's export, for core/jobs/restore.ts to store: a header with the entries'
 * embedder, the user (matched by name), each bucket and import record once, then the items.
 */
export function trashReader(user: { id: string; name: string }, entries: Held[]): MnemoExportReader {
  const [first] = entries;
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    generator: "mnemo trash",
    embedder: first!.entry.embedder,
    vectors: true,
    scope: "user",
  };
  const records: ExportRecord[] = [{ type: "user", id: user.id, name: user.name, createdAt: new Date().toISOString(), tokenHash: null }];
  const once = new Set<string>();
  for (const { entry } of entries) {
    for (const [key, record] of [
      [`bucket ${entry.bucket?.id}`, entry.bucket],
      [`platform ${entry.platform?.id}`, entry.platform],
    ] as const) {
      if (record && !once.has(key)) records.push(record);
      once.add(key);
    }
  }
  records.push(...entries.map(({ entry }) => entry.record));
  return {
    header,
    totalBytes: 0,
    bytesRead: () => 0,
    async *records() {
      for (const [index, record] of records.entries()) yield { record, line: index + 2 };
    },
    complete: () => true,
  };
}

/**
 * The trash entries whose item the store holds now: a memory by its id; a conversation by its id,
 * or by platform and platform id (imported again), as a restore matches them.
 */
export async function presentItems(ctx: CoreContext, userId: string, entries: Held[]): Promise<Set<string>> {
  const memories = entries.filter(({ entry }) => entry.record.type === "memory");
  const conversations = entries.filter(
    (held): held is Held & { entry: { record: ExportConversation } } => held.entry.record.type === "conversation",
  );
  const present = new Set<string>();
  if (memories.length > 0) {
    const ids = memories.map(({ entry }) => entry.record.id);
    const found = new Set((await ctx.store.select("memories", { userId, id: ids }, { columns: ["id"] })).map((row) => row.id));
    for (const { row, entry } of memories) if (found.has(entry.record.id)) present.add(row.id);
  }
  if (conversations.length > 0) {
    const records = conversations.map(({ entry }) => entry.record);
    const byId = { id: records.map((record) => record.id) };
    const byPlatformId = { platformConversationId: records.map((record) => record.platformConversationId) };
    const rows = await ctx.store.select(
      "conversations",
      { userId, anyOf: [byId, byPlatformId] },
      {
        columns: ["id", "platform", "platformConversationId"],
      },
    );
    const ids = new Set(rows.map((row) => row.id));
    const keys = new Set(rows.map((row) => `${row.platform}\u0000${row.platformConversationId}`));
    for (const { row, entry } of conversations) {
      const { id, platform, platformConversationId } = entry.record;
      if (ids.has(id) || keys.has(`${platform}\u0000${platformConversationId}`)) present.add(row.id);
    }
  }
  return present;
}
