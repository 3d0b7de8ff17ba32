// Chooses which files of an export to read, and how: a lone file, or the JSON files inside a
// zip or an unzipped folder (recognised by their structure, ordered by the ChatGPT shard
// manifest when there is one, else by path).
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { AppError, isAppError } from "../shared/errors.js";
import { HTML_NAME, noExportInside, partsManifestError } from "./container-hints.js";
import { detect, inspect, type Detection } from "./detect.js";
import { IMPORTERS } from "./registry.js";
import { sideFileError } from "./side-files.js";
import { directorySources, fileSource, isJunkPath, type ByteSource, type DirectoryListing } from "./source.js";
import { normalised } from "./text-records.js";
import { FORMATS, formatNames, listing } from "./words.js";
import { asUtf8 } from "./utf16.js";
import { ZIP_NAME } from "./zip.js";
import type { Importer } from "./importer.js";
import type { WrapperPath } from "./json-records.js";
import type { ExportFormat, Layout, SkippedCount } from "./types.js";

export interface ExportPart {
  source: ByteSource;
  layout: Layout;
  /** Where a wrapped file's records are (Detection.wrapper). */
  wrapper?: WrapperPath | undefined;
  format: ExportFormat;
}

export interface ExportPlan {
  /** The format of the first part: a folder or zip may hold exports of several formats, each part says its own. */
  format: ExportFormat;
  parts: ExportPart[];
  /** The files that hold memories (Importer.memories), read after the conversations. */
  memoryParts: ExportPart[];
  /** Files of the export that are not read, and why (a shard the manifest lists that is missing, another product's activity). */
  skipped: SkippedCount[];
  /** Files and folders of a folder this user may not read, that may hold the export's chats. */
  unreadable?: AppError[];
}

interface Found {
  source: ByteSource;
  detection: Detection;
}

/** The file names the ChatGPT manifest lists. */
const JSON_FILE = /\.json$/i;
/** The sharded ChatGPT layout lists its conversations-NNN.json files here. */
const MANIFEST_FILE = "export_manifest.json";
/** A shard of the sharded ChatGPT layout. */
const SHARD_FILE = /^conversations-\d+\.json$/;
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * A file of no format mnemo reads: the formats by name (what to pass for each is the help's and the
 * README's table, generated from the same registry: every format's whole text made a line of ~2,000
 * characters), and what to do.
 */
export function unsupported(label: string, reason: string, fix = HOW_TO_GET): AppError {
  return new AppError("invalid_input", `${label}: not a supported chat export (${reason}). mnemo reads: ${formatNames("and")}.`, {
    suggestion: fix,
  });
}

const HOW_TO_GET =
  "Pass the export as downloaded (its zip), or the unzipped folder. What to pass for each app: " +
  "`mnemo import --help`; where to download it: “Chat exports mnemo reads” in the README.";

/** What a Markdown transcript is, for a text file that is none: the registry's own words for it. */
const TRANSCRIPT = `A Markdown transcript is ${FORMATS.find((format) => format.id === "markdown")?.accepts}.`;

/**
 * Whether an importer reads files of this name (inside a zip or folder, the others are not looked at).
 * The ending "" is a name without one (Google Drive's files, as AI Studio saves its prompts, named
 * for their title: "Notes on Dr. Lee's paper" or "Gemini 2.5 test" end in no file type).
 */
function readable(path: string): boolean {
  const name = baseName(path).toLowerCase();
  const typed = FILE_TYPE.test(name);
  return IMPORTERS.some((importer) => importer.extensions.some((extension) => (extension === "" ? !typed : name.endsWith(extension))));
}

/** A name's file type: a dot, a letter, at most four more letters or digits, at its end. */
const FILE_TYPE = /\.[a-z][a-z0-9]{0,4}$/;

export async function planFile(source: ByteSource): Promise<ExportPlan> {
  const { detection, keys, text, database } = await inspect(source);
  if (detection === undefined && database) throw unsupported(source.label, DATABASE_OF_NO_FORMAT, APP_DATABASES);
  if (detection === undefined && text)
    throw unsupported(source.label, "it is text, not JSON, and no chat transcript: no speaker headings were found", TRANSCRIPT);
  if (detection === undefined && keys.size === 0 && (await holdsOnlyEmptyObjects(source))) throw nothingToImport(source.label);
  if (detection === undefined) {
    throw (
      sideFileError(source.label, keys) ??
      partsManifestError(source.label, source.path) ??
      unsupported(source.label, "no format's structure matches it")
    );
  }
  const part = partOf({ source, detection });
  if (detection.memories) return { format: detection.format, parts: [], memoryParts: [part], skipped: [] };
  const skipped = detection.empty ? [emptyList(source)] : [];
  return { format: detection.format, parts: [part], memoryParts: [], skipped };
}

