import type { MemoryRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";
import { cachedBucketRows, DEFAULT_BUCKET } from "./bucket-rows.js";
import { journalVectors } from "./journal-vectors.js";

// The memories in the store's journal: the record each is kept as until absorbed (memory-journal.ts),
// and reads that show them beside the tables' rows.

/**
 * A text memory as the journal keeps it until it is absorbed: the row's own fields (the others
 * are those of any new text memory) and the embedder its vector came from, or is to come from.
 */
export interface MemoryRecord {
  memory: Pick<MemoryRow, "id" | "userId" | "bucketId" | "text" | "source" | "createdAt">;
  embedderId: string;
  /**
   * The vector's float32 bytes, base64; none when the memory was acknowledged before its text
   * was embedded (it embeds right after: journal-vectors.ts).
   */
  vector?: string;
}

/** A memory still in the journal, as a row: its vector only when the record holds one (withVectors adds the others). */
export type PendingMemory = Omit<MemoryRow, "vector"> & { vector?: Float32Array };

/**
 * Pending records a read that only lists or counts them shows beside the tables at most: such a read
 * costs a look-up of their ids, where one that searches embeds each record without a vector (another
 * process's, acknowledged before its text was embedded). Mid-burst a server leaves thousands pending,
 * and absorbing them first had `mnemo info` wait for the whole burst (src/README.md).
 */
const LISTED_LIMIT = 32_768;

/**
 * Runs `read` with the user's memories still in the journal, as rows (in the bucket they will be
 * absorbed into): a read of the memory tables that shows them itself, beside the tables' rows,
 * does not wait for them to be absorbed (store.besideJournal). A row found in both is the table's.
 * A record embedded by a model the store has since been re-indexed away from cannot be compared:
 * then the journal is absorbed first (re-embedding it). `moved()` says whether any record was
 * absorbed since they were listed (a count of the table's rows may then hold some of them).
 * `uses: "rows"` is for a read that never compares their vectors.
 */
export async function besideMemoryJournal<T>(
  ctx: CoreContext,
  userId: string,
  read: (pending: PendingMemory[], moved: () => boolean) => Promise<T>,
  uses: "vectors" | "rows" = "vectors",
): Promise<T> {
  const limit = uses === "rows" ? LISTED_LIMIT : undefined;
  return ctx.store.besideJournal(
    decodeRecord,
    async (records, moved) => {
      const mine = records.filter((record) => record.memory.userId === userId);
      if (mine.length === 0) return read([], moved);
      if (uses === "vectors" && mine.some((record) => record.embedderId !== ctx.store.meta.embedderId)) {
        await ctx.store.settle();
        return read([], moved);
      }
      // The default bucket cannot be deleted: records kept there need no look at the buckets.
      const elsewhere = mine.some((record) => record.memory.bucketId !== DEFAULT_BUCKET.id);
      const buckets = elsewhere ? new Set((await cachedBucketRows(ctx, userId)).map((row) => row.id)) : undefined;
      const rows = mine.map((record) =>
        pendingRow(record, buckets?.has(record.memory.bucketId) === false ? DEFAULT_BUCKET.id : record.memory.bucketId),
      );
      return read(rows, moved);
    },
    limit,
  );
}

/** A journal record with its vector decoded (once per record: the journal keeps what this returns). */
type DecodedRecord = Omit<MemoryRecord, "vector"> & { vector?: Float32Array };

function decodeRecord(record: unknown): DecodedRecord {
  const { memory, embedderId, vector } = record as MemoryRecord;
  return { memory, embedderId, ...(vector === undefined ? {} : { vector: decodeVector(vector) }) };
}

/** The rows made of decoded records, kept with them: a store reads every pending record of its user. */
const rowsMade = new WeakMap<DecodedRecord, PendingMemory>();

/** rowOf for a record the journal keeps, made once per bucket it is shown in (frozen: every read shares it). */
function pendingRow(record: DecodedRecord, bucketId: number): PendingMemory {
  const made = rowsMade.get(record);
  if (made?.bucketId === bucketId) return made;
  const row = Object.freeze(rowOf(record, bucketId));
  rowsMade.set(record, row);
  return row;
}

/** The memory row a record becomes, in `bucketId`, with its own vector (if it holds one). */
export function rowOf(record: MemoryRecord | DecodedRecord, bucketId: number): PendingMemory {
  const vector = typeof record.vector === "string" ? decodeVector(record.vector) : record.vector;
  return {
    ...record.memory,
    bucketId,
    contentType: "text",
    imageFile: null,
    imageDescription: null,
    version: 1,
    updatedAt: record.memory.createdAt,
    ...(vector === undefined ? {} : { vector }),
  };
}

/** Journalled memories with their vectors: those acknowledged before embedding take theirs from journalVectors. */
export async function withVectors(ctx: CoreContext, rows: PendingMemory[]): Promise<MemoryRow[]> {
  const unembedded = rows.filter((row) => row.vector === undefined);
  if (unembedded.length === 0) return rows as MemoryRow[];
  const vectors = await journalVectors(ctx).of(unembedded);
  const made = new Map(unembedded.map((row, index) => [row.id, vectors[index]!]));
  return rows.map((row) => ({ ...row, vector: row.vector ?? made.get(row.id)! }));
}

/** The pending memories not in the table yet: once `moved()`, some may have been absorbed while a read ran. */
export async function notYetStored(ctx: CoreContext, pending: PendingMemory[], moved: () => boolean): Promise<PendingMemory[]> {
  if (!moved()) return pending;
  const stored = await storedIds(
    ctx,
    "memories",
    pending.map((memory) => memory.id),
  );
  return pending.filter((memory) => !stored.has(memory.id));
}

/** Which of these memories `key` already holds (memories by id, history by the memory's id). */
export async function storedIds(ctx: CoreContext, key: "memories" | "memoryHistory", ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  if (key === "memories") return new Set((await ctx.store.select(key, { id: ids }, { columns: ["id"] })).map((row) => row.id));
  const rows = await ctx.store.select(key, { memoryId: ids, version: 1 }, { columns: ["memoryId"] });
  return new Set(rows.map((row) => row.memoryId));
}

export function toRecord(row: PendingMemory, embedderId: string): MemoryRecord {
  const { id, userId, bucketId, text, source, createdAt, vector } = row;
  return { memory: { id, userId, bucketId, text, source, createdAt }, embedderId, ...(vector ? { vector: encodeVector(vector) } : {}) };
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
