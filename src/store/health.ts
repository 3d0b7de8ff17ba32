import * as lancedb from "@lancedb/lancedb";
import type { Schema, Table as ArrowTable } from "apache-arrow";
import { isRemoteUri } from "../config/paths.js";
import { ChecksumRecord, type ChangedFile } from "./checksums.js";
import { changedFileWhat, damageOf, lanceText, SCHEMA_LOSS_WHAT } from "./damage.js";
import { storageFaultOf } from "./object-store-errors.js";
import { fromArrowTable } from "./convert.js";
import { readableRows } from "./salvage.js";
import { CHUNK_TOKENS_UNRECORDED, TABLE, tableSchema, VECTOR_TABLES, type TableKey } from "./schema.js";
import { predicate } from "./where.js";

/**
 * What `mnemo doctor` finds in a store, read through a connection of its own: every table opened,
 * counted and read whole (every fragment, every column), vectors checked, every index asked once,
 * and the tables checked against each other (orphans, duplicates); on a local store, every file
 * that never changes once written checked against its recorded checksum (store/checksums.ts),
 * which finds a bit flipped inside a value. Run in a child process
 * (health-process.ts): a damaged page can make LanceDB panic, and its panic is printed on the
 * process's stderr, which the doctor keeps from the user's terminal.
 */

export interface Problem {
  /** What is wrong, in words (store/damage.ts). */
  what: string;
  /** LanceDB's own text, without its source locations: for a report, not a first line. */
  detail?: string | undefined;
}

export interface IndexHealth {
  name: string;
  columns: string[];
  type: string;
  problem?: Problem;
}

export interface TableHealth {
  key: TableKey;
  table: string;
  /** Rows the table says it has (undefined when it cannot say), and the rows of them that could be read. */
  rows: number | undefined;
  read: number;
  fragments: number | undefined;
  /** The table's files cannot all be read, or one has changed since it was written. */
  problem?: Problem;
  /**
   * Its files whose bytes are not those recorded (store/checksums.ts): the rows of its data files
   * changed in place are not to be trusted, its indexes are built again.
   */
  changedFiles?: ChangedFile[];
  indexes: IndexHealth[];
  /** Vectors that are not finite, all zero, or of another dimension: memory ids, or the conversations of such chunks. */
  badVectors: string[];
  /** Rows whose key another row of the table has too (one id per key). */
  duplicates: string[];
}

/**
 * How the tables' rows stand to each other, over the rows that could be read: what a repair
 * rebuilds, and from what.
 */
export interface Relations {
  /** Conversations that are gone, whose messages are too, but whose chunks hold their text: rebuilt from those. */
  orphanChunks: string[];
  /** Messages rows of a conversation's earlier revision, its current one stored (left by a crash between two commits). */
  orphanMessages: string[];
  /** Conversations that are gone but whose messages are still stored: a repair rebuilds them from those. */
  lostConversations: string[];
  /**
   * Conversations whose current messages row is missing, by what their text can be rebuilt from:
   * their chunks, a messages row of an earlier revision, or nothing (an export restores it).
   */
  withoutMessages: { fromChunks: string[]; fromEarlier: string[]; lost: string[] };
  /** Conversations marked ready that have no chunks: search cannot find them until they are indexed again. */
  readyWithoutChunks: string[];
  /** Memories in a bucket their user does not have. */
  missingBuckets: { userId: string; bucketId: number; memories: number }[];
  /** Memories that are gone but have versions: deleted (a delete's second commit missed) or lost with their table. */
  orphanHistory: string[];
  /** Rows of users the users table does not hold, by table. */
  withoutUser: { table: string; userIds: string[]; rows: number }[];
  /** Platforms a user has conversations on but no import record for (`mnemo chats list --import-id` finds them by it). */
  missingPlatforms: { userId: string; platform: string; importId: string }[];
  /** Image memories, for checking their bytes: memory id and the image's name. */
  images: { memoryId: string; file: string }[];
}

/**
 * The tables whose rows a repair found lost (it salvaged them), marked in the meta table until it is
 * done: what refers to those rows (a memory's versions, a conversation's messages) is their text to
 * rebuild them from, where with the table whole it is what a write cut short left. A repair cut
 * short still knows it when run again.
 */
export type LostRowsTable = "memories" | "conversations";
export const lostRowsKey = (table: LostRowsTable) => `repair:lost:${table}`;

export interface StoreHealth {
  meta: {
    problem?: Problem;
    dims: number | undefined;
    embedderId: string | undefined;
    /** Undefined when the record is gone. */
    chunkTokens: number | undefined;
    generation: number;
    /** Tables a repair cut short had salvaged (lostRowsKey). */
    lostRows?: LostRowsTable[];
  };
  tables: TableHealth[];
  /** Over the rows that could be read: those a damaged table lost count as gone. */
  relations: Relations;
}

