// Cherry Studio's backups of March 2026 on ("direct backup", metadata.json version 6; v2's version 7
// keeps the same folders): CherryHQ/cherry-studio src/main/services/BackupManager.ts `backup` copies the
// app's Chromium storage folders as they are beside metadata.json `{ version, timestamp, appName:
// "Cherry Studio", appVersion, platform, arch }` and the Data folder: `IndexedDB/file__0.indexeddb.leveldb`
// (the renderer is a file:// page) holding the Dexie database `CherryStudio` (src/renderer/src/databases/index.ts),
// and `Local Storage/leveldb` holding the redux state under `persist:cherry-studio`. Those are read
// (importers/leveldb/) into the shape of the JSON backup's data.json, `{ time, version, localStorage,
// indexedDB: { topics, message_blocks } }`, which the JSON backup's importer then reads as it reads
// data.json: one converter for both. Without Local Storage, topics are named by their first prompt. A
// large value Blink moved to a blob file is read from the `.indexeddb.blob` folder copied beside the database.
// The app's own data folder (userData) holds the same folders, no metadata.json: it is known by its
// page's database (`CherryStudio` in `file__0.indexeddb.leveldb`), and read as the app may be writing it:
// the files the MANIFEST names live, read as they are on disk then (leveldb.ts liveFiles).
import { Readable } from "node:stream";
import type { ByteSource } from "../source.js";
import type { SkippedCount } from "../types.js";
import { objectStoreRows } from "../leveldb/indexeddb.js";
import { isLive, type LevelFile, levelFileNumber, type LiveFiles, liveFiles, readLevelDb, useSnappy } from "../leveldb/leveldb.js";
import { localStorageItem } from "../leveldb/local-storage.js";
import { DIRECT_BACKUP_FILE } from "./direct-layout.js";

const DATABASE = "CherryStudio";
const STORES = ["topics", "message_blocks"] as const;
const STATE_KEY = "persist:cherry-studio";
/** metadata.json is a few lines; more is not Cherry Studio's. */
const MAX_METADATA_BYTES = 64 * 1024;

export interface DirectBackups {
  /** The sources with each backup's storage folders replaced by one data.json-shaped source. */
  sources: ByteSource[];
  skipped: SkippedCount[];
}

/**
 * Each Cherry Studio direct backup among the sources (its root: "" or a folder it was zipped in) read
 * into a data.json; and the app's own data folder (its userData: the same folders, no metadata.json),
 * known by its database, Cherry Studio's, in its file:// page's IndexedDB.
 */
export async function withDirectBackups(sources: readonly ByteSource[]): Promise<DirectBackups> {
  const roots = new Set(sources.map((source) => DIRECT_BACKUP_FILE.exec(source.path)?.[1]).filter((root) => root !== undefined));
  let rest = [...sources];
  const skipped: SkippedCount[] = [];
  for (const root of roots) {
    const metadata = rest.find((source) => source.path === `${root}metadata.json`);
    if (metadata !== undefined && !(await isCherryStudios(metadata))) continue;
    useSnappy(await import("snappyjs"));
    const read = await backupData(rest, root, metadata);
    if (metadata === undefined && read.source === undefined) continue; // another app's data folder: left as it is
    skipped.push(...read.skipped);
    const storage = [`${root}IndexedDB/`, `${root}Local Storage/`, `${root}metadata.json`];
    rest = rest.filter((source) => !storage.some((path) => source.path.startsWith(path)));
    if (read.source !== undefined) rest.unshift(read.source);
  }
  return { sources: rest, skipped };
}

async function isCherryStudios(metadata: ByteSource): Promise<boolean> {
  if (metadata.size > MAX_METADATA_BYTES) return false;
  try {
    const value: unknown = JSON.parse((await bytesOf(metadata)).toString("utf8"));
    return typeof value === "object" && value !== null && (value as Record<string, unknown>).appName === "Cherry Studio";
  } catch {
    return false;
  }
}

