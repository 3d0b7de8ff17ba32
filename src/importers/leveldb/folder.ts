// A LevelDB folder among an import's files (Chromium's IndexedDB and Local Storage, kept by Electron apps
// in their userData: Cherry Studio's, Chatbox's), read as the app may be writing it: the files the MANIFEST
// names live, as they are on disk then.
import type { ByteSource } from "../source.js";
import type { SkippedCount } from "../types.js";
import type { BlobFile } from "./indexeddb.js";
import { isLive, type LevelFile, levelFileNumber, type LiveFiles, liveFiles } from "./leveldb.js";

/**
 * The database's files in a folder: those its MANIFEST names live, when CURRENT names a readable one,
 * read from disk as they are now (a running app compacts: a table it names may be new since the folder
 * was listed, or deleted since the MANIFEST was read, which is then read again); else every .log and .ldb.
 */
export async function levelFiles(sources: readonly ByteSource[], folder: string): Promise<LevelFile[]> {
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
  const budget = readBudget();
  for (const source of inFolder) {
    const name = source.path.slice(folder.length);
    const file = levelFileNumber(name) === undefined ? undefined : await budget.read(name, source);
    if (file !== undefined) files.push(file);
  }
  return files;
}

/**
 * What a folder's database files may add up to: they are held in memory together, and a zip entry of
 * 1.5 GB of zeros is 1.5 MB uploaded (it was read whole: 3.2 GB RSS). Chromium moves values over 64 KB
 * to blob files, so its LevelDB folders are a few MB; a file past the budget is damage (LevelFile.tooLarge).
 */
const MAX_FOLDER_BYTES = 1024 ** 3;

function readBudget() {
  let left = MAX_FOLDER_BYTES;
  return {
    /** The file's bytes, a too-large mark past the budget, undefined when the file is gone. */
    async read(name: string, source: ByteSource): Promise<LevelFile | undefined> {
      if (source.size > left) return { name, bytes: Buffer.alloc(0), tooLarge: true };
      const bytes = await readIfThere(source, left);
      if (bytes === undefined) return undefined;
      left -= bytes.length;
      return { name, bytes };
    },
  };
}

/**
 * The blob files beside an IndexedDB folder (`x.indexeddb.leveldb/` → `x.indexeddb.blob/`), read up to
 * MAX_FOLDER_BYTES together: each is one row's value, held in memory with the others; a zip entry of a
 * few MB can inflate to GBs. One past that reads as missing (its row counted unreadable).
 */
export function blobFiles(sources: readonly ByteSource[], leveldbFolder: string): BlobFile {
  const folder = leveldbFolder.replace(/\.leveldb\/$/, ".blob/");
  const byPath = new Map(
    sources.filter((source) => source.path.startsWith(folder)).map((source) => [source.path.slice(folder.length), source]),
  );
  let left = MAX_FOLDER_BYTES;
  return async (path) => {
    const source = byPath.get(path);
    if (source === undefined || source.size > left) return undefined;
    left -= source.size;
    return bytesOf(source);
  };
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
  const budget = readBudget();
  for (const name of wanted) {
    const source =
      (await fileNamed(name, current, named)) ??
      (name.endsWith(".ldb") ? await fileNamed(name.replace(/ldb$/, "sst"), current, named) : undefined);
    const file = source === undefined ? undefined : await budget.read(name, source);
    if (file !== undefined) files.push(file);
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

export async function bytesOf(source: ByteSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const DAMAGED = "LevelDB log records and table blocks that could not be read (damaged): the rows in them are lost";
const UNREADABLE = "database rows that could not be read (damaged, or their blob file missing)";

/** What an app's LevelDB folder cost, as the import summary says it: damaged records and blocks, rows that could not be read. */
export function damageSkipped(file: string, damaged: number, unreadable: number): SkippedCount[] {
  return [
    ...(damaged > 0 ? [{ file, reason: DAMAGED, count: damaged }] : []),
    ...(unreadable > 0 ? [{ file, reason: UNREADABLE, count: unreadable }] : []),
  ];
}
