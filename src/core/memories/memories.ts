import type { z } from "zod";
import { parseInput } from "../../schemas/parse.js";
import {
  LegacyMemoryQuery,
  MemoryId,
  StoreMemoryRequest,
  V2MemoryQuery,
  type LegacyMemoryResponse,
  MemoryHistoryQuery,
  type MemoryHistoryResponse,
  type MemoryObject,
  type V2MemoryResponse,
} from "../../schemas/memories.js";
import type { MemoryRow } from "../../store/rows.js";
import { MIN_CANDIDATES } from "../retrieval/legs.js";
import {
  bucketNotFound,
  cachedBucketRows,
  DEFAULT_BUCKET,
  ensureDefaultBucket,
  lacksDefaultBucket,
  listBucketRows,
  listBuckets,
} from "./buckets.js";
import type { CoreContext } from "../context.js";
import { AppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { dayRange } from "../../shared/time.js";
import { filterTest, filterWhere, type MemoryFilter } from "./memory-filter.js";
import { MEMORY_COLUMNS } from "./memory-index.js";
import { searchMemories, type MemoryColumn } from "./memory-search.js";
import { besideMemoryJournal, withVectors, type PendingMemory } from "./pending-memories.js";

/** A memory as read back: at least the columns asked for, plus a score in query mode. */
type FoundMemory<C extends MemoryColumn> = Pick<MemoryRow, C> & { score?: number };

/** What GET /api/memory shows of a memory. A query reads only these columns of its hits. */
const LEGACY_COLUMNS = ["text", "bucketId"] as const satisfies readonly MemoryColumn[];
/** What GET /api/v2/memory shows of a memory. */
const V2_COLUMNS = [
  "id",
  "text",
  "bucketId",
  "contentType",
  "imageFile",
  "imageDescription",
  "createdAt",
] as const satisfies readonly MemoryColumn[];

/** The 5 most relevant memories for `GET /api/memory?query=` (spec §4.1). */
const LEGACY_QUERY_LIMIT = 5;

/** Stores several text memories with one embedding batch and one commit. */
export async function storeMemories(ctx: CoreContext, userId: string, inputs: StoreMemoryRequest[]): Promise<string[]> {
  const requests = inputs.map((input, index) => parseInput(StoreMemoryRequest, input, inputs.length > 1 ? `[${index}]` : undefined));
  const rows = await memoryRows(ctx, userId, requests);
  await insertMemoryRows(ctx, userId, rows);
  return rows.map((row) => row.id);
}

/** New memory rows for validated requests, their texts embedded in one batch (but those whose vector is `given`). */
export async function memoryRows(
  ctx: CoreContext,
  userId: string,
  requests: z.output<typeof StoreMemoryRequest>[],
  given: (Float32Array | undefined)[] = [],
): Promise<MemoryRow[]> {
  const missing = requests.flatMap((request, index) => (given[index] ? [] : [request.text]));
  const embedded = missing.length === 0 ? [] : await ctx.embedder.embedDocuments(missing, { urgent: true });
  return unembeddedRows(ctx, userId, requests).map((row, index) => ({ ...row, vector: given[index] ?? embedded.shift()! }));
}

/**
 * New memory rows for validated requests, with the vectors `given`; the others are not embedded
 * yet (the journal takes them so).
 */
export function unembeddedRows(
  ctx: CoreContext,
  userId: string,
  requests: z.output<typeof StoreMemoryRequest>[],
  given: (Float32Array | undefined)[] = [],
): PendingMemory[] {
  const now = ctx.now().toISOString();
  return requests.map((request, index) => ({
    id: newId("mem"),
    userId,
    bucketId: request.bucketId ?? 1,
    text: request.text,
    contentType: "text",
    imageFile: null,
    imageDescription: null,
    source: request.source ?? null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    ...(given[index] ? { vector: given[index] } : {}),
  }));
}

/** Adds memory rows and their first history snapshot in one write; every bucket must exist, or nothing is stored. */
export async function insertMemoryRows(ctx: CoreContext, userId: string, rows: MemoryRow[]): Promise<void> {
  const [refused] = (await insertWhereBucketsExist(ctx, userId, rows, { allOrNothing: true })).values();
  if (refused) throw refused;
}

/**
 * Adds the rows whose bucket exists, with their first history snapshots, in one write, and says
 * why each bucket that does not exist was refused (its rows are not stored; with `allOrNothing`,
 * none are).
 */
export async function insertWhereBucketsExist(
  ctx: CoreContext,
  userId: string,
  rows: MemoryRow[],
  { allOrNothing = false } = {},
): Promise<Map<number, AppError>> {
  const { missing, wrote } = await ctx.store.write(async () => {
    const buckets = new Set((await listBucketRows(ctx, userId)).map((bucket) => bucket.id));
    if (lacksDefaultBucket(buckets, rows)) {
      await ensureDefaultBucket(ctx, userId);
      buckets.add(DEFAULT_BUCKET.id);
    }
    const missing = new Map<number, AppError>();
    for (const row of rows) if (!buckets.has(row.bucketId)) missing.set(row.bucketId, bucketNotFound(row.bucketId, { create: "first" }));
    const kept = rows.filter((row) => !missing.has(row.bucketId));
    if (kept.length === 0 || (allOrNothing && missing.size > 0)) return { missing, wrote: false };
    // Two tables, two commits: the history first, so a process killed between them leaves a
    // version nobody can see rather than a memory without its first version; the intent has the
    // next write delete it.
    const done = ctx.store.intend({ rows: "memories", userId, ids: kept.map((row) => row.id) });
    await ctx.store.add("memoryHistory", kept.map(historySnapshot));
    await ctx.store.add("memories", kept);
    done();
    return { missing, wrote: true };
  });
  if (wrote) ctx.afterWrite();
  return missing;
}

export function historySnapshot(row: MemoryRow) {
  return {
    id: newId("hist"),
    userId: row.userId,
    memoryId: row.id,
    version: row.version,
    text: row.text,
    bucketId: row.bucketId,
    changedAt: row.updatedAt,
  };
}

interface ListRequest {
  mode: "query" | "all" | "latest";
  query: string;
  limit: number;
  skip: number;
  filter: MemoryFilter;
}

/**
 * Which memories a request asks for. `query` wins over `all`, which wins over `latest` (the
 * default). Memories still in the store's journal are searched and listed beside the table's
 * (besideMemoryJournal): a read right after a store does not wait for it to be absorbed.
 */
async function findMemories<C extends MemoryColumn>(
  ctx: CoreContext,
  request: ListRequest,
  columns: readonly C[],
): Promise<FoundMemory<C>[]> {
  return besideMemoryJournal(
    ctx,
    request.filter.userId,
    async (journal) => {
      const pending = journal.filter(filterTest(request.filter));
      if (request.mode === "query") {
        const hits = await searchMemories(ctx, {
          query: request.query,
          filter: request.filter,
          limit: request.limit + request.skip,
          // The same depth for every page up to MIN_CANDIDATES hits, so that pages neither repeat nor skip one.
          candidates: Math.max(MIN_CANDIDATES, request.limit + request.skip),
          columns,
          pending: await withVectors(ctx, pending),
        });
        return hits.slice(request.skip).map((hit) => ({ ...hit.row, score: hit.score }));
      }
      // The first skip + limit of the table's, with the journal's: those of the page are among them.
      const end = request.mode === "latest" ? request.skip + request.limit : undefined;
      const where = filterWhere(request.filter);
      const key = `memories:${JSON.stringify(where)}:${request.mode}:${end}`;
      const stored = await ctx.store.memo(key, ["memories"], () =>
        ctx.store.select("memories", where, {
          columns: [...MEMORY_COLUMNS],
          orderBy: [
            { column: "createdAt", ascending: false },
            { column: "id", ascending: false },
          ],
          ...(end === undefined ? {} : { limit: end }),
        }),
      );
      return newestFirst(stored, pending).slice(request.skip, end);
    },
    request.mode === "query" ? "vectors" : "rows",
  );
}

/** The table's rows and the journal's (without their vectors), newest first; a memory in both is the table's. */
function newestFirst(stored: MemoryRow[], pending: PendingMemory[]): MemoryRow[] {
  if (pending.length === 0) return stored;
  const ids = new Set(stored.map((row) => row.id));
  const fresh = pending.filter((row) => !ids.has(row.id)).map(({ vector: _, ...row }) => row as MemoryRow);
  const newer = (a: MemoryRow, b: MemoryRow) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);
  return [...stored, ...fresh].sort(newer);
}