/** The apps whose SQLite databases mnemo reads (Importer.database), in the registry's words. */
const DATABASE_APPS = IMPORTERS.filter((importer) => importer.database !== undefined);

const DATABASE_OF_NO_FORMAT = `a SQLite database of none of the apps whose databases mnemo reads, ${listing(
  DATABASE_APPS.map((importer) => importer.name),
  "and",
)}; VS Code's own holds no chats`;

/** What to pass of each app whose database mnemo reads, for a database of another app. */
const APP_DATABASES = `${DATABASE_APPS.map((importer) => `For ${importer.name}, ${importer.accepts}.`).join(" ")} VS Code's chats are read from its chatSessions folders, not its state.vscdb.`;

/** The most a file of empty objects is read to: `{}` with spaces, a few of them, in UTF-16 at most. */
const MAX_EMPTY_BYTES = 4096;

/** `{}` (or a few, a line each, or a list of them): what an app with nothing to export may write. */
const EMPTY_OBJECTS = /^(?:\{\s*\}\s*)+$|^\[\s*\{\s*\}(?:\s*,\s*\{\s*\})*\s*\]\s*$/;

async function holdsOnlyEmptyObjects(source: ByteSource): Promise<boolean> {
  if (source.size > MAX_EMPTY_BYTES) return false;
  const chunks: Buffer[] = [];
  for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
  return EMPTY_OBJECTS.test(normalised(Buffer.concat(chunks).toString("utf8")).trim());
}

/** A file of empty objects is said to hold nothing, not to be of no format: it is what an app wrote when it had nothing. */
function nothingToImport(label: string): AppError {
  return new AppError("invalid_input", `${label}: the file holds nothing to import (an empty object, {})`, {
    suggestion:
      "The app wrote no conversations into it: check that it is the file that holds them (for ChatGPT and Claude, conversations.json), or export again after chatting.",
  });
}

export async function planContainer(
  given: ByteSource[],
  containerLabel: string,
  unreadablePaths: DirectoryListing["unreadable"] = [],
): Promise<ExportPlan> {
  const { sources, skipped: storageSkips, unreadable: storageUnreadable } = await withAppStorage(given);
  // A folder may hold chats (a session's folder); a file, if its name is of a file some format reads.
  const unreadable = [
    ...storageUnreadable,
    ...unreadablePaths.filter(({ path, folder }) => folder || readable(path)).map(({ problem }) => problem),
  ];
  const candidates = await utf8Sources(sources.filter((source) => !isJunkPath(source.path) && readable(source.path)));
  const manifest = candidates.find(isManifest);
  const order = manifest === undefined ? [] : await manifestListing(manifest);
  const detected = await detectAll(candidates.filter((source) => !isManifest(source)));
  unreadable.push(...detected.encrypted);
  const { aside, failure } = detected;
  const found = detected.found.filter((entry) => !entry.detection.memories);
  const memoryParts = detected.found.filter((entry) => entry.detection.memories && !entry.detection.empty).map(partOf);
  const withData = found.filter((entry) => !entry.detection.empty);
  const chosen = withData.length > 0 ? withData : found; // empty side files ([]) do not count
  const first = chosen[0];
  if (first === undefined && memoryParts.length > 0)
    return { format: memoryParts[0]!.format, parts: [], memoryParts, skipped: [...storageSkips, ...aside], unreadable };
  if (first === undefined) {
    throw (
      unreadable[0] ?? failure ?? noExportInside(sources, containerLabel) ?? unsupported(containerLabel, "no chat export file found inside")
    );
  }
  chosen.sort((a, b) => rank(a.source, order) - rank(b.source, order) || naturalCompare(a.source.path, b.source.path));
  // Exports of several formats side by side (a folder of unzipped exports) are read one format after another.
  const formats = [...new Set(chosen.map(({ detection }) => detection.format))];
  chosen.sort((a, b) => formats.indexOf(a.detection.format) - formats.indexOf(b.detection.format));
  const skipped: SkippedCount[] = [...storageSkips, ...aside];
  for (const archive of sources.filter((source) => !isJunkPath(source.path) && ZIP_NAME.test(source.path))) {
    skipped.push({ file: archive.label, reason: "zip archives inside the export, not read (import each on its own)", count: 1 });
  }
  if (withData.length === 0) skipped.push(...emptyConversationFiles(chosen).map(emptyList));
  const missing = missingShards(order, candidates);
  if (manifest && missing.length > 0) {
    skipped.push({ file: manifest.label, reason: `shards it lists that the export lacks (${missing.join(", ")})`, count: missing.length });
  }
  return { format: formats[0] ?? first.detection.format, parts: chosen.map(partOf), memoryParts, skipped, unreadable };
}

