// A format kept in a SQLite database (Cursor's state.vscdb, OpenCode's opencode.db) is read through
// sql.js, SQLite compiled to WebAssembly: no native build, nothing downloaded past the npm registry, on
// every Node mnemo runs on (Node 20 has no node:sqlite). sql.js holds the whole file in memory, so a database is read up to
// MAX_DATABASE_BYTES; the module is loaded only when a database is met, never by `--help` or a JSON import.
// What the app has not yet checkpointed from its `-wal` beside the file is read too (sqlite-wal.ts).
import { posix } from "node:path";
import { AppError, isAppError } from "../shared/errors.js";
import { readFailure } from "./json-error.js";
import { withWal } from "./sqlite-wal.js";
import type { RawRecord } from "./json-records.js";
import type { ByteSource, ByteTally } from "./source.js";

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

export function startsAsSqlite(prefix: Buffer): boolean {
  return prefix.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);
}

/**
 * The largest database read: sql.js holds the file in memory, once, besides what the pages it reads
 * cost (a generated 309 MB database of 600 chats was read at a peak of 442 MB RSS, src/README.md).
 */
export const MAX_DATABASE_BYTES = 1024 ** 3;

/** A database's key-value tables (`key TEXT, value BLOB`: VS Code's ItemTable, Cursor's cursorDiskKV), read-only. */
export interface KeyValueStore {
  /** The tables that have a `key` and a `value` column. */
  readonly tables: readonly string[];
  /** The keys of a table, in order; those from `from` (inclusive) to `to` (exclusive) when given. */
  keys(table: string, from?: string, to?: string): Iterable<string>;
  /** A key's value as text (a BLOB read as UTF-8); undefined when the key is absent or its value NULL. */
  value(table: string, key: string): string | undefined;
  /** The rows from `from` (inclusive) to `to` (exclusive), in key order. */
  rows(table: string, from: string, to: string): Iterable<{ key: string; value: string | undefined }>;
}

/** A row of a query: its columns by name, a BLOB read as UTF-8 text, NULL as undefined. */
export type Row = Readonly<Record<string, string | number | undefined>>;

/** A database, read-only: its tables, its key-value tables, and the rows of a query over ordinary tables. */
export interface DatabaseFile {
  /** Every table, with its columns. */
  readonly tables: ReadonlyMap<string, ReadonlySet<string>>;
  readonly keyValue: KeyValueStore;
  /** The rows of a SELECT, one at a time: a table of a gigabyte is never held as one answer. */
  select(sql: string, params?: Record<string, string | number>): Iterable<Row>;
}

/** Reads a database's records (Importer.database). */
export type DatabaseReader = (db: DatabaseFile) => AsyncIterable<unknown> | Iterable<unknown>;

/** What a detector is shown of a database (Sample.keys, Sample.tables). */
export interface DatabaseShape {
  /** The keys of every key-value table, each `prefix:` once for keys made of one (`composerData:`). */
  keys: Set<string>;
  tables: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The database opened once to be shown to the detectors, then closed (the read opens it again). */
export async function databaseShape(source: ByteSource): Promise<DatabaseShape> {
  const db = await openDatabase(source);
  try {
    const keys = new Set<string>();
    for (const table of db.keyValue.tables) {
      for (const key of db.keyValue.keys(table)) keys.add(key.includes(":") ? key.slice(0, key.indexOf(":") + 1) : key);
    }
    return { keys, tables: db.tables };
  } finally {
    db.close();
  }
}

/** The records `read` finds in the database, one after another; the whole file is counted read once it is loaded. */
export async function* databaseRecords(source: ByteSource, tally: ByteTally, read: DatabaseReader): AsyncGenerator<RawRecord> {
  const db = await openDatabase(source);
  tally.add(source.size);
  try {
    let index = 0;
    for await (const value of read(db)) yield { value, index: index++, byte: 0, repair: undefined };
  } catch (error) {
    throw isAppError(error) ? error : damaged(source, error); // a page damaged past those detection read
  } finally {
    db.close();
  }
}

interface OpenDatabase extends DatabaseFile {
  close(): void;
}

type SqlJs = Awaited<ReturnType<typeof import("sql.js")["default"]>>;
type Database = InstanceType<SqlJs["Database"]>;

let sqlJs: Promise<SqlJs> | undefined;

async function openDatabase(source: ByteSource): Promise<OpenDatabase> {
  const wal = await source.sibling?.(`${posix.basename(source.path)}-wal`);
  if (source.size + (wal?.size ?? 0) > MAX_DATABASE_BYTES) throw tooLarge(source, wal?.size ?? 0);
  const file = await readAll(source);
  const bytes = wal === undefined || wal.size === 0 ? file : withWal(file, await readAll(wal));
  sqlJs ??= import("sql.js").then(({ default: init }) => init());
  const { Database } = await sqlJs;
  let db: Database | undefined;
  try {
    db = new Database(bytes);
    return databaseOf(db);
  } catch (error) {
    db?.close();
    throw damaged(source, error);
  }
}

function databaseOf(db: Database): OpenDatabase {
  const tables = new Map(
    (db.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0]?.values ?? [])
      .map(([name]) => String(name))
      .filter((name) => /^\w+$/.test(name))
      .map((name) => [name, columnsOf(db, name)] as const),
  );
  return {
    tables,
    keyValue: keyValueStore(db, tables),
    select: (sql, params = {}) => selected(db, sql, params),
    close: () => db.close(),
  };
}