/**
 * Rows read at once; a conversation's messages row holds the whole conversation, so fewer of those:
 * reading them 1,000 at a time took the check's process to 388 MB on the 600 MB-export store, 100 at
 * a time to 274 MB, in the same time.
 */
const READ_ROWS = 1_000;
const READ_MESSAGES_ROWS = 100;

/** Index and metadata cache of the check's connection (LanceDB's defaults are 6 GB and 1 GB). */
const CACHE_BYTES = 32n * 1024n * 1024n;

/** The columns each table is checked by (keys, references), and what makes two rows the same. */
const KEYS: Record<TableKey, { columns: string[]; key: (row: Row) => string }> = {
  meta: { columns: ["key"], key: (row) => row.key as string },
  users: { columns: ["id", "name"], key: (row) => row.id as string },
  buckets: { columns: ["userId", "id"], key: (row) => `${row.userId}/${row.id}` },
  memories: { columns: ["id", "userId", "bucketId", "contentType", "imageFile"], key: (row) => row.id as string },
  memoryHistory: { columns: ["id", "userId", "memoryId"], key: (row) => row.id as string },
  platforms: { columns: ["userId", "id"], key: (row) => `${row.userId}/${row.id}` },
  conversations: { columns: ["id", "userId", "revision", "status", "tokenCount", "platform", "importId"], key: (row) => row.id as string },
  messages: { columns: ["id", "userId", "conversationId"], key: (row) => row.id as string },
  chunks: { columns: ["id", "userId", "conversationId"], key: (row) => row.id as string },
  images: { columns: ["file", "userId"], key: (row) => row.file as string },
  trash: { columns: ["id", "userId"], key: (row) => row.id as string },
};

type Row = Record<string, unknown>;

/** The rows of a table that one of its keys (as KEYS makes them) names. */
export function rowsOfKey(key: TableKey, value: string): string {
  if (key === "meta") return predicate<"meta">({ key: value });
  if (key === "images") return predicate<"images">({ file: value });
  if (key === "buckets" || key === "platforms") {
    const slash = value.indexOf("/");
    const [userId, id] = [value.slice(0, slash), value.slice(slash + 1)];
    return key === "buckets" ? predicate<"buckets">({ userId, id: Number(id) }) : predicate<"platforms">({ userId, id });
  }
  return predicate<"users">({ id: value });
}

/**
 * Checks the store at `uri`, table by table (`onTable` hears each as it is done), and a local
 * store's files against the checksums recorded in `checksums` (recording those not recorded yet).
 */
export async function checkStore(
  uri: string,
  storageOptions: Record<string, string>,
  on: { checking?(table: string): void; table?(health: TableHealth): void } = {},
  checksums?: string,
): Promise<StoreHealth> {
  const changed = checksums && !isRemoteUri(uri) ? await changedFiles(uri, checksums) : [];
  // Small caches: every index is asked once, and a whole-table read caches nothing worth keeping.
  const session = new lancedb.Session(CACHE_BYTES, CACHE_BYTES);
  const db = await lancedb.connect(uri, { readConsistencyInterval: 0, session, storageOptions });
  try {
    const meta = await checkMeta(db);
    if (!meta.problem && changed.some((file) => file.table === TABLE.meta && file.kind === "data"))
      meta.problem = changedProblem(changed.filter((file) => file.table === TABLE.meta));
    const keys = new Map<TableKey, Row[]>();
    const tables: TableHealth[] = [];
    for (const key of Object.keys(TABLE) as TableKey[]) {
      const name = liveName(key, meta.generation);
      on.checking?.(name);
      const { health, rows } = await checkTable(db, key, name, meta.dims);
      markChanged(
        health,
        changed.filter((file) => file.table === name),
      );
      tables.push(health);
      keys.set(key, rows);
      on.table?.(health);
    }
    return { meta, tables, relations: relationsOf(keys) };
  } finally {
    db.close();
  }
}

/** The recorded files whose bytes changed; then the files not recorded yet are recorded. */
async function changedFiles(uri: string, file: string): Promise<ChangedFile[]> {
  const record = new ChecksumRecord(uri, file);
  const changed = await record.verify();
  await record.record();
  return changed;
}

/** Named in `what`, the files under their table's folder: `detail` is LanceDB's own words, and this is not. */
function changedProblem(files: ChangedFile[]): Problem {
  const names = files.map((file) => file.file.slice(file.file.indexOf("/") + 1));
  return { what: `${changedFileWhat(files[0]!.kind)}: ${names.join(", ")}` };
}