function listMode(query: { query?: string | undefined; all?: boolean | undefined }): ListRequest["mode"] {
  if (query.query !== undefined) return "query";
  return query.all ? "all" : "latest";
}

function checkQueryText(query: string | undefined): string {
  if (query !== undefined && query.trim() === "") throw AppError.invalid("query", "must not be empty");
  return query ?? "";
}

/** GET /api/memory: v=1 plain strings, v=2 objects with a score (query mode) and the bucket id. */
export async function listMemoriesLegacy(ctx: CoreContext, userId: string, input: LegacyMemoryQuery): Promise<LegacyMemoryResponse> {
  const request = parseInput(LegacyMemoryQuery, input);
  const mode = listMode(request);
  const memories = await findMemories(
    ctx,
    {
      mode,
      query: checkQueryText(request.query),
      limit: mode === "query" ? LEGACY_QUERY_LIMIT : request.count,
      skip: request.skip,
      filter: { userId },
    },
    LEGACY_COLUMNS,
  );
  if (request.v === 1) return memories.map((memory) => memory.text);
  return memories.map((memory) => ({
    text: memory.text,
    ...(memory.score === undefined ? {} : { score: memory.score }),
    metadata: { bucketId: memory.bucketId },
  }));
}

/** GET /api/v2/memory: memories (strings or objects) and every bucket, in one answer. */
export async function listMemoriesV2(ctx: CoreContext, userId: string, input: V2MemoryQuery): Promise<V2MemoryResponse> {
  const request = parseInput(V2MemoryQuery, input);
  const bucketRows = await cachedBucketRows(ctx, userId);
  if (request.bucketId !== undefined && !bucketRows.some((row) => row.id === request.bucketId)) {
    throw bucketNotFound(request.bucketId);
  }
  const filter: MemoryFilter = {
    userId,
    bucketId: request.bucketId,
    contentType: request.contentType,
    ...dayRange(request.dateFrom, request.dateTo),
  };
  const [memories, buckets] = await Promise.all([
    findMemories(
      ctx,
      {
        mode: listMode(request),
        query: checkQueryText(request.query),
        limit: request.count,
        skip: request.skip,
        filter,
      },
      V2_COLUMNS,
    ),
    listBuckets(ctx, userId),
  ]);
  const names = new Map(bucketRows.map((row) => [row.id, row.name]));
  return {
    memories: await Promise.all(
      memories.map((memory) =>
        memory.contentType === "text" && !request.includeIds ? memory.text : toMemoryObject(ctx, memory, names.get(memory.bucketId) ?? ""),
      ),
    ),
    buckets,
  };
}

