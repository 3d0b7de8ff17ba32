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
import { AppError } from "../../shared/errors.js";
import { type ByteSource, latestMtime } from "../source.js";
import type { SkippedCount } from "../types.js";
import { objectStoreRows } from "../leveldb/indexeddb.js";
import { blobFiles, bytesOf, damageSkipped, levelFiles } from "../leveldb/folder.js";
import { readLevelDb, useSnappy } from "../leveldb/leveldb.js";
import { localStorageItem } from "../leveldb/local-storage.js";
import { DATABASE_FILES, DIRECT_BACKUP_FILE } from "./direct-layout.js";

const DATABASE = "CherryStudio";
const STORES = ["topics", "message_blocks"] as const;
const STATE_KEY = "persist:cherry-studio";
/** metadata.json is a few lines; more is not Cherry Studio's. */
const MAX_METADATA_BYTES = 64 * 1024;

export interface DirectBackups {
  /** The sources with each backup's storage folders replaced by one data.json-shaped source. */
  sources: ByteSource[];
  skipped: SkippedCount[];
  /** Each backup whose database could not be read at all. */
  unreadable: AppError[];
}

/**
 * Each Cherry Studio direct backup among the sources (its root: "" or a folder it was zipped in) read
 * into a data.json; and the app's own data folder (its userData: the same folders, no metadata.json),
 * known by its database, Cherry Studio's, in its file:// page's IndexedDB.
 */
export async function withDirectBackups(sources: readonly ByteSource[]): Promise<DirectBackups> {
  const roots = new Set(sources.map((source) => DIRECT_BACKUP_FILE.exec(source.path)?.[1]).filter((root) => root !== undefined));
  const storageOf = storageFiles(sources, roots);
  const paths = new Set(sources.map((source) => source.path));
  const read: ByteSource[] = [];
  const replaced: string[] = [];
  const skipped: SkippedCount[] = [];
  const unreadable: AppError[] = [];
  for (const root of roots) {
    const storage = storageOf.get(root) ?? [];
    if (DATABASE_FILES.some((file) => paths.has(`${root}${file}`))) {
      // 2.x copied 1.x's topics into its database on its first start and writes only there since: the
      // IndexedDB left beside it holds them as they were then (topics deleted since come back), so it is not read.
      replaced.push(root);
      skipped.push({ file: `${root}IndexedDB`, reason: BESIDE_DATABASE, count: 1 });
      continue;
    }
    const metadata = storage.find((source) => source.path === `${root}metadata.json`);
    if (metadata !== undefined && !(await isCherryStudios(metadata))) continue;
    useSnappy(await import("snappyjs"));
    const backup = await backupData(storage, root, metadata);
    if (metadata === undefined && backup.source === undefined) continue; // another app's data folder: left as it is
    skipped.push(...backup.skipped);
    replaced.push(root);
    if (backup.source !== undefined) read.unshift(backup.source);
    else unreadable.push(unreadableBackup(backup.label, backup.skipped.length > 0));
  }
  const dropped = new Set(replaced.flatMap((root) => storageOf.get(root) ?? []));
  return { sources: [...read, ...sources.filter((source) => !dropped.has(source))], skipped, unreadable };
}

/** The folders and file of a backup's (or the app's data folder's) Chromium storage, after its root. */
const STORAGE = ["IndexedDB/", "Local Storage/", "metadata.json"];

/**
 * Each root's storage files (its IndexedDB and Local Storage folders, its metadata.json), sorted out
 * in one pass: each root looked through every file of the import, so a zip of 2,000 backup folders
 * (8,000 entries) took 8 s, 4,000 half a minute. A root is "" or a folder ("…/").
 */
function storageFiles(sources: readonly ByteSource[], roots: ReadonlySet<string>): Map<string, ByteSource[]> {
  const lengths = new Set([...roots].map((root) => root.length));
  const files = new Map<string, ByteSource[]>();
  for (const source of sources) {
    const { path } = source;
    for (const marker of STORAGE) {
      for (let at = path.indexOf(marker); at !== -1; at = path.indexOf(marker, at + 1)) {
        const root = path.slice(0, at);
        if (!lengths.has(at) || (at > 0 && path[at - 1] !== "/") || !roots.has(root)) continue;
        const list = files.get(root) ?? [];
        list.push(source);
        files.set(root, list);
      }
    }
  }
  return files;
}

const BESIDE_DATABASE = "Cherry Studio 1.x's IndexedDB beside 2.x's database, not read (2.x holds its topics since the upgrade)";

/** A backup whose database could not be read: said so, not "not a supported chat export" as if it were another file. */
function unreadableBackup(label: string, damaged: boolean): AppError {
  const why = damaged ? "it is damaged beyond reading" : "Cherry Studio's database is not in it";
  return new AppError("invalid_input", `${label}: the Cherry Studio backup's database could not be read (${why})`, {
    suggestion:
      "Make a new backup in Cherry Studio (Settings → Data Settings → Backup) and import that, or pass the app's data folder itself (mnemo import --apps finds it).",
  });
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
  if (found.rows === undefined) return { label, source: undefined, skipped: damageSkipped(label, found.damaged, 0) };
  const state = await reduxState(sources, root);
  const { pieces, unwritable } = dataJson(found.rows, state);
  const size = pieces.reduce((total, piece) => total + piece.length, 0);
  const mtime = metadata?.mtime ?? latestMtime(database);
  const source: ByteSource = {
    label,
    path: `${root}IndexedDB/${DATABASE}.json`,
    size,
    mtime,
    open: async () => Readable.from(pieces, { objectMode: false }),
  };
  return { label, source, skipped: damageSkipped(label, found.damaged, found.unreadable + unwritable) };
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
    const blobFile = blobFiles(sources, folder);
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
