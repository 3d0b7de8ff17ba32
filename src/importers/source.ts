import { createReadStream } from "node:fs";
import type { Dirent, Stats } from "node:fs";
import { access, constants, open, readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, posix, relative } from "node:path";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { AppError } from "../shared/errors.js";
import { unreadableReason } from "../shared/file-errors.js";

/** A byte stream that can be opened again: a plain file or an entry of a zip archive. */
export interface ByteSource {
  /** How messages name it, e.g. `conversations.json` or `conversations.json (in export.zip)`. */
  readonly label: string;
  /** Its path inside the export ("/"-separated), or the file's base name for a lone file. */
  readonly path: string;
  /** Size in bytes (uncompressed for zip entries). */
  readonly size: number;
  /** Modification time of the file on disk (of the archive, for zip entries). */
  readonly mtime: Date;
  open(): Promise<Readable>;
  /** The file is UTF-16, and `open` hands out its text as UTF-8 (utf16.ts): byte offsets are of that text. */
  readonly encoding?: TextEncoding | undefined;
  /** The file named `name` in this one's folder (on disk, or in the same archive), when there is one. */
  sibling?(name: string): Promise<ByteSource | undefined>;
}

/** The latest of the files' times (a loop: Math.max(...times) throws past about 120,000 files, as a folder may hold). */
export function latestMtime(sources: readonly ByteSource[]): Date {
  return new Date(sources.reduce((latest, source) => Math.max(latest, source.mtime.getTime()), 0));
}

/** The encodings a file is read from besides UTF-8. */
export type TextEncoding = "UTF-16LE" | "UTF-16BE";

/** A byte offset as messages give it: of the file, or of its text as UTF-8 when it was read from UTF-16. */
export function byteAt(byte: number, encoding: TextEncoding | undefined): string {
  return encoding === undefined ? `byte ${byte}` : `byte ${byte} of its text as UTF-8 (the file is ${encoding})`;
}

/** Counts bytes as they are read, for progress reporting. Monotonic. */
export class ByteTally {
  private count = 0;

  add(bytes: number): void {
    this.count += bytes;
  }

  get value(): number {
    return this.count;
  }

  /** A pass-through stream that adds every chunk's length to this tally. */
  counter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) => {
        this.add(chunk.length);
        callback(null, chunk);
      },
    });
  }
}

/** Stats `path`, turning a missing or unreadable path into invalid input. */
export async function statPath(path: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (error) {
    throw new AppError("invalid_input", `cannot read ${path}: ${unreadableReason(error)}`, {
      suggestion: "Check the path: pass the export .zip as downloaded, its conversations.json, or the unzipped folder.",
      cause: error,
    });
  }
}

export async function fileSource(path: string, label: string = path): Promise<ByteSource> {
  const info = await statPath(path);
  return {
    label,
    path: basename(path),
    size: info.size,
    mtime: info.mtime,
    open: async () => createReadStream(path),
    sibling: (name) => fileSource(join(dirname(path), name)).catch(() => undefined),
  };
}

/** The sources with `sibling` looking among themselves: the files of one archive. */
export function withSiblings(sources: ByteSource[]): ByteSource[] {
  const byPath = new Map(sources.map((source) => [source.path, source]));
  return sources.map((source) => ({ ...source, sibling: async (name) => byPath.get(posix.join(posix.dirname(source.path), name)) }));
}