function keyValueStore(db: Database, all: ReadonlyMap<string, ReadonlySet<string>>): KeyValueStore {
  const tables = [...all].filter(([, columns]) => columns.has("key") && columns.has("value")).map(([name]) => name);
  const known = (table: string) => {
    if (!tables.includes(table)) throw new Error(`no key-value table ${table}`);
    return table;
  };
  const range = (from?: string, to?: string) =>
    `${from === undefined ? "" : " AND key >= $from"}${to === undefined ? "" : " AND key < $to"}`;
  const params = (from?: string, to?: string) => ({
    ...(from === undefined ? {} : { $from: from }),
    ...(to === undefined ? {} : { $to: to }),
  });
  return {
    tables,
    *keys(table, from, to) {
      for (const [key] of rowsOf(
        db,
        `SELECT key FROM ${known(table)} WHERE key IS NOT NULL${range(from, to)} ORDER BY key`,
        params(from, to),
      ))
        yield String(key);
    },
    value(table, key) {
      const [row] = [...rowsOf(db, `SELECT value FROM ${known(table)} WHERE key = $key`, { $key: key })];
      return row === undefined ? undefined : textOf(row[0]);
    },
    *rows(table, from, to) {
      for (const [key, value] of rowsOf(
        db,
        `SELECT key, value FROM ${known(table)} WHERE 1${range(from, to)} ORDER BY key`,
        params(from, to),
      ))
        yield { key: String(key), value: textOf(value) };
    },
  };
}

/**
 * A table's columns; none for a virtual table of a module sql.js is built without (FTS5: llm's
 * responses_fts), which SQLite will not describe: its own tables hold nothing a reader selects.
 */
function columnsOf(db: Database, table: string): Set<string> {
  try {
    return new Set((db.exec(`PRAGMA table_info(${table})`)[0]?.values ?? []).map((column) => String(column[1])));
  } catch {
    return new Set();
  }
}

/** A SELECT's rows as objects. The database is a copy in memory, never written back; SELECT alone keeps a reader to reading it. */
function* selected(db: Database, sql: string, params: Record<string, string | number>): Generator<Row> {
  if (!/^\s*SELECT\b/i.test(sql)) throw new Error(`not a SELECT: ${sql}`);
  const statement = db.prepare(sql, params);
  try {
    while (statement.step()) {
      const row: Record<string, string | number | undefined> = {};
      for (const [column, value] of Object.entries(statement.getAsObject()))
        row[column] = typeof value === "number" ? value : textOf(value);
      yield row;
    }
  } finally {
    statement.free();
  }
}

/** A statement's rows, one at a time (a table of a gigabyte is never held as one answer). */
function* rowsOf(db: Database, sql: string, params: Record<string, string>): Generator<unknown[]> {
  const statement = db.prepare(sql, params);
  try {
    while (statement.step()) yield statement.get();
  } finally {
    statement.free();
  }
}

const UTF8 = new TextDecoder();

function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return UTF8.decode(value);
  return value === null || value === undefined ? undefined : String(value);
}

/**
 * The file in one Buffer of its size, filled as it streams: chunks joined at the end held it twice.
 * sql.js keeps a Node Buffer it is given as it is (its `slice` is a view), not a copy of it.
 */
async function readAll(source: ByteSource): Promise<Buffer> {
  const input = await source.open();
  const bytes = Buffer.allocUnsafe(source.size);
  let length = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      if (length + chunk.length > bytes.length) throw new Error("the file grew while it was read");
      length += chunk.copy(bytes, length);
    }
  } catch (error) {
    throw await readFailure(error, source, false);
  } finally {
    input.destroy();
  }
  return bytes.subarray(0, length);
}

/** A size as the refusal of a database says it: "1.5 GB". */
export function gigabytes(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/** The start of what to do with a database over MAX_DATABASE_BYTES, before each format's command. */
export const SMALLER_DATABASE = "Copy the chats alone into a smaller database and import that";

function tooLarge(source: ByteSource, walSize: number): AppError {
  return new AppError(
    "invalid_input",
    `${source.label}: the database is ${gigabytes(source.size + walSize)}${walSize > 0 ? " with its -wal" : ""}, over the ${gigabytes(MAX_DATABASE_BYTES)} mnemo reads (it holds a database whole in memory)`,
    // Each format's command is in its registry entry (Importer.smallerDatabase): detect.ts says them.
    { suggestion: SMALLER_DATABASE, details: { field: "database", problem: "too large" } },
  );
}

function damaged(source: ByteSource, error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  return new AppError("invalid_input", `${source.label}: a SQLite database that cannot be read (${reason})`, {
    suggestion:
      "Quit the app that writes it and copy the file again (a copy taken mid-write can be torn), or pass the copy it keeps beside it (Cursor's state.vscdb.backup).",
    cause: error,
  });
}