/** Files kept in another app's layout (Importer.foreignLayout: Cherry Studio's Chromium folders), read into their format's files in their place. */
async function withAppStorage(given: ByteSource[]): Promise<{ sources: ByteSource[]; skipped: SkippedCount[]; unreadable: AppError[] }> {
  let sources = given;
  const skipped: SkippedCount[] = [];
  const unreadable: AppError[] = [];
  for (const foreignLayout of foreignLayouts()) {
    if (!sources.some((source) => foreignLayout.marks.test(source.path))) continue;
    const read = await foreignLayout.read(sources);
    sources = read.sources;
    skipped.push(...read.skipped);
    unreadable.push(...(read.unreadable ?? []));
  }
  return { sources, skipped, unreadable };
}

/**
 * An app's own data folder, its chats kept in another app's layout (Importer.foreignLayout `folders`:
 * Cherry Studio's userData, beside Chromium's caches): those folders alone are listed and read, when
 * the layout's reader finds its app's data in them; undefined otherwise (the folder is then walked whole).
 */
export async function planAppStorage(dir: string): Promise<ExportPlan | undefined> {
  for (const foreignLayout of foreignLayouts()) {
    const folders = foreignLayout.folders;
    if (folders === undefined) continue;
    const files = await dataFiles(dir, foreignLayout.files ?? []);
    const withFolders = await allFolders(dir, folders);
    if (!withFolders && files.length === 0) continue;
    const listings = withFolders ? await Promise.all(folders.map((folder) => folderListing(dir, folder))) : [];
    const sources = [...listings.flatMap((listing) => listing.sources), ...files];
    const read = await foreignLayout.read(sources);
    if (files.length === 0 && read.sources.every((source) => sources.includes(source))) continue; // not its app's data
    const unreadable = listings.flatMap((listing) => listing.unreadable);
    const plan = await planContainer(read.sources, dir, unreadable);
    return { ...plan, skipped: [...listings.flatMap((listing) => listing.skipped), ...read.skipped, ...plan.skipped] };
  }
  return undefined;
}

/**
 * The apps' layouts, the one of more folders first: Cherry Studio's (IndexedDB and Local Storage) reads
 * its data before Chatbox's (IndexedDB alone) would read the same database only to find it is not its own.
 */
function foreignLayouts(): NonNullable<Importer["foreignLayout"]>[] {
  const layouts = IMPORTERS.flatMap(({ foreignLayout }) => (foreignLayout === undefined ? [] : [foreignLayout]));
  return layouts.sort((a, b) => (b.folders?.length ?? 0) - (a.folders?.length ?? 0));
}

async function allFolders(dir: string, folders: readonly string[]): Promise<boolean> {
  const found = await Promise.all(folders.map((folder) => stat(join(dir, folder)).catch(() => undefined)));
  return found.every((info) => info?.isDirectory() === true);
}

/** The files of `paths` (from `dir`) that are there, as sources with those paths. */
async function dataFiles(dir: string, paths: readonly string[]): Promise<ByteSource[]> {
  const found = await Promise.all(
    paths.map(async (path) => {
      const info = await stat(join(dir, path)).catch(() => undefined);
      return info?.isFile() === true ? { ...(await fileSource(join(dir, path))), path } : undefined;
    }),
  );
  return found.filter((source) => source !== undefined);
}

/** A folder's files, their paths from `dir` ("IndexedDB/file__0.indexeddb.leveldb/000004.log"). */
async function folderListing(dir: string, folder: string): Promise<DirectoryListing> {
  const listing = await directorySources(join(dir, folder));
  const inDir = (path: string) => `${folder}/${path}`;
  return {
    sources: listing.sources.map((source) => ({ ...source, path: inDir(source.path) })),
    unreadable: listing.unreadable.map((entry) => ({ ...entry, path: inDir(entry.path) })),
    skipped: listing.skipped,
  };
}

