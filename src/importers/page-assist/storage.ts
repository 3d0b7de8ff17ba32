// Page Assist's own database in a Chromium profile: since 2025-06 (n4ze3m/page-assist 42980e68, "Migrate
// to Dexie.js") the extension keeps its chats in the Dexie database `PageAssistDatabase`
// (src/db/dexie/schema.ts, Dexie versions 1 to 5: IndexedDB version 50), tables `chatHistories`
// (`HistoryInfo`, key `id`) and `messages` (`Message`, key `id`, `history_id` naming its chat), in the
// extension's origin: <profile>/IndexedDB/chrome-extension_<extension id>_0.indexeddb.leveldb (Chrome
// Web Store id jfgfiigpkhlkbnfnbobbkinehhfdhndo, Edge Add-ons ogkogooadflifpmmidmhjedogicnhooa;
// README.md's links). Read (importers/leveldb/) into the data export's shape, `{ chat: [{ history,
// messages }] }`, which the export's importer reads: one converter for both. Any extension's folder is
// read and kept only when it holds that database (an unpacked build has an id of its own). A row Blink
// moved to a blob file (a pasted screenshot's data URL) is read from the `.indexeddb.blob` folder beside.
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { objectStoreRows } from "../leveldb/indexeddb.js";
import { blobFiles, damageSkipped, levelFiles } from "../leveldb/folder.js";
import { readLevelDb, useSnappy } from "../leveldb/leveldb.js";
import { directorySources, latestMtime, type ByteSource } from "../source.js";
import type { SkippedCount } from "../types.js";
import { EXTENSION_DATABASE_FILE } from "./storage-layout.js";

const DATABASE = "PageAssistDatabase";
const HISTORIES = "chatHistories";
const MESSAGES = "messages";

/** The sources with each Page Assist database replaced by one export-shaped source; any other left as it is. */
export async function withPageAssistStorage(sources: readonly ByteSource[]): Promise<{ sources: ByteSource[]; skipped: SkippedCount[] }> {
  const read: ByteSource[] = [];
  const profiles = new Set<string>();
  const skipped: SkippedCount[] = [];
  const folders = databaseFolders(sources);
  const filesOf = folderFiles(sources, folders);
  for (const folder of folders) {
    const database = await databaseIn(filesOf.get(folder) ?? [], folder);
    if (database === undefined) continue; // another extension's database
    read.push(database.source);
    skipped.push(...database.skipped);
    profiles.add(folder.replace(/[^/]+\/$/, ""));
  }
  // The other origins' databases beside it (each website's, each extension's) hold no chat of Page Assist's.
  const isOrigins = (source: ByteSource) =>
    [...profiles].some((profile) => source.path.startsWith(profile) && ORIGIN_FOLDER.test(source.path.slice(profile.length)));
  const passedItself = read.some((source) => source.path === `${DATABASE}.json`);
  return { sources: [...read, ...sources.filter((source) => !passedItself && !isOrigins(source))], skipped };
}

/** The database in the folder read into an export-shaped source, when it is Page Assist's. */
async function databaseIn(
  sources: readonly ByteSource[],
  folder: string,
): Promise<{ source: ByteSource; skipped: SkippedCount[] } | undefined> {
  useSnappy(await import("snappyjs"));
  const read = await readLevelDb(await levelFiles(sources, folder));
  const blobs = folder === "" ? await blobsBesideOnDisk(sources) : sources;
  const rows = await objectStoreRows(read.entries, DATABASE, [HISTORIES, MESSAGES], blobFiles(blobs, folder === "" ? BESIDE : folder));
  if (!rows.found) return undefined;
  const files = sources.filter((source) => inFolder(source, folder));
  const label = folderLabel(files);
  const { chats, orphans } = chatsOf(rows.rows.get(HISTORIES) ?? [], rows.rows.get(MESSAGES) ?? []);
  const mtime = latestMtime(files);
  const { source, unwritable } = exportOf(chats, label, `${folder}${DATABASE}.json`, mtime);
  const skipped: SkippedCount[] = [];
  skipped.push(...damageSkipped(label, read.damaged, rows.unreadable + unwritable));
  if (orphans > 0) skipped.push({ file: label, reason: ORPHANS, count: orphans });
  return { source, skipped };
}

const ORPHANS = "messages of no chat the app lists (their chat's row is gone): not shown in Page Assist either";
/** A file of an origin's IndexedDB folder, or of its blob folder, in a profile's IndexedDB. */
const ORIGIN_FOLDER = /^[^/]+\.indexeddb\.(?:leveldb|blob)\//;

