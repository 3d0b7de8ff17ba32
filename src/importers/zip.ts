// Zip archives read entry by entry as streams (yauzl): the archive is never loaded into memory.
import { basename, join } from "node:path";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { AppError } from "../shared/errors.js";
import { isJunkPath, readFileHead, statPath, withSiblings, type ByteSource } from "./source.js";
import { utf16Of } from "./utf16.js";

const ZIP_SIGNATURES = ["504b0304", "504b0506"]; // local file header; end of central directory (empty archive)

/** True when the file starts with a zip signature (detection by content, not by name). */
export async function isZipFile(path: string): Promise<boolean> {
  const head = await readFileHead(path, 4);
  return ZIP_SIGNATURES.includes(head.toString("hex"));
}

/** A zip archive's name. Formats are recognised by content; the name only words a message. */
export const ZIP_NAME = /\.zip$/i;

/**
 * Whether a file that is no zip archive (isZipFile is false) is named as one and does not start as
 * JSON either: reading it as JSON would say "invalid JSON at byte 0".
 */
export async function namedZipButNotJson(path: string, name = path): Promise<boolean> {
  if (!ZIP_NAME.test(name)) return false;
  const bytes = await readFileHead(path, 1024);
  if (utf16Of(bytes) !== undefined) return false; // text saved as UTF-16 is read as the text it is
  const head = bytes
    .subarray(0, 64)
    .toString("latin1")
    .replace(/^\xef\xbb\xbf/, "")
    .trimStart(); // a UTF-8 BOM, as latin1
  return !/^[[{]/.test(head);
}

/** One source per file entry of the archive (directories skipped). */
export async function zipSources(zipPath: string): Promise<ByteSource[]> {
  const info = await statPath(zipPath);
  const zip = await openZip(zipPath);
  const sources: ByteSource[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith("/")) continue;
      sources.push(entrySource(zipPath, entry, info.mtime));
    }
  } catch (error) {
    throw corruptZip(zipPath, error);
  } finally {
    zip.close();
  }
  return withSiblings(sources);
}

/** The bytes an archive's files hold unpacked, as its directory says them (yauzl checks each entry read against it). */
export async function unzippedBytes(zipPath: string): Promise<number> {
  return (await zipSources(zipPath)).reduce((sum, source) => sum + source.size, 0);
}

/**
 * An archive of an export downloaded in parts, one archive per kind of data: Claude's since 2026
 * (conversations-000.zip, projects-000.zip, memories-000.zip, light_metadata-000.zip… beside the
 * manifest that linked them), Takeout's split archives (takeout-20260101T101500Z-001.zip), a
 * browser's second copy of one ("conversations-000 (1).zip").
 */
export const PART_ARCHIVE = /^(?:[a-z][a-z_]*|takeout-\d{8}T\d{6}Z)-\d{3}(?: ?\(\d+\))?\.zip$/i;

/**
 * A folder's files with the archives in it opened in their place, as if unzipped there, when every
 * archive directly in it is a part of an export (PART_ARCHIVE): the parts are one export. A folder
 * holding any other archive (a Downloads folder of whole exports) is left as it is.
 */
export async function withPartArchivesOpened(dir: string, sources: ByteSource[]): Promise<ByteSource[]> {
  // Only the folder's own: an archive deeper in it is a file of the export (one a user attached to a chat).
  const archives = sources.filter((source) => !isJunkPath(source.path) && !source.path.includes("/") && ZIP_NAME.test(source.path));
  if (archives.length === 0 || !archives.every((archive) => PART_ARCHIVE.test(archive.path))) return sources;
  const opened = await Promise.all(
    archives.map(async (archive) =>
      (await zipSources(join(dir, archive.path))).map((entry) => ({ ...entry, path: `${archive.path}/${entry.path}` })),
    ),
  );
  return [...sources.filter((source) => !archives.includes(source)), ...opened.flat()];
}

function entrySource(zipPath: string, entry: yauzl.Entry, mtime: Date): ByteSource {
  return {
    label: `${entry.fileName} (in ${basename(zipPath)})`,
    path: entry.fileName,
    size: entry.uncompressedSize,
    mtime,
    open: () => openEntry(zipPath, entry),
  };
}

/**
 * Opens the archive afresh and streams one entry, found by where the listing met it: looking it up
 * by name read the whole directory again for each entry (minutes for an archive of thousands of
 * JSON files), and gave the first of two entries of one name for both. Closing the zip right away is
 * safe: yauzl keeps the file descriptor open until the entry stream ends.
 */
async function openEntry(zipPath: string, entry: yauzl.Entry): Promise<Readable> {
  const zip = await openZip(zipPath);
  try {
    return await zip.openReadStreamPromise(entry);
  } catch (error) {
    throw corruptZip(zipPath, error);
  } finally {
    zip.close();
  }
}

async function openZip(zipPath: string): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw corruptZip(zipPath, error);
  }
}

/** yauzl's words for an entry whose name leads outside the archive ("../../x", "/etc/x", "C:\\x"). */
const UNSAFE_ENTRY_NAME = /^(invalid relative path|absolute path|invalid characters in fileName): /;

/**
 * yauzl's words for an archive that is whole but that it cannot unpack: a password-protected one,
 * or one packed with a method other than deflate (7-Zip's LZMA, Windows' Deflate64), as an export
 * zipped again by hand can be. Downloading it again would not help.
 */
const ENCRYPTED_ENTRY = /^entry is encrypted\b/;
const UNSUPPORTED_METHOD = /^unsupported compression method: (\d+)/;

/** A damaged or unsupported archive (truncated download, encryption, bad entry names...). */
export function corruptZip(zipPath: string, error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  const name = basename(zipPath);
  if (UNSAFE_ENTRY_NAME.test(reason)) {
    return new AppError("invalid_input", `${name}: not read: an entry's name leads outside the archive (${reason})`, {
      suggestion:
        "No app's export names its files so: this archive was made by hand or tampered with. Unzip it yourself, check what it holds, and pass the folder.",
      cause: error,
    });
  }
  const method = UNSUPPORTED_METHOD.exec(reason)?.[1];
  if (ENCRYPTED_ENTRY.test(reason) || method !== undefined) {
    const what = method === undefined ? "is password-protected" : `is packed with a method mnemo cannot unpack (method ${method})`;
    return new AppError("invalid_input", `${name}: not read: the archive ${what}`, {
      suggestion: "Unzip it with the tool that made it and pass the folder, or pass the export's zip as downloaded.",
      cause: error,
    });
  }
  return new AppError("invalid_input", `${name}: not a readable zip archive (${reason})`, {
    suggestion:
      "If it is still downloading, wait until the download has finished; else download the export again (the archive may be truncated), or unzip it and pass the folder.",
    cause: error,
  });
}
