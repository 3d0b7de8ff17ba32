// The LobeHub desktop app's own database (lobehub/lobe-chat apps/desktop, Electron): its earlier versions
// kept every chat in a PGlite database (Postgres 16 compiled to WASM, @electric-sql/pglite 0.2.17, the root
// package.json's pin at 1.85; packages/database/package.json's peer `^0.2.17` after), its data folder
// <userData>/lobehub-storage/lobehub-local-db (apps/desktop/src/main/const/dir.ts `appStorageDir`,
// `LOCAL_DATABASE_DIR`; packages/database/src/core/electron.ts `new PGlite(dbPath)`), its tables those of
// the server's database (packages/database/src/schemas, migrations.json). Later versions left it for the
// cloud and only check that the folder is there (SystemCtr `hasLegacyLocalDb`, dir.ts `legacyLocalDbDir`).
// The tables the data export holds are read into its shape (`{ data: { messages, topics, … } }`, camelCase
// columns and ISO times, as drizzle gives them to src/services/config.ts `exportAll`): export.ts converts
// both alike, so a chat imported from the export and from the folder is the same conversation. PGlite
// writes to the folder it opens (recovery, its postmaster.pid), so it opens a copy in a temp folder.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { Readable } from "node:stream";
import { AppError } from "../../shared/errors.js";
import { latestMtime, type ByteSource } from "../source.js";
import type { SkippedCount } from "../types.js";
import { POSTGRES_DATA_FILE } from "./desktop-layout.js";

/** The Postgres major version PGlite 0.2 reads (0.3 on is Postgres 17, whose files it cannot read, nor 0.2 theirs). */
const PGLITE_POSTGRES = "16";

/** The tables export.ts reads, by the key the data export gives each (packages/database/src/repositories/dataExporter). */
const TABLES: Record<string, string> = {
  agents: "agents",
  agentsToSessions: "agents_to_sessions",
  sessions: "sessions",
  topics: "topics",
  threads: "threads",
  messages: "messages",
  files: "files",
  messagesFiles: "messages_files",
};

/**
 * The folders Postgres 16's initdb makes in a data folder (src/bin/initdb/initdb.c `subdirs`), which the
 * server needs there: a folder's listing and a zip give files alone, so the empty ones are made again.
 */
const DATA_FOLDERS = [
  "global",
  "pg_wal/archive_status",
  "pg_commit_ts",
  "pg_dynshmem",
  "pg_notify",
  "pg_serial",
  "pg_snapshots",
  "pg_subtrans",
  "pg_twophase",
  "pg_multixact/members",
  "pg_multixact/offsets",
  "base/1",
  "pg_replslot",
  "pg_tblspc",
  "pg_stat",
  "pg_stat_tmp",
  "pg_xact",
  "pg_logical/snapshots",
  "pg_logical/mappings",
];

/** The tables only LobeHub's database has together: another Postgres data folder is left as it is. */
const MARK_TABLES = ["messages", "topics", "sessions", "agents_to_sessions"];

type Rows = Record<string, unknown>[];

/** The sources with each LobeHub database folder replaced by one export-shaped source; another Postgres folder's left as it is. */
export async function withLobeHubDatabase(
  sources: readonly ByteSource[],
): Promise<{ sources: ByteSource[]; skipped: SkippedCount[]; unreadable: AppError[] }> {
  let rest = [...sources];
  const skipped: SkippedCount[] = [];
  const unreadable: AppError[] = [];
  // A data folder's own PG_VERSION, beside its control file: each database's folder (base/<oid>) has one too.
  const paths = new Set(sources.map((source) => source.path));
  const roots = sources.flatMap((source) => {
    const root = POSTGRES_DATA_FILE.exec(source.path)?.[1];
    return root !== undefined && paths.has(`${root}global/pg_control`) ? [{ version: source, root }] : [];
  });
  for (const { version, root } of roots) {
    if (!rest.includes(version) || (await textOf(version)).trim() !== PGLITE_POSTGRES) continue;
    const inFolder = new Set(rest.filter((source) => source.path.startsWith(root)));
    const files = [...inFolder];
    const label = folderLabel(version.label);
    const read = await readCopy(files, root).catch((error: unknown) => new CouldNotOpen(error));
    if (read instanceof CouldNotOpen) {
      unreadable.push(unopened(label, read));
      rest = rest.filter((source) => !inFolder.has(source));
      continue;
    }
    if (read === undefined) continue; // another app's Postgres
    if (read.failed.length > 0) skipped.push({ file: label, reason: UNREADABLE_TABLES(read.failed), count: read.failed.length });
    const mtime = latestMtime(files);
    rest = [
      exportSource(read.tables, read.schemaHash, label, `${root}lobehub-local-db.json`, mtime),
      ...rest.filter((source) => !inFolder.has(source)),
    ];
  }
  return { sources: rest, skipped, unreadable };
}