/**
 * A table's changed files as its damage (a data or deletion file) or its indexes' (an index file:
 * which index cannot be told, as when they cannot be listed). Damage LanceDB found first is told first.
 */
function markChanged(health: TableHealth, files: ChangedFile[]): void {
  if (files.length === 0) return;
  health.changedFiles = files;
  const rows = [...files.filter((file) => file.kind === "data"), ...files.filter((file) => file.kind === "deletions")];
  if (rows.length > 0) health.problem ??= changedProblem(rows);
  const indexes = files.filter((file) => file.kind === "index");
  if (indexes.length > 0 && !health.indexes.some((index) => index.problem))
    health.indexes.push({ name: ANY_INDEX, columns: [], type: "unknown", problem: changedProblem(indexes) });
}

export function liveName(key: TableKey, generation: number): string {
  const vector = (VECTOR_TABLES as readonly string[]).includes(key);
  return vector && generation > 0 ? `${TABLE[key]}_g${generation}` : TABLE[key];
}

/** The meta record: the embedder's dimension and the live generation, from the rows or, when they are gone, the vector column. */
async function checkMeta(db: lancedb.Connection): Promise<StoreHealth["meta"]> {
  let values = new Map<string, string>();
  let problem: Problem | undefined;
  try {
    const table = await db.openTable(TABLE.meta);
    const rows = (await table.query().toArray()) as { key: string; value: string }[];
    table.close();
    values = new Map(rows.map((row) => [row.key, row.value]));
    if (!values.has("schemaVersion")) problem = { what: "it holds no record of the store (schema version, embedder)" };
  } catch (error) {
    problem = problemOf(error);
  }
  const dims = Number(values.get("embedderDims")) || (await vectorDims(db));
  const lostRows = (["memories", "conversations"] as const).filter((table) => values.has(lostRowsKey(table)));
  return {
    ...(problem ? { problem } : {}),
    dims,
    embedderId: values.get("embedderId"),
    chunkTokens: Number(values.get("chunkTokens")) || (values.has("schemaVersion") ? CHUNK_TOKENS_UNRECORDED : undefined),
    generation: Number(values.get("generation") ?? 0),
    ...(lostRows.length > 0 ? { lostRows } : {}),
  };
}

async function vectorDims(db: lancedb.Connection): Promise<number | undefined> {
  try {
    const table = await db.openTable(TABLE.memories);
    const field = (await table.schema()).fields.find((f) => f.name === "vector");
    table.close();
    return (field?.type as { listSize?: number } | undefined)?.listSize;
  } catch {
    return undefined;
  }
}

async function checkTable(
  db: lancedb.Connection,
  key: TableKey,
  name: string,
  dims: number | undefined,
): Promise<{ health: TableHealth; rows: Row[] }> {
  const health: TableHealth = {
    key,
    table: name,
    rows: undefined,
    read: 0,
    fragments: undefined,
    indexes: [],
    badVectors: [],
    duplicates: [],
  };
  const rows: Row[] = [];
  let table: lancedb.Table;
  try {
    table = await db.openTable(name);
  } catch (error) {
    health.problem = problemOf(error);
    return { health, rows };
  }
  try {
    const missing = missingColumns(await table.schema(), key, dims);
    if (missing) {
      health.problem = missing;
      return { health, rows };
    }
    health.rows = await table.countRows();
    // Statistics read the index files too: a damaged index is told apart below, not as the table's damage.
    health.fragments = await table
      .stats()
      .then((stats) => stats.fragmentStats.numFragments)
      .catch(() => undefined);
    const vector = (VECTOR_TABLES as readonly string[]).includes(key);
    // Every row, every column, a range of rows at a time (a plain scan of the messages table took the
    // check's process to 487 MB on the 600 MB-export store), and past a damaged page, as a salvage reads.
    const step = key === "messages" ? READ_MESSAGES_ROWS : READ_ROWS;
    const { unreadable, error } = await readableRows(table, health.rows, step, (batch) => {
      readBatch(batch, key, vector ? dims : undefined, rows, health);
      health.read += batch.numRows;
    });
    if (unreadable > 0) health.problem = problemOf(error);
    else if (health.read !== health.rows) health.problem = { what: `${health.rows} rows counted but ${health.read} read` };
    health.indexes = await checkIndexes(table, dims);
    health.duplicates = duplicatesOf(rows, KEYS[key].key);
  } catch (error) {
    health.problem = problemOf(error);
  } finally {
    table.close();
  }
  return { health, rows };
}