async function toMemoryObject(
  ctx: CoreContext,
  memory: FoundMemory<(typeof V2_COLUMNS)[number]>,
  bucketName: string,
): Promise<MemoryObject> {
  const metadata = { text: memory.text, createdAt: memory.createdAt, bucketId: memory.bucketId, bucketName };
  const score = memory.score === undefined ? {} : { score: memory.score };
  if (memory.contentType === "image" && memory.imageFile) {
    return {
      id: memory.id,
      text: memory.text,
      content_type: "image",
      image_url: await ctx.imageUrl(memory.id, memory.imageFile),
      image_description: memory.imageDescription ?? memory.text,
      ...score,
      metadata,
    };
  }
  return { id: memory.id, text: memory.text, content_type: "text", ...score, metadata };
}

/** A memory's versions, oldest first: every one, or a page of them (`skip`, `count`). */
export async function memoryHistory(
  ctx: CoreContext,
  userId: string,
  memoryId: string,
  input: MemoryHistoryQuery = {},
): Promise<MemoryHistoryResponse> {
  const id = parseInput(MemoryId, memoryId, "memoryId");
  const { skip, count } = parseInput(MemoryHistoryQuery, input);
  const rows = await ctx.store.select("memoryHistory", { userId, memoryId: id });
  if (rows.length === 0) throw memoryNotFound(id);
  rows.sort((a, b) => a.version - b.version);
  const page = rows.slice(skip, count === undefined ? undefined : skip + count);
  const names = new Map((await cachedBucketRows(ctx, userId)).map((row) => [row.id, row.name]));
  const [memory] = await ctx.store.select("memories", { userId, id }, { columns: ["contentType", "imageFile"] });
  const imageUrl = memory?.contentType === "image" && memory.imageFile ? await ctx.imageUrl(id, memory.imageFile) : undefined;
  return {
    memoryId: id,
    total: rows.length,
    ...(imageUrl === undefined ? {} : { imageUrl }),
    versions: page.map(({ version, text, bucketId, changedAt }) => {
      const bucketName = names.get(bucketId);
      return { version, text, bucketId, ...(bucketName === undefined ? {} : { bucketName }), changedAt };
    }),
  };
}

export function memoryNotFound(memoryId: string): AppError {
  return new AppError("not_found", `memory ${memoryId} not found`, {
    details: { field: "memoryId" },
    suggestion: "List memories with their ids: `mnemo memories` (GET /api/v2/memory?includeIds=true).",
  });
}