async function backupData(sources: readonly ByteSource[], root: string, metadata: ByteSource | undefined) {
  const database = sources.filter((source) => DIRECT_BACKUP_FILE.exec(source.path)?.[1] === root);
  const label = storageLabel(metadata, database[0]);
  // The app's own folder is known by its page's database: file://, as WindowService.ts loads it.
  const found = await databaseRows(sources, root, metadata === undefined ? APP_PAGE_DATABASE : undefined);
  if (found.rows === undefined) return { source: undefined, skipped: damage(label, found.damaged, 0) };
  const state = await reduxState(sources, root);
  const { pieces, unwritable } = dataJson(found.rows, state);
  const size = pieces.reduce((total, piece) => total + piece.length, 0);
  const mtime = metadata?.mtime ?? new Date(Math.max(...database.map((source) => source.mtime.getTime())));
  const source: ByteSource = {
    label,
    path: `${root}IndexedDB/${DATABASE}.json`,
    size,
    mtime,
    open: async () => Readable.from(pieces, { objectMode: false }),
  };
  return { source, skipped: damage(label, found.damaged, found.unreadable + unwritable) };
}

const APP_PAGE_DATABASE = "file__0.indexeddb.leveldb";

/** "IndexedDB (in backup.zip)", or the IndexedDB folder's path on disk. */
function storageLabel(metadata: ByteSource | undefined, file: ByteSource | undefined): string {
  if (metadata !== undefined) return metadata.label.replace(/metadata\.json/, "IndexedDB");
  return (file?.label ?? "IndexedDB").replace(/(IndexedDB)[\\/][^\\/]+\.indexeddb\.leveldb[\\/][^\\/ ]+/, "$1");
}

/**
 * data.json's text, a row at a time: one string of it all would pass V8's longest (512 MB, what made
 * the app's own JSON backup fail, issue #12072). A row JSON cannot hold (a BigInt) is counted.
 */
function dataJson(rows: ReadonlyMap<string, unknown[]>, state: string | undefined) {
  const pieces: Buffer[] = [];
  let unwritable = 0;
  const add = (text: string) => pieces.push(Buffer.from(text, "utf8"));
  add(`{"version":6,"localStorage":${JSON.stringify(state === undefined ? {} : { [STATE_KEY]: state })},"indexedDB":{`);
  [...rows].forEach(([store, list], index) => {
    add(`${index === 0 ? "" : ","}${JSON.stringify(store)}:[`);
    let first = true;
    for (const row of list) {
      try {
        add(`${first ? "" : ","}${JSON.stringify(row)}`);
        first = false;
      } catch {
        unwritable++;
      }
    }
    add("]");
  });
  add("}}");
  return { pieces, unwritable };
}

function damage(label: string, damaged: number, unreadable: number): SkippedCount[] {
  return [
    ...(damaged > 0 ? [{ file: label, reason: DAMAGED, count: damaged }] : []),
    ...(unreadable > 0 ? [{ file: label, reason: UNREADABLE, count: unreadable }] : []),
  ];
}

const DAMAGED = "LevelDB log records and table blocks that could not be read (damaged): the rows in them are lost";
const UNREADABLE = "database rows that could not be read (damaged, or their blob file missing)";

/** The topics and blocks of the first IndexedDB folder (or the one named `only`) holding Cherry Studio's database. */
async function databaseRows(sources: readonly ByteSource[], root: string, only?: string) {
  const folders = new Set(
    sources
      .map((source) => source.path)
      .flatMap((path) => (DIRECT_BACKUP_FILE.exec(path)?.[1] === root ? [path.slice(0, path.lastIndexOf("/") + 1)] : []))
      .filter((folder) => only === undefined || folder === `${root}IndexedDB/${only}/`),
  );
  let damaged = 0;
  for (const folder of folders) {
    const read = await readLevelDb(await levelFiles(sources, folder));
    damaged += read.damaged;
    const blobs = folder.replace(/\.leveldb\/$/, ".blob/");
    const blobFile = async (path: string) => {
      const source = sources.find((candidate) => candidate.path === blobs + path);
      return source === undefined ? undefined : bytesOf(source);
    };
    const { rows, unreadable, found } = await objectStoreRows(read.entries, DATABASE, STORES, blobFile);
    if (found) return { rows, unreadable, damaged };
  }
  return { rows: undefined, unreadable: 0, damaged };
}

/**
 * The redux state Local Storage holds for the app's page (a file://, WindowService.ts `loadFile`; another
 * origin's if the app ever moves off it); none when the folder is missing.
 */