/** A version file that lost its columns reads as a table without them (a zeroed manifest does). */
/** What a table's schema lacks of what its key's table must have (store/schema.ts), when anything. */
export function missingColumns(schema: Schema, key: TableKey, dims: number | undefined): Problem | undefined {
  const have = new Map(schema.fields.map((field) => [field.name, field]));
  const lost = tableSchema(key, dims ?? 1).fields.filter((field) => !have.has(field.name));
  if (lost.length > 0) return { what: SCHEMA_LOSS_WHAT, detail: `missing columns: ${lost.map((field) => field.name).join(", ")}` };
  const size = (have.get("vector")?.type as { listSize?: number } | undefined)?.listSize;
  if (size !== undefined && dims !== undefined && size !== dims)
    return { what: `its vectors have ${size} dimensions where the store's embedder makes ${dims}` };
  return undefined;
}

function readBatch(batch: ArrowTable, key: TableKey, dims: number | undefined, into: Row[], health: TableHealth): void {
  const columns = KEYS[key].columns.map((name) => [name, batch.getChild(name)] as const);
  const vectors = dims === undefined ? undefined : batch.getChild("vector");
  for (let i = 0; i < batch.numRows; i++) {
    const row: Row = {};
    for (const [name, column] of columns) row[name] = column?.get(i);
    into.push(row);
    if (vectors && !goodVector(vectors.get(i)?.toArray() as Float32Array | undefined, dims!)) {
      health.badVectors.push((key === "chunks" ? row.conversationId : row.id) as string);
    }
  }
}

/** Finite, of the store's dimension, and not all zero (the embedders make unit vectors). */
function goodVector(vector: Float32Array | undefined, dims: number): boolean {
  if (!vector || vector.length !== dims) return false;
  let norm = 0;
  for (const value of vector) {
    if (!Number.isFinite(value)) return false;
    norm += value * value;
  }
  return norm > 0;
}

/** The name of an index that cannot be listed: one of the table's is damaged, which one is not known. */
export const ANY_INDEX = "*";

/** Each index asked once, the way a search asks it. */
async function checkIndexes(table: lancedb.Table, dims: number | undefined): Promise<IndexHealth[]> {
  const found: IndexHealth[] = [];
  let indexes: lancedb.IndexConfig[];
  try {
    indexes = await table.listIndices();
  } catch (error) {
    // Named `*`: which one is damaged cannot be told, and a repair drops each of ours by name.
    return [{ name: ANY_INDEX, columns: [], type: "unknown", problem: problemOf(error) }];
  }
  for (const index of indexes) {
    const health: IndexHealth = { name: index.name, columns: index.columns, type: index.indexType };
    try {
      await table.indexStats(index.name);
      const column = index.columns[0]!;
      if (/inverted|fts/i.test(index.indexType)) await table.search("mnemo", "fts", column).limit(1).toArray();
      else if (column === "vector" && dims)
        await table
          .vectorSearch(new Array(dims).fill(1 / Math.sqrt(dims)))
          .column("vector")
          .limit(1)
          .toArray();
      else await table.query().where(`${column} = 'mnemo-doctor'`).limit(1).toArray();
    } catch (error) {
      health.problem = problemOf(error);
    }
    found.push(health);
  }
  return found;
}

function duplicatesOf(rows: Row[], keyOf: (row: Row) => string): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const row of rows) {
    const key = keyOf(row);
    if (seen.has(key)) twice.add(key);
    seen.add(key);
  }
  return [...twice];
}