const UNREADABLE_TABLES = (tables: string[]) => `LobeHub database tables that could not be read (damaged): ${tables.join(", ")}`;

/** The folder's tables, read from a copy in a temp folder; undefined when the database is not LobeHub's. */
async function readCopy(files: readonly ByteSource[], root: string): Promise<Read | undefined> {
  const copy = await mkdtemp(join(tmpdir(), "mnemo-lobehub-"));
  try {
    for (const folder of DATA_FOLDERS) await mkdir(join(copy, ...folder.split("/")), { recursive: true });
    for (const file of files) await copyInto(copy, file.path.slice(root.length), file);
    const { PGlite } = await import("@electric-sql/pglite");
    const db = new PGlite(copy);
    try {
      await db.waitReady;
      return await readTables(db);
    } finally {
      await db.close().catch(() => undefined);
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

interface Read {
  tables: Record<string, Rows>;
  schemaHash: string;
  failed: string[];
}

interface Database {
  query<T>(sql: string): Promise<{ rows: T[] }>;
}

async function readTables(db: Database): Promise<Read | undefined> {
  const present = new Set(
    (await db.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map(
      (row) => row.name,
    ),
  );
  if (!MARK_TABLES.every((table) => present.has(table))) return undefined;
  const tables: Record<string, Rows> = {};
  const failed: string[] = [];
  for (const [key, table] of Object.entries(TABLES)) {
    if (!present.has(table)) continue; // older versions had no threads
    try {
      // In the table's own order, as the export's select gives them (export.ts sorts by time, that order breaking ties).
      tables[key] = (await db.query<Record<string, unknown>>(`SELECT * FROM "${table}"`)).rows.map(exportedRow);
    } catch {
      failed.push(table);
    }
  }
  return { tables, schemaHash: await latestMigration(db), failed };
}

/** The hash of the last migration drizzle applied: the export's `schemaHash` stands for the schema as this does. */
async function latestMigration(db: Database): Promise<string> {
  try {
    const { rows } = await db.query<{ hash: string }>("SELECT hash FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1");
    return rows[0]?.hash ?? "";
  } catch {
    return "";
  }
}

/** A row as drizzle hands it to the export: camelCase keys, times as ISO strings (JSON's Date). */
function exportedRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    out[column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = value instanceof Date ? isoOrNull(value) : value;
  }
  return out;
}

const isoOrNull = (date: Date) => (Number.isNaN(date.getTime()) ? null : date.toISOString());

/** The data export's shape, a table at a time, agents first as the export has them. */
function exportSource(tables: Record<string, Rows>, schemaHash: string, label: string, path: string, mtime: Date): ByteSource {
  const json = (value: unknown) => JSON.stringify(value, (_, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
  const pieces: Buffer[] = [Buffer.from('{"data":{')];
  Object.entries(tables).forEach(([key, rows], index) => {
    pieces.push(Buffer.from(`${index === 0 ? "" : ","}${JSON.stringify(key)}:[`));
    rows.forEach((row, at) => pieces.push(Buffer.from(`${at === 0 ? "" : ","}${json(row)}`)));
    pieces.push(Buffer.from("]"));
  });
  pieces.push(Buffer.from(`},"mode":"pglite","schemaHash":${JSON.stringify(schemaHash)}}`));
  const size = pieces.reduce((total, piece) => total + piece.length, 0);
  return { label, path, size, mtime, open: async () => Readable.from(pieces, { objectMode: false }) };
}

/** A file of the folder written at its path under `copy`; never outside it (a zip's `../` entry). */
async function copyInto(copy: string, path: string, file: ByteSource): Promise<void> {
  const target = resolve(copy, ...path.split("/"));
  if (relative(copy, target).startsWith("..")) return;
  await mkdir(join(target, ".."), { recursive: true });
  await writeFile(target, await file.open());
}

async function textOf(source: ByteSource): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The folder's name as messages give it: the version file's label less its own name. */
function folderLabel(versionLabel: string): string {
  const inZip = / \(in [^)]+\)$/.exec(versionLabel)?.[0] ?? "";
  const folder = versionLabel.slice(0, versionLabel.length - inZip.length).replace(/[\\/]?PG_VERSION$/, "");
  return folder === "" ? `the database folder${inZip}` : `${folder}${inZip}`;
}

/** What opening the copy threw: PGlite's WASM throws objects too (Emscripten's ExitStatus). */
class CouldNotOpen extends Error {
  constructor(thrown: unknown) {
    const message = thrown instanceof Error ? thrown.message : (thrown as { message?: unknown } | null)?.message;
    super(typeof message === "string" && message !== "" ? message : String(thrown));
  }
}

function unopened(label: string, error: Error): AppError {
  return new AppError("invalid_input", `${label}: the LobeHub desktop database could not be opened (${error.message})`, {
    suggestion:
      "It is damaged, or was left half-written: quit LobeHub and pass the folder again. An export from the app (Settings → Storage → Export) is read too.",
  });
}
