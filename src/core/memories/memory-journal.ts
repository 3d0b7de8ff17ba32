import type { JournalEntry } from "../../store/journal.js";
import type { MemoryRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";
import { cachedBucketRows, DEFAULT_BUCKET } from "./bucket-rows.js";
import { historySnapshot } from "./memories.js";
import { journalVectors } from "./journal-vectors.js";
import { refreshMemoryIndexes } from "./memory-index.js";
import { rowOf, storedIds, toRecord, withVectors, type MemoryRecord, type PendingMemory } from "./pending-memories.js";

/**
 * Stores new text memories through the store's journal: acknowledged once appended and synced,
 * absorbed into the memories and memory_history tables later, many per commit (absorbMemories).
 * A row without its vector is embedded after (journal-vectors.ts).
 */
export async function journalMemories(ctx: CoreContext, rows: PendingMemory[]): Promise<void> {
  await ctx.store.appendToJournal(rows.map((row) => toRecord(row, ctx.embedder.id)));
}

/** Has the store absorb journalled memories with absorbMemories. Call once, as the app starts. */
export function absorbMemoryJournal(ctx: CoreContext): void {
  ctx.store.absorbJournalWith(
    ["memories", "memoryHistory"],
    (entries) => absorbMemories(ctx, entries),
    () => {
      ctx.afterWrite();
      refreshMemoryIndexes(ctx);
    },
  );
}

/**
 * Called under the write lock with the records not absorbed yet: their history snapshots, then the
 * rows, as a direct write stores them. What changed since a record was acknowledged is applied as
 * if it had come after it: a memory of a user removed since is dropped with the user, one whose
 * bucket was deleted goes to the default bucket (a deleted bucket's memories do), and one embedded
 * by a model the store has since been re-indexed away from is embedded again. Records a crashed
 * round may have stored already are looked for first.
 */
async function absorbMemories(ctx: CoreContext, entries: JournalEntry[]): Promise<void> {
  const records = entries.map((entry) => ({ ...(entry.record as MemoryRecord), uncertain: entry.uncertain }));
  const rows = await reembedStale(ctx, await placed(ctx, records));
  const uncertain = records.filter((record) => record.uncertain).map((record) => record.memory.id);
  const [inTable, inHistory] = await Promise.all([storedIds(ctx, "memories", uncertain), storedIds(ctx, "memoryHistory", uncertain)]);
  await ctx.store.add("memoryHistory", rows.filter((row) => !inHistory.has(row.id)).map(historySnapshot));
  await ctx.store.add(
    "memories",
    rows.filter((row) => !inTable.has(row.id)),
  );
  journalVectors(ctx).forget(rows.map((row) => row.id));
}

type Absorbing = MemoryRecord & { uncertain: boolean };

/** The records of users that still exist, each in a bucket that exists. */
async function placed(ctx: CoreContext, records: Absorbing[]): Promise<{ record: Absorbing; bucketId: number }[]> {
  const users = [...new Set(records.map((record) => record.memory.userId))];
  // Read again only when those tables have changed: a store then a search absorbs one record at a time.
  const existing = await ctx.store.memo(
    "user-ids",
    ["users"],
    async () => new Set((await ctx.store.select("users", {}, { columns: ["id"] })).map((row) => row.id)),
  );
  const buckets = new Map<string, Set<number>>();
  for (const userId of users) {
    if (existing.has(userId)) buckets.set(userId, new Set((await cachedBucketRows(ctx, userId)).map((row) => row.id)));
  }
  return records.flatMap((record) => {
    const { userId, bucketId } = record.memory;
    const ids = buckets.get(userId);
    if (!ids) return [];
    return [{ record, bucketId: ids.has(bucketId) ? bucketId : DEFAULT_BUCKET.id }];
  });
}

/** The rows, each with a vector of the store's embedder: those acknowledged before embedding take theirs from journalVectors. */
async function reembedStale(ctx: CoreContext, placed: { record: Absorbing; bucketId: number }[]): Promise<MemoryRow[]> {
  const current = ctx.store.meta.embedderId;
  return withVectors(
    ctx,
    placed.map(({ record, bucketId }) => {
      const { vector, ...row } = rowOf(record, bucketId);
      // One made by the model the store has since been re-indexed away from is made again.
      return vector && record.embedderId === current ? { ...row, vector } : row;
    }),
  );
}