/** A small file's text (at most `maxBytes`, else undefined: no side file is that long). */
export async function smallText(source: ByteSource, maxBytes: number): Promise<string | undefined> {
  if (source.size > maxBytes) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads up to `length` bytes from the start of a file. */
export async function readFileHead(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A file's path as far as it is known: on disk, the path it was given by (its label), so a folder
 * passed itself still shows its name (text-generation-webui's character folder, OpenHands'
 * conversation folder); else (in a zip, an upload) its path in the export.
 */
export function wholePath({ path, label }: { path: string; label: string }): string {
  const given = label.replaceAll("\\", "/");
  return given === path || given.endsWith(`/${path}`) ? given : path;
}

/**
 * Names of archive junk and hidden files that never hold an export (macOS resource forks, dotfiles),
 * but for the hidden files an app keeps its chats in: Aider's .aider.chat.history.md in each repository.
 */
export function isJunkPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts.at(-1) ?? "";
  const hidden = (part: string) => part.startsWith(".") && !(part === name && HIDDEN_CHATS.has(name));
  return parts.some((part) => hidden(part) || part === "__MACOSX");
}

const HIDDEN_CHATS = new Set([".aider.chat.history.md"]);

// Takeout nests files as Takeout/My Activity/Gemini Apps/My Activity.json; OpenCode before mid-2025 as
// opencode/storage/session/part/<session>/<message>/<part>.json, six folders down from its own.
const MAX_DIRECTORY_DEPTH = 6;

/** What a folder holds: its files, and the files and folders below it this user may not read (a folder of root's, a file chmod 000). */
export interface DirectoryListing {
  sources: ByteSource[];
  /** By their path in the folder ("/"-separated), each with why, as an import error names it. */
  unreadable: { path: string; folder: boolean; problem: AppError }[];
  /** Links it did not follow, and why: an import says what it leaves out (types.ts's SkippedCount, which imports this module). */
  skipped: { file: string; reason: string; count: number }[];
}

/**
 * Every regular file under `dir` (hidden ones excluded), as sources with "/"-separated relative
 * paths. A link to a file or folder kept elsewhere is read as what it leads to (a project's sessions
 * moved to another disk); one to what the folder holds already, or to a folder around it, is not
 * followed and is said (it would be read twice, or loop); each place a link leads to is read once.
 */
export async function directorySources(dir: string): Promise<DirectoryListing> {
  const listing: DirectoryListing = { sources: [], unreadable: [], skipped: [] };
  await collectFiles({ root: dir, real: await realpath(dir).catch(() => dir), linked: new Set() }, "", 0, listing);
  return listing;
}

/** The folder read, its real path, and the places outside it that links in it lead to, each read once. */
interface Walk {
  root: string;
  real: string;
  linked: Set<string>;
}

const LINK_BACK = "links to what the folder holds or to a folder around it, not followed (read once where it is)";
const LINK_NOWHERE = "links that lead nowhere (what they named is gone)";

async function collectFiles(walk: Walk, relative: string, depth: number, into: DirectoryListing): Promise<void> {
  const { root } = walk;
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, relative), { withFileTypes: true });
  } catch (error) {
    // The folder itself is the import's error; one below it costs only what it holds.
    if (relative === "") throw cannotRead(root, error);
    into.unreadable.push({ path: relative, folder: true, problem: cannotRead(join(root, relative), error) });
    return;
  }
  for (const entry of entries) {
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (isJunkPath(entry.name)) continue;
    const link = entry.isSymbolicLink() ? await linkTarget(walk, join(root, path)) : undefined;
    if (link === "back" || link === "nowhere")
      into.skipped.push({ file: join(root, path), reason: link === "back" ? LINK_BACK : LINK_NOWHERE, count: 1 });
    if ((entry.isDirectory() || link === "folder") && depth < MAX_DIRECTORY_DEPTH) await collectFiles(walk, path, depth + 1, into);
    if (!entry.isFile() && link !== "file") continue;
    const file = join(root, path);
    try {
      await access(file, constants.R_OK);
      into.sources.push({ ...(await fileSource(file)), path });
    } catch (error) {
      into.unreadable.push({ path, folder: false, problem: cannotRead(file, error) });
    }
  }
}

/**
 * Where a link leads: a file or folder elsewhere, read as if it were here (the first link to it
 * only: "seen"); back into the folder or around it; nowhere.
 */
async function linkTarget(walk: Walk, link: string): Promise<"file" | "folder" | "seen" | "back" | "nowhere"> {
  const info = await stat(link).catch(() => undefined);
  const target = info && (await realpath(link).catch(() => undefined));
  if (!info || !target || !(info.isFile() || info.isDirectory())) return "nowhere";
  const inside = (folder: string, outer: string) => {
    const path = relative(outer, folder);
    return !path.startsWith("..") && !isAbsolute(path);
  };
  // A file link into the folder is read where the file is, silently, as it always was.
  if (inside(target, walk.real)) return info.isFile() ? "seen" : "back";
  if (inside(walk.real, target)) return "back";
  if ([...walk.linked].some((seen) => inside(target, seen))) return "seen";
  walk.linked.add(target);
  return info.isFile() ? "file" : "folder";
}

function cannotRead(path: string, error: unknown): AppError {
  return new AppError("invalid_input", `cannot read ${path}: ${unreadableReason(error)}`, {
    suggestion: "Give your user read access to it (chmod -R u+rX), or import as the user who owns it.",
    cause: error,
  });
}
