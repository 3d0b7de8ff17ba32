/**
 * mnemo's export format, version 1: everything a user has (or, with `--all-users`, everything the
 * store holds), to keep as a backup, restore exactly, or carry to another store.
 *
 * WRITTEN by `mnemo export [file|-]` and GET /api/export (this module); READ by `mnemo import`
 * (importers/mnemo-export.ts validates each line; core/jobs/restore.ts stores it). The records'
 * schemas are in schemas/export.ts.
 *
 * Layout. JSON Lines (UTF-8, one JSON object per line, `\n` after each), gzip-compressed when the
 * file name ends in `.gz` (a reader recognises gzip by its first bytes, not by the name). Written
 * as it is read from the store, a batch of rows at a time: memory stays bounded whatever the size.
 *
 * Line 1, the header:
 *   {"format":"mnemo-export","version":1,"exportedAt":"<ISO time>","generator":"mnemo 0.1.0",
 *    "embedder":{"id":…,"spec":…,"dims":512},"chunkTokens":192,"vectors":true,"scope":"user"|"store",
 *    "expected":{"memory":120,…}}
 *   `version` changes only for a change an older reader would get wrong; a reader refuses a version
 *   above its own and ignores fields it does not know. `embedder` is the model the vectors were made
 *   with; `chunkTokens` the size the chunks were cut at (absent: 192); `expected` counts records at
 *   the start, for a progress bar only.
 *
 * Then, for each user, a `user` record followed by everything that user owns, in this order:
 *   {"type":"user","id","name","createdAt","tokenHash"}
 *   {"type":"bucket","id":1,"name","description","createdAt"}                      every bucket
 *   {"type":"memory","id","bucketId","text","contentType","imageDescription","source","version",
 *    "createdAt","updatedAt","image":{"name","data"}|null,"history":[{"id","version","text",
 *    "bucketId","changedAt"}],"vector"}                                             every memory
 *   {"type":"platform","id","displayName","importId","createdAt"}                 import records
 *   {"type":"conversation","id","platform","platformConversationId","importId","title",
 *    "createdAt","updatedAt","uploadedAt","status","statusReason","pinned","excluded",
 *    "quotaBlocked","messageCount","tokenCount","contentHash","revision",
 *    "messages":[{"id","sender","text","timestamp","tokens"}],
 *    "chunks":[{"id","chunkIndex","text","sender","messageIds","messageOffsets","messageTimes",
 *               "messageSenders","timestamp","tokenCount","active","vector"}]}   every conversation
 * and last, once: {"type":"end","records":{"user":1,"bucket":3,…}}. A file without the `end` line
 * was cut short: a restore keeps what it read and says so.
 *
 * Values. Times are ISO 8601 in UTC, as stored. Ids are the store's own (memory `mem_…`,
 * conversation `conv_…`, import `imp_…`, bucket ids are integers per user), so a restore keeps every
 * id a client may hold. An image memory's bytes are in the record, base64 (at most 10 MB an image,
 * so ~13.4 MB a line): one file holds everything, and a restore never depends on a data dir that may
 * be gone. A vector is its float32 values, little-endian, in base64 (2,732 characters for 512
 * dimensions).
 *
 * Vectors. Carried by default: a restore that may use them (the target store's embedder is the
 * header's, and for chunks its chunk size too) stores the chunks as they are, where one without them chunks and embeds every
 * conversation again, as the import did (22 minutes for the 600 MB-export store with the bundled
 * model on an idle machine, far longer with a transformers model). Measured in test/bench/export.mjs
 * on that store: 33 × faster carried, for a file 11 × larger (720 against 65 MB; vectors do not
 * compress). `--no-vectors` (GET /api/export?vectors=false) leaves them and the chunks out.
 *
 * Tokens. A user record carries the SHA-256 hash of the user's API token, never the token: a restore
 * must let people keep working, so a user the restore creates gets the hash and every plugin that
 * holds the token still gets in. A hash of a 256-bit random token cannot be turned back into it or
 * guessed, so it grants nothing to whoever reads the file (which holds the user's whole history
 * anyway, and is to be kept as privately as the store). A restore never replaces the token of a user
 * that exists and has one (one without takes the file's), nor touches a token with `--user`.
 *
 * Restore (core/jobs/restore.ts). Into an empty store: everything as it was, ids, versions, times,
 * flags and image bytes. Into a store that has some of it, what is there stays as it is and what is
 * missing is added, so restoring the same file twice adds nothing: users are matched by name,
 * buckets by name, memories by id, import records by platform, conversations by id or by platform
 * and platform conversation id; one that `mnemo doctor --repair` rebuilt from its messages (platform
 * `recovered`) is replaced by the export's. A conversation that was `processing` is restored
 * `queued`, and so is a `ready` one whose chunks are not used (no vectors, another embedder, another
 * chunk size).
 *
 * Consistency. Each table is read as it stands when its turn comes: an export taken while a server
 * writes holds every record whole, and writes that land during the export may or may not be in it.
 */