/** The sources read as UTF-8 (utf16.ts), one after another: each is opened to look at its start. */
async function utf8Sources(sources: ByteSource[]): Promise<ByteSource[]> {
  const read: ByteSource[] = [];
  for (const source of sources) read.push(await asUtf8(source));
  return read;
}

function partOf({ source, detection }: Found): ExportPart {
  return { source, layout: detection.layout, wrapper: detection.wrapper, format: detection.format };
}

/** The ChatGPT shard files the manifest names that are not in the export (a download cut short, a file lost in copying). */
function missingShards(listed: string[], present: ByteSource[]): string[] {
  const names = new Set(present.map((source) => baseName(source.path)));
  return [...new Set(listed)].filter((name) => SHARD_FILE.test(name) && !names.has(name));
}

interface Detected {
  found: Found[];
  /** Files of a format's shape without its data (Takeout activity of other Google products), with the reason. */
  aside: SkippedCount[];
  /** The first file that could not be read, in case nothing else is found. */
  failure: AppError | undefined;
  /** An app's databases it encrypted (DeepChat's agent.db): said even when other files are read. */
  encrypted: AppError[];
}

/** Detects every candidate. */
async function detectAll(candidates: ByteSource[]): Promise<Detected> {
  const detected: Detected = { found: [], aside: [], failure: undefined, encrypted: [] };
  for (const source of candidates) {
    try {
      const detection = await detect(source);
      if (detection?.aside !== undefined) detected.aside.push({ file: source.label, reason: detection.aside, count: 1 });
      else if (detection !== undefined && isDatabaseCopy(source, detection))
        detected.aside.push({ file: source.label, reason: DATABASE_COPY, count: 1 });
      else if (detection !== undefined) detected.found.push({ source, detection });
    } catch (error) {
      if (!isAppError(error)) throw error;
      if (error.details["problem"] === "encrypted") detected.encrypted.push(error);
      // A page that is no export (Takeout's index, ChatGPT's chat.html) is one of the export's other
      // files: what the container holds is said of them all together (container-hints.ts).
      if (!HTML_NAME.test(source.path)) detected.failure ??= error;
    }
  }
  return detected;
}

const DATABASE_COPY = "copies of a database kept beside it (Cursor's state.vscdb.backup), not read: the database itself is";

/**
 * A database named otherwise than its format's files (Cursor's state.vscdb.backup, which a name
 * without a known type lets in): in a folder beside the database it copies, it would be read twice.
 * Passed alone, it is read.
 */
function isDatabaseCopy(source: ByteSource, detection: Detection): boolean {
  const extensions = IMPORTERS.find((importer) => importer.id === detection.format)?.extensions ?? [];
  return detection.layout === "database" && !extensions.some((extension) => source.path.toLowerCase().endsWith(extension));
}

/** An export of no conversations (an account that never chatted) is said to be one, not imported as nothing in silence. */
function emptyList(source: ByteSource): SkippedCount {
  return { file: source.label, reason: "files that hold no conversations (an empty list)", count: 1 };
}

/** The empty lists that stand for the conversations (conversations.json), when one is named so; else all of them. */
function emptyConversationFiles(empty: Found[]): ByteSource[] {
  const sources = empty.map(({ source }) => source);
  const named = sources.filter((source) => /^conversations/i.test(baseName(source.path)));
  return named.length > 0 ? named : sources;
}

function isManifest(source: ByteSource): boolean {
  return source.path.split("/").at(-1) === MANIFEST_FILE;
}

/**
 * The file names the manifest mentions, in its order. Its exact schema is not documented, so
 * any string naming a .json file counts; a manifest that cannot be read only loses the order.
 */
async function manifestListing(manifest: ByteSource): Promise<string[]> {
  if (manifest.size > MAX_MANIFEST_BYTES) return [];
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await manifest.open()) chunks.push(chunk as Buffer);
    return jsonFileNames(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
  } catch {
    return [];
  }
}

function jsonFileNames(value: unknown): string[] {
  if (typeof value === "string") return JSON_FILE.test(value) ? [baseName(value)] : [];
  if (Array.isArray(value)) return value.flatMap(jsonFileNames);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(jsonFileNames);
  return [];
}

function rank(source: ByteSource, order: string[]): number {
  const index = order.indexOf(baseName(source.path));
  return index === -1 ? order.length : index;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).at(-1) ?? path;
}

function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}