/** Each extension database folder among the sources ("…/chrome-extension_<id>_0.indexeddb.leveldb/"; "" for one passed itself). */
function databaseFolders(sources: readonly ByteSource[]): string[] {
  const folders = new Set<string>();
  for (const { path } of sources) {
    if (!EXTENSION_DATABASE_FILE.test(path)) continue;
    folders.add(path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "");
  }
  return [...folders];
}

/**
 * Each database folder's files and its blob folder's (…indexeddb.blob/…), sorted out once: each folder
 * then reads its own, where looking through every file of the import for each took 60 s for 4,000
 * (empty) extension folders.
 */
function folderFiles(sources: readonly ByteSource[], folders: readonly string[]): Map<string, ByteSource[]> {
  const wanted = new Set(folders);
  const files = new Map<string, ByteSource[]>();
  for (const source of sources) {
    const { path } = source;
    const blob = path.indexOf(".indexeddb.blob/");
    const folder = blob === -1 ? path.slice(0, path.lastIndexOf("/") + 1) : `${path.slice(0, blob)}.indexeddb.leveldb/`;
    if (!wanted.has(folder)) continue;
    const list = files.get(folder) ?? [];
    list.push(source);
    files.set(folder, list);
  }
  return files;
}

function inFolder(source: ByteSource, folder: string): boolean {
  return source.path.startsWith(folder) && !source.path.slice(folder.length).includes("/");
}

/** How the summary names the database: its folder on disk, or in the zip. */
function folderLabel(files: readonly ByteSource[]): string {
  return files[0]?.label.replace(/[\\/][^\\/]+$/, "") ?? "IndexedDB";
}

/** The folder blobsBesideOnDisk's files are named in, as if beside the database's (blobFiles). */
const BESIDE = "beside.indexeddb.leveldb/";

/**
 * For the database folder passed itself (`--apps`' folder): the files of the `.indexeddb.blob` folder
 * beside it on disk, their paths under BESIDE's blob folder. None when it was not passed from disk.
 */
async function blobsBesideOnDisk(sources: readonly ByteSource[]): Promise<ByteSource[]> {
  const manifest = sources.find((source) => /^MANIFEST-\d+$/.test(source.path));
  if (manifest === undefined || basename(manifest.label) !== manifest.path) return []; // not a file on disk (a zip's)
  const folder = dirname(manifest.label);
  if (!folder.endsWith(".indexeddb.leveldb")) return [];
  const blobFolder = join(dirname(folder), basename(folder).replace(/\.leveldb$/, ".blob"));
  if (!(await readdir(blobFolder).catch(() => undefined))) return [];
  const listing = await directorySources(blobFolder);
  return listing.sources.map((source) => ({ ...source, path: `beside.indexeddb.blob/${source.path}` }));
}

/** The chats as the export holds them, `{ history, messages }`, newest first as the app lists them (getChatHistories). */
function chatsOf(histories: readonly unknown[], messages: readonly unknown[]): { chats: unknown[]; orphans: number } {
  const byChat = new Map<string, unknown[]>();
  for (const history of histories) {
    const id = idOf(history, "id");
    if (id !== undefined) byChat.set(id, []);
  }
  let orphans = 0;
  for (const message of messages) {
    const list = byChat.get(idOf(message, "history_id") ?? "");
    if (list === undefined) orphans++;
    else list.push(message);
  }
  const chats = [...histories]
    .sort((a, b) => createdAtOf(b) - createdAtOf(a))
    .map((history) => ({ history, messages: byChat.get(idOf(history, "id") ?? "") ?? [] }));
  return { chats, orphans };
}

function createdAtOf(row: unknown): number {
  const time = typeof row === "object" && row !== null ? (row as Record<string, unknown>).createdAt : undefined;
  return typeof time === "number" ? time : 0;
}

function idOf(row: unknown, key: string): string | undefined {
  if (typeof row !== "object" || row === null) return undefined;
  const id = (row as Record<string, unknown>)[key];
  return typeof id === "string" ? id : undefined;
}

/** The chats written as the data export writes them, a chat at a time; one no JSON can hold counted. */
function exportOf(chats: readonly unknown[], label: string, path: string, mtime: Date): { source: ByteSource; unwritable: number } {
  const pieces = [Buffer.from('{"chat":[')];
  let unwritable = 0;
  for (const chat of chats) {
    try {
      pieces.push(Buffer.from(`${pieces.length === 1 ? "" : ","}${JSON.stringify(chat)}`));
    } catch {
      unwritable++; // a value JSON has no form for (a BigInt)
    }
  }
  pieces.push(Buffer.from("]}"));
  const size = pieces.reduce((total, piece) => total + piece.length, 0);
  return { source: { label, path, size, mtime, open: async () => Readable.from(pieces, { objectMode: false }) }, unwritable };
}