import { createRequire } from "node:module";
import path from "node:path";
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  ExportQuery,
  type ExportChunk,
  type ExportConversation,
  type ExportHeader,
  type ExportMemory,
  type ExportRecord,
} from "../../schemas/export.js";
import { parseInput } from "../../schemas/parse.js";
import { DamagedTableError } from "../../store/damage.js";
import type { ChunkRow, ConversationRow, MemoryRow, UserRow } from "../../store/rows.js";
import { AppError } from "../../shared/errors.js";
import type { CoreContext } from "../context.js";
import { readMessages } from "../chat-history/conversations.js";
import { encodeVector } from "./vectors.js";

export interface ExportOptions {
  /** Whose data: one user, or every user of the store (`--all-users`). */
  users: UserRow[];
  scope: ExportHeader["scope"];
  /** Whether memories and chunks carry their vectors (default true). */
  vectors?: boolean;
}

/** GET /api/export and `mnemo export`: one user's export (ExportQuery: `vectors`). */
export async function exportUser(ctx: CoreContext, userId: string, input: ExportQuery = {}): Promise<AsyncIterable<string>> {
  const { vectors } = parseInput(ExportQuery, input);
  const users = await ctx.store.select("users", { id: userId });
  return exportLines(ctx, { users, scope: "user", vectors });
}

/** `mnemo export --all-users`: every user of the store, oldest first. */
export async function exportAllUsers(ctx: CoreContext, input: ExportQuery = {}): Promise<AsyncIterable<string>> {
  const { vectors } = parseInput(ExportQuery, input);
  const users = (await ctx.store.select("users", {})).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return exportLines(ctx, { users, scope: "store", vectors });
}

/** Rows handled per step: a step's conversations with their messages and chunks stay a few MB. */
const CONVERSATIONS_PER_STEP = 100;
const MEMORIES_PER_STEP = 250;

/** The export, line by line (each ends with `\n`), read from the store as it is written. */
export async function* exportLines(ctx: CoreContext, options: ExportOptions): AsyncGenerator<string> {
  const vectors = options.vectors ?? true;
  const counts: Record<string, number> = {};
  const line = (record: ExportRecord) => {
    counts[record.type] = (counts[record.type] ?? 0) + 1;
    return `${JSON.stringify(record)}\n`;
  };
  yield `${JSON.stringify(await header(ctx, options, vectors))}\n`;
  for (const user of options.users) {
    yield line({ type: "user", id: user.id, name: user.name, createdAt: user.createdAt, tokenHash: user.tokenHash });
    for (const bucket of (await ctx.store.select("buckets", { userId: user.id })).sort((a, b) => a.id - b.id)) {
      yield line({ type: "bucket", id: bucket.id, name: bucket.name, description: bucket.description, createdAt: bucket.createdAt });
    }
    for await (const record of memoryRecords(ctx, user.id, vectors)) yield line(record);
    for (const platform of (await ctx.store.select("platforms", { userId: user.id })).sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt),
    )) {
      const { id, displayName, importId, createdAt } = platform;
      yield line({ type: "platform", id, displayName, importId, createdAt });
    }
    for await (const record of withChunksAdvice(conversationRecords(ctx, user.id, vectors))) yield line(record);
  }
  yield `${JSON.stringify({ type: "end", records: counts })}\n`;
}

/**
 * The records, where a damaged chunks table also says that an export without vectors leaves it out:
 * the chunks are only the search index, made again from the messages by the restore.
 */
async function* withChunksAdvice<T>(records: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* records;
  } catch (error) {
    if (!(error instanceof DamagedTableError) || error.key !== "chunks") throw error;
    throw new AppError(error.code, error.message, {
      suggestion: `${error.suggestion} To back up now, \`mnemo export --no-vectors\` (GET /api/export?vectors=false) leaves the search index out: a restore makes it again from the messages.`,
      details: error.details,
      cause: error,
    });
  }
}

async function header(ctx: CoreContext, options: ExportOptions, vectors: boolean): Promise<ExportHeader> {
  const { embedderId, embedderSpec, dims, chunkTokens } = ctx.store.meta;
  const expected: Record<string, number> = { user: options.users.length, bucket: 0, memory: 0, platform: 0, conversation: 0 };
  for (const user of options.users) {
    const where = { userId: user.id };
    expected["bucket"]! += await ctx.store.count("buckets", where);
    expected["memory"]! += await ctx.store.count("memories", where);
    expected["platform"]! += await ctx.store.count("platforms", where);
    expected["conversation"]! += await ctx.store.count("conversations", where);
  }
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: ctx.now().toISOString(),
    generator: `mnemo ${packageVersion()}`,
    embedder: { id: embedderId, spec: embedderSpec, dims },
    chunkTokens,
    vectors,
    scope: options.scope,
    expected,
  };
}