function relationsOf(keys: Map<TableKey, Row[]>): Relations {
  const rows = (key: TableKey) => keys.get(key) ?? [];
  const conversations = new Map(rows("conversations").map((row) => [row.id as string, row]));
  const chunked = new Set(rows("chunks").map((row) => row.conversationId as string));
  const messageIds = new Set(rows("messages").map((row) => row.id as string));
  const messagesOf = new Set(rows("messages").map((row) => row.conversationId as string));
  const current = (row: Row) => `${row.id}:${row.revision}`;
  const whole = [...conversations.values()].filter((row) => messageIds.has(current(row)));
  const wholeIds = new Set(whole.map((row) => row.id as string));
  const currentIds = new Set(whole.map(current));
  const withoutMessages = [...conversations.values()].filter((row) => !wholeIds.has(row.id as string)).map((row) => row.id as string);
  const memories = new Set(rows("memories").map((row) => row.id as string));
  const users = new Set(rows("users").map((row) => row.id as string));
  const withoutUser = (["buckets", "memories", "memoryHistory", "platforms", "conversations", "messages", "chunks"] as TableKey[]).flatMap(
    (key) => {
      const strays = rows(key).filter((row) => !users.has(row.userId as string));
      return strays.length === 0
        ? []
        : [{ table: TABLE[key], userIds: [...new Set(strays.map((row) => row.userId as string))], rows: strays.length }];
    },
  );
  return {
    orphanChunks: [...chunked].filter((id) => !conversations.has(id) && !messagesOf.has(id)),
    orphanMessages: rows("messages")
      .filter((row) => wholeIds.has(row.conversationId as string) && !currentIds.has(row.id as string))
      .map((row) => row.id as string),
    lostConversations: [...messagesOf].filter((id) => !conversations.has(id)),
    withoutMessages: {
      fromChunks: withoutMessages.filter((id) => chunked.has(id)),
      fromEarlier: withoutMessages.filter((id) => !chunked.has(id) && messagesOf.has(id)),
      lost: withoutMessages.filter((id) => !chunked.has(id) && !messagesOf.has(id)),
    },
    // A conversation without text (tokenCount 0) has no chunks by right.
    readyWithoutChunks: whole
      .filter((row) => row.status === "ready" && (row.tokenCount as number) > 0 && !chunked.has(row.id as string))
      .map((row) => row.id as string),
    missingBuckets: missingBucketsOf(rows("memories"), rows("buckets")),
    orphanHistory: [...new Set(rows("memoryHistory").map((row) => row.memoryId as string))].filter((id) => !memories.has(id)),
    withoutUser,
    missingPlatforms: missingPlatformsOf(rows("conversations"), rows("platforms")),
    images: rows("memories")
      .filter((row) => row.contentType === "image" && typeof row.imageFile === "string")
      .map((row) => ({ memoryId: row.id as string, file: row.imageFile as string })),
  };
}

function missingPlatformsOf(conversations: Row[], platformRows: Row[]): Relations["missingPlatforms"] {
  const known = new Set(platformRows.map((row) => `${row.userId}/${row.id}`));
  const missing = new Map<string, Relations["missingPlatforms"][number]>();
  for (const row of conversations) {
    const key = `${row.userId}/${row.platform}`;
    if (!known.has(key) && !missing.has(key))
      missing.set(key, { userId: row.userId as string, platform: row.platform as string, importId: row.importId as string });
  }
  return [...missing.values()];
}

function missingBucketsOf(memories: Row[], bucketRows: Row[]): Relations["missingBuckets"] {
  const buckets = new Set(bucketRows.map((row) => `${row.userId}/${row.id}`));
  const missing = new Map<string, { userId: string; bucketId: number; memories: number }>();
  for (const memory of memories) {
    const key = `${memory.userId}/${memory.bucketId}`;
    if (buckets.has(key)) continue;
    const entry = missing.get(key) ?? { userId: memory.userId as string, bucketId: memory.bucketId as number, memories: 0 };
    entry.memories++;
    missing.set(key, entry);
  }
  return [...missing.values()];
}

/**
 * What is wrong with a table, from LanceDB's error. A failing disk or object store is no fault of
 * the table: it is thrown, and the check stops with it (a repair must not rebuild a table that a
 * network outage made unreadable for a moment).
 */
export function problemOf(error: unknown): Problem {
  const what = damageOf(error);
  if (what === undefined && storageFaultOf(error, "")) throw error;
  return { what: what ?? "LanceDB cannot read it", detail: lanceText(error) };
}

/** Images read at once for a check: each row holds a whole picture. */
const READ_IMAGES = 20;

/**
 * Each picture of a store on object storage (its `images` table), with its name, read a few at a
 * time so that a check of every picture holds few in memory: for `mnemo doctor`, which checks the
 * bytes as it checks a local store's files.
 */
export async function eachStoredImage(
  uri: string,
  storageOptions: Record<string, string>,
  visit: (file: string, data: Uint8Array) => void,
): Promise<void> {
  const db = await lancedb.connect(uri, { readConsistencyInterval: 0, storageOptions });
  try {
    // Opened without asking tableNames(), which an S3-compatible server may answer with none.
    const table = await db.openTable(TABLE.images).catch(() => undefined);
    if (!table) return; // no image stored yet, or damage the check has named
    try {
      await table.checkout(await table.version()); // one version throughout: writes meanwhile do not move the offsets
      // By position, a few rows at a time, as the check reads every table (readableRows).
      await readableRows(table, await table.countRows(), READ_IMAGES, (batch) => {
        for (const row of fromArrowTable(batch)) visit(row["file"] as string, row["data"] as Uint8Array);
      });
    } finally {
      table.close();
    }
  } finally {
    db.close();
  }
}
