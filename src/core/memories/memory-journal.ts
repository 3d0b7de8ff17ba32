import type { JournalEntry } from "../../store/journal.js";
import type { MemoryRow } from "../../store/rows.js";
import { sqlAnd, sqlIn } from "../../store/sql.js";
import type { CoreContext } from "../context.js";
import { cachedBucketRows, DEFAULT_BUCKET } from "./buckets.js";
import { historySnapshot } from "./memories.js";

/**
 * A text memory as the journal keeps it until it is absorbed: the row's own fields (the others
 * are those of any new text memory) and the embedder its vector came from.
 */
interface MemoryRecord {
  memory: Pick<MemoryRow, "id" | "userId" | "bucketId" | "text" | "source" | "createdAt">;
  embedderId: string;
  /** The vector's float32 bytes, base64. */
  vector: string;
}

/**
 * Stores new text memories through the store's journal: acknowledged once appended and synced,
 * absorbed into the memories and memory_history tables later, many per commit (absorbMemories).
 */
export async function journalMemories(ctx: CoreContext, rows: MemoryRow[]): Promise<void> {
  const embedderId = ctx.store.meta.embedderId;
  await ctx.store.appendToJournal(rows.map((row) => toRecord(row, embedderId)));
}

/** Has the store absorb journalled memories with absorbMemories. Call once, as the app starts. */
export function absorbMemoryJournal(ctx: CoreContext): void {
  ctx.store.absorbJournalWith(
    ["memories", "memoryHistory"],
    (entries) => absorbMemories(ctx, entries),
    () => ctx.afterWrite(),
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
}

type Absorbing = MemoryRecord & { uncertain: boolean };

/** The records of users that still exist, each in a bucket that exists. */
async function placed(ctx: CoreContext, records: Absorbing[]): Promise<{ record: Absorbing; bucketId: number }[]> {
  const users = [...new Set(records.map((record) => record.memory.userId))];
  // Read again only when those tables have changed: a store then a search absorbs one record at a time.
  const existing = await ctx.store.memo(
    "user-ids",
    ["users"],
    async () => new Set((await ctx.store.select("users", "true", { columns: ["id"] })).map((row) => row.id)),
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

async function reembedStale(ctx: CoreContext, placed: { record: Absorbing; bucketId: number }[]): Promise<MemoryRow[]> {
  const current = ctx.store.meta.embedderId;
  const stale = placed.filter(({ record }) => record.embedderId !== current);
  const vectors = stale.length === 0 ? [] : await ctx.embedder.embedDocuments(stale.map(({ record }) => record.memory.text));
  const fresh = new Map(stale.map(({ record }, i) => [record.memory.id, vectors[i]!]));
  return placed.map(({ record, bucketId }) => ({
    ...record.memory,
    bucketId,
    contentType: "text",
    imageFile: null,
    imageDescription: null,
    version: 1,
    updatedAt: record.memory.createdAt,
    vector: fresh.get(record.memory.id) ?? decodeVector(record.vector),
  }));
}

/** Which of these memories `key` already holds (memories by id, history by the memory's id). */
async function storedIds(ctx: CoreContext, key: "memories" | "memoryHistory", ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const column = key === "memories" ? "id" : "memoryId";
  const rows = await ctx.store.select(key, sqlAnd(sqlIn(column, ids), key === "memoryHistory" && "version = 1"), { columns: [column] });
  return new Set(rows.map((row) => ("memoryId" in row ? row.memoryId : row.id)));
}

function toRecord(row: MemoryRow, embedderId: string): MemoryRecord {
  const { id, userId, bucketId, text, source, createdAt } = row;
  return { memory: { id, userId, bucketId, text, source, createdAt }, embedderId, vector: encodeVector(row.vector) };
}

function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

function decodeVector(base64: string): Float32Array {
  const bytes = Buffer.from(base64, "base64");
  const vector = new Float32Array(bytes.length / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