async function reduxState(sources: readonly ByteSource[], root: string): Promise<string | undefined> {
  const files = await levelFiles(sources, `${root}Local Storage/leveldb/`);
  if (files.length === 0) return undefined;
  const { entries } = await readLevelDb(files);
  return localStorageItem(entries, STATE_KEY, "file://");
}

/**
 * The database's files in a folder: those its MANIFEST names live, when CURRENT names a readable one,
 * read from disk as they are now (a running app compacts: a table it names may be new since the folder
 * was listed, or deleted since the MANIFEST was read, which is then read again); else every .log and .ldb.
 */
async function levelFiles(sources: readonly ByteSource[], folder: string): Promise<LevelFile[]> {
  const inFolder = sources.filter((source) => source.path.startsWith(folder) && !source.path.slice(folder.length).includes("/"));
  const named = (name: string) => inFolder.find((source) => source.path === folder + name);
  const current = named("CURRENT");
  for (let attempt = 0; current !== undefined && attempt < LIVE_ATTEMPTS; attempt++) {
    const live = await liveFilesOf(current, named);
    if (live === undefined) break;
    const files = await liveFileBytes(live, inFolder, folder, current, named);
    if (files !== undefined) return files;
  }
  const files: LevelFile[] = [];
  for (const source of inFolder) {
    const name = source.path.slice(folder.length);
    const bytes = levelFileNumber(name) === undefined ? undefined : await readIfThere(source, Number.POSITIVE_INFINITY);
    if (bytes !== undefined) files.push({ name, bytes });
  }
  return files;
}

/** How often a running app's compaction may delete a live file between reading its MANIFEST and the file before the read gives up on the MANIFEST. */
const LIVE_ATTEMPTS = 3;
/** CURRENT is a file name and a line end; a MANIFEST is some KB for a thousand tables. */
const MAX_CURRENT_BYTES = 1024;
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

async function liveFilesOf(current: ByteSource, named: (name: string) => ByteSource | undefined): Promise<LiveFiles | undefined> {
  const name = (await readIfThere(current, MAX_CURRENT_BYTES))?.toString("latin1").trim();
  if (name === undefined || !/^MANIFEST-\d+$/.test(name)) return undefined;
  const manifest = await fileNamed(name, current, named);
  const bytes = manifest === undefined ? undefined : await readIfThere(manifest, MAX_MANIFEST_BYTES);
  return bytes === undefined ? undefined : liveFiles(bytes);
}

/** The live files' bytes; undefined when one is gone (deleted by a compaction since the MANIFEST was read). */
async function liveFileBytes(
  live: LiveFiles,
  inFolder: readonly ByteSource[],
  folder: string,
  current: ByteSource,
  named: (name: string) => ByteSource | undefined,
): Promise<LevelFile[] | undefined> {
  const logs = inFolder
    .map((source) => source.path.slice(folder.length))
    .filter((name) => levelFileNumber(name)?.log && isLive(name, live));
  const logName = `${String(live.logNumber).padStart(6, "0")}.log`; // the log being written, perhaps new since the listing
  const tables = [...live.tables].map((number) => `${String(number).padStart(6, "0")}.ldb`);
  const wanted = [...new Set([...logs, logName, ...tables])];
  const files: LevelFile[] = [];
  for (const name of wanted) {
    const source =
      (await fileNamed(name, current, named)) ??
      (name.endsWith(".ldb") ? await fileNamed(name.replace(/ldb$/, "sst"), current, named) : undefined);
    const bytes = source === undefined ? undefined : await readIfThere(source, Number.POSITIVE_INFINITY);
    if (bytes !== undefined) files.push({ name, bytes });
    else if (name !== logName) return undefined; // a table, or an older log, deleted since the MANIFEST was read
  }
  return files;
}

/** A file of the database's folder: on disk as it is now (beside CURRENT), else as listed (in a zip). */
async function fileNamed(
  name: string,
  current: ByteSource,
  named: (name: string) => ByteSource | undefined,
): Promise<ByteSource | undefined> {
  return (await current.sibling?.(name)) ?? named(name);
}

/** A file's bytes; undefined when it is gone (deleted by the running app) or longer than `max`. */
async function readIfThere(source: ByteSource, max: number): Promise<Buffer | undefined> {
  if (source.size > max) return undefined;
  try {
    return await bytesOf(source);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function bytesOf(source: ByteSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