/** Every memory of the user (or those of these ids) with its history, image bytes and (optionally) vector. */
export async function* memoryRecords(ctx: CoreContext, userId: string, vectors: boolean, ids?: string[]): AsyncGenerator<ExportMemory> {
  const columns = await ctx.store.columns("memories");
  for await (const batch of steps(
    ctx.store.scan("memories", { userId, id: ids }, { columns: vectors ? [...columns, "vector"] : columns }),
    MEMORIES_PER_STEP,
  )) {
    const history = await ctx.store.select("memoryHistory", { userId, memoryId: batch.map((row) => row.id) });
    const historyOf = groupBy(history, (row) => row.memoryId);
    for (const row of batch) {
      const versions = (historyOf.get(row.id) ?? []).sort((a, b) => a.version - b.version);
      yield {
        type: "memory",
        id: row.id,
        bucketId: row.bucketId,
        text: row.text,
        contentType: row.contentType,
        imageDescription: row.imageDescription,
        source: row.source,
        version: row.version,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        image: await imageOf(ctx, row),
        history: versions.map(({ id, version, text, bucketId, changedAt }) => ({ id, version, text, bucketId, changedAt })),
        ...(vectors ? { vector: encodeVector(row.vector) } : {}),
      };
    }
  }
}

/** The image's bytes; null when the memory has none, or its file was removed from the data dir by hand. */
async function imageOf(ctx: CoreContext, row: MemoryRow): Promise<{ name: string; data: string } | null> {
  if (!row.imageFile) return null;
  const data = await ctx.images.read(row.imageFile);
  return data ? { name: path.basename(row.imageFile), data: data.toString("base64") } : null;
}

/** Every conversation of the user (or those of these ids) with its messages and (optionally) its chunks and their vectors. */
export async function* conversationRecords(
  ctx: CoreContext,
  userId: string,
  vectors: boolean,
  ids?: string[],
): AsyncGenerator<ExportConversation> {
  for await (const batch of steps(ctx.store.scan("conversations", { userId, id: ids }), CONVERSATIONS_PER_STEP)) {
    const messages = await readMessages(ctx, batch);
    const chunks = vectors ? groupBy(await chunksOf(ctx, userId, batch), (chunk) => chunk.conversationId) : undefined;
    for (const row of batch) {
      yield {
        ...conversationFields(row),
        messages: JSON.parse(messages.get(row.id) ?? "[]"),
        ...(chunks ? { chunks: (chunks.get(row.id) ?? []).sort((a, b) => a.chunkIndex - b.chunkIndex).map(toExportChunk) } : {}),
      };
    }
  }
}

function conversationFields(row: ConversationRow): Omit<Extract<ExportRecord, { type: "conversation" }>, "messages" | "chunks"> {
  return {
    type: "conversation",
    id: row.id,
    platform: row.platform,
    platformConversationId: row.platformConversationId,
    importId: row.importId,
    title: row.title,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    uploadedAt: row.uploadedAt,
    status: row.status,
    statusReason: row.statusReason,
    pinned: row.pinned,
    excluded: row.excluded,
    quotaBlocked: row.quotaBlocked,
    messageCount: row.messageCount,
    tokenCount: row.tokenCount,
    contentHash: row.contentHash,
    revision: row.revision,
  };
}

async function chunksOf(ctx: CoreContext, userId: string, conversations: ConversationRow[]): Promise<ChunkRow[]> {
  const columns = await ctx.store.columns("chunks");
  return ctx.store.select("chunks", { userId, conversationId: conversations.map((row) => row.id) }, { columns: [...columns, "vector"] });
}

function toExportChunk(chunk: ChunkRow): ExportChunk {
  const { id, chunkIndex, text, sender, messageIds, messageOffsets, messageTimes, messageSenders, timestamp, tokenCount, active } = chunk;
  return {
    id,
    chunkIndex,
    text,
    sender,
    messageIds,
    messageOffsets,
    messageTimes,
    messageSenders,
    timestamp,
    tokenCount,
    active,
    vector: encodeVector(chunk.vector),
  };
}

/** LanceDB's batches regrouped into steps of `size` rows. */
async function* steps<T>(batches: AsyncIterable<T[]>, size: number): AsyncGenerator<T[]> {
  let pending: T[] = [];
  for await (const batch of batches) {
    pending.push(...batch);
    while (pending.length >= size) yield pending.splice(0, size);
  }
  if (pending.length > 0) yield pending;
  pending = [];
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

function packageVersion(): string {
  return (createRequire(import.meta.url)("../../../package.json") as { version: string }).version;
}
