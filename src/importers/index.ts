// Importers: streaming readers of chat exports that yield conversations in the upload shape, one
// importer per format (registry.ts), each in a folder of its own.
//
// Conventions shared by the importers:
// - Dates are normalised to ISO 8601 UTC (`toISOString()`). A conversation without any date
//   (neither its own nor its messages') gets the modification time of the file it came from
//   (of the archive, for a zip).
// - Non-text content becomes short placeholders: `[image]`, `[audio]`, `[video]`, `[file: name]`,
//   `[attachment: name]` (Claude attachments also keep their text: a long paste is one, up to 20,000 characters).
// - Messages or conversations left empty are skipped (counted); a record that cannot be read (damaged
//   JSON, not an object, a converter's failure) is skipped and reported, and the rest read; text that
//   is not valid Unicode is repaired to U+FFFD and reported (json-records.ts, repair.ts).
// - `options.platform` replaces `platform` on every conversation; `platformDisplayName` is kept.
// - Files are read as streams, one record at a time; only Gemini buffers (the extracted text of
//   its records), because grouping activity into conversations needs all of them, and Cherry Studio
//   (a file's topics and the text of the blocks they name, kept apart in its backup).
import fs from "node:fs";
import { basename, join } from "node:path";
import type { UploadConversation, UploadMessage } from "../schemas/chat-history.js";
import { utcMillis } from "../shared/time.js";
import { planAppStorage, planContainer, planFile, type ExportPart, type ExportPlan } from "./container.js";
import { isMemoryRecordOf, isRecordOf } from "./detect.js";
import { jsonLines } from "./json-lines.js";
import { companionsOf } from "./importer.js";
import { jsonRecords, type RawRecord } from "./json-records.js";
import { isObject, plausibleIso } from "./json-values.js";
import { fittingId, uniqueIds, withoutRepeats } from "./message-ids.js";
import { checkPlatform } from "./platform.js";
import { importerOf } from "./registry.js";
import { REPEATED, RepeatFilter } from "./repeats.js";
import { ByteTally, directorySources, fileSource, statPath, type ByteSource } from "./source.js";
import { databaseRecords, type DatabaseReader } from "./sqlite.js";
import { textRecords } from "./text-records.js";
import { asUtf8 } from "./utf16.js";
import { activityPageRecords } from "./activity-page/records.js";
import type { ExportFormat, ExportMemory, ExportReader, RepairedRecord, SkippedCount, SourcedRecord, UnreadableRecord } from "./types.js";
import { corruptZip, isZipFile, namedZipButNotJson, unzippedBytes, withPartArchivesOpened, ZIP_NAME, zipSources } from "./zip.js";

export type { ExportFormat, ExportMemory, ExportReader, RepairedRecord, SkippedCount, UnreadableRecord } from "./types.js";
export { checkPlatform } from "./platform.js";
export {
  importerOf,
  isSessionFileName,
  isSessionLog,
  isWatchedDatabase,
  sameSessionFiles,
  sessionPathOf,
  watchedDatabaseOf,
} from "./registry.js";
export { gigabytes, MAX_DATABASE_BYTES, SMALLER_DATABASE, startsAsSqlite } from "./sqlite.js";
export { withWal } from "./sqlite-wal.js";

/**
 * The bytes reading a path goes through, once past `atMost` any figure over it: a file's, an
 * archive's unpacked, a folder's files' (a folder of more than FOLDER_ENTRIES, or holding an
 * archive, is undefined); undefined too for what cannot be read as such (opening it says why).
 */
export async function bytesToRead(path: string, atMost: number): Promise<number | undefined> {
  const info = await fs.promises.stat(path).catch(() => undefined);
  if (info?.isDirectory()) return folderBytes(path, atMost);
  if (!info?.isFile()) return undefined;
  return (await isZipFile(path)) ? unzippedBytes(path).catch(() => undefined) : info.size;
}

const FOLDER_ENTRIES = 10_000;

async function folderBytes(folder: string, atMost: number): Promise<number | undefined> {
  let bytes = 0;
  let entries = 0;
  for (const dirs = [folder]; dirs.length > 0 && bytes <= atMost; ) {
    const dir = dirs.pop()!;
    for (const entry of await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (++entries > FOLDER_ENTRIES || ZIP_NAME.test(entry.name)) return undefined;
      const at = join(dir, entry.name);
      if (entry.isDirectory()) dirs.push(at);
      else if (entry.isFile()) bytes += (await fs.promises.stat(at).catch(() => undefined))?.size ?? 0;
    }
  }
  return bytes;
}

export interface OpenExportOptions {
  /** Replaces the platform of every conversation (any format). */
  platform?: string | undefined;
  /**
   * Takes a record that cannot be read (damaged JSON, not a conversation), which is then skipped and
   * the rest of the file read. Without it the first such record ends the read, with its error.
   */
  onUnreadable?: UnreadableRecord | undefined;
  /**
   * The name a lone file had where it came from, when `path` is a copy under another name (an upload,
   * which the server stores as `<id>.upload`): SillyTavern and AI Studio keep a chat's name in it.
   */
  name?: string | undefined;
}

/**
 * Detects the format by STRUCTURE (never by file name) and returns a reader. `path` may be a
 * .zip, a .json file, an NDJSON file, a text file of a text format (a Markdown transcript), or a
 * directory containing an unzipped export.
 * Throws AppError("invalid_input") for a missing path, a damaged archive, invalid JSON or an
 * unsupported structure.
 */
export async function openExport(path: string, options: OpenExportOptions = {}): Promise<ExportReader> {
  const platform = checkPlatform(options.platform);
  return createReader(await planFor(path, options.name), platform, options.onUnreadable);
}

async function planFor(path: string, name: string | undefined): Promise<ExportPlan> {
  const info = await statPath(path);
  if (info.isDirectory()) {
    const app = await planAppStorage(path);
    if (app !== undefined) return app;
    const { sources, unreadable, skipped } = await directorySources(path);
    const plan = await planContainer(await withPartArchivesOpened(path, sources), path, unreadable);
    return { ...plan, skipped: [...skipped, ...plan.skipped] };
  }
  if (await isZipFile(path)) return planContainer(await zipSources(path), path);
  if (await namedZipButNotJson(path, name)) throw corruptZip(name ?? path, new Error("it does not start as a zip archive does"));
  const source = await asUtf8(await fileSource(path));
  if (name !== undefined) {
    // A copy kept under another name (an upload): the files beside it are not the original's.
    const { sibling: _, ...copy } = source;
    return planFile({ ...copy, path: basename(name) });
  }
  const plan = await planFile(source);
  const companions = await companionSources(source, plan.format);
  return companions.length === 0 ? plan : planContainer([source, ...companions], path);
}

/** The files beside a lone file on disk that its format reads with it (Importer.companionFiles). */
async function companionSources(source: ByteSource, format: ExportFormat): Promise<ByteSource[]> {
  const names = companionsOf(importerOf(format), source.path);
  const found = await Promise.all(names.map((name) => source.sibling?.(name)));
  return found.filter((companion) => companion !== undefined);
}

/**
 * A reader over the plan. Each call to `conversations()` reads the files again from the start
 * and restarts the `bytesRead()` count.
 */
function createReader(plan: ExportPlan, platform: string | undefined, onUnreadable: UnreadableRecord | undefined): ExportReader {
  let tally = new ByteTally();
  let skips = new SkipTally();
  let repairs: RepairedRecord[] = [];
  return {
    format: plan.format,
    formats: [...new Set([plan.format, ...[...plan.parts, ...plan.memoryParts].map((part) => part.format)])],
    unreadable: plan.unreadable ?? [],
    totalBytes: plan.parts.reduce((total, part) => total + part.source.size, 0),
    bytesRead: () => tally.value,
    skipped: () => skips.counts(),
    repaired: () => repairs.map((repair) => ({ ...repair })),
    memoryFiles: plan.memoryParts.length,
    async *conversations(): AsyncGenerator<UploadConversation> {
      tally = new ByteTally();
      skips = new SkipTally();
      repairs = [];
      const reading: Reading = { label: "", tally, skips, repairs, onUnreadable };
      for (const { file, reason, count } of plan.skipped) skips.add(file, reason, count);
      const repeats = new RepeatFilter();
      for (const run of formatRuns(plan.parts)) {
        const importer = importerOf(run.format);
        for await (const converted of importer.convert(records(run.parts, reading, isRecordOf(run.format)))) {
          const conversation = importer.chatApp ? { platform: importer.id, platformDisplayName: importer.name, ...converted } : converted;
          if (importer.keepsRepeats || repeats.keep(conversation))
            yield withPlatform(withOrderedDates(withUniqueMessageIds(conversation)), platform);
          else skips.add(reading.label, REPEATED);
        }
      }
    },
    async *memories(onMemoryUnreadable = onUnreadable): AsyncGenerator<ExportMemory> {
      const reading: Reading = { label: "", tally: new ByteTally(), skips, repairs, onUnreadable: onMemoryUnreadable };
      for (const run of formatRuns(plan.memoryParts)) {
        const read = importerOf(run.format).memories?.read;
        if (read !== undefined) yield* read(records(run.parts, reading, isMemoryRecordOf(run.format)));
      }
    },
  };
}

/** What a read left out, per file and reason, in the order first met. */
class SkipTally {
  private readonly byKey = new Map<string, SkippedCount>();

  add(file: string, reason: string, count = 1): void {
    const key = `${file}\u0000${reason}`;
    const known = this.byKey.get(key);
    if (known) known.count += count;
    else this.byKey.set(key, { file, reason, count });
  }

  counts(): SkippedCount[] {
    return [...this.byKey.values()].map((entry) => ({ ...entry }));
  }
}

/** The parts in runs of one format (a container may hold exports of several, grouped by the plan). */
function formatRuns(parts: ExportPart[]): { format: ExportFormat; parts: ExportPart[] }[] {
  const runs: { format: ExportFormat; parts: ExportPart[] }[] = [];
  for (const part of parts) {
    const last = runs.at(-1);
    if (last?.format === part.format) last.parts.push(part);
    else runs.push({ format: part.format, parts: [part] });
  }
  return runs;
}

/** What one read of the export keeps track of as it goes. */
interface Reading {
  /** The file the next conversation comes from, to name it when it is a repeat. */
  label: string;
  tally: ByteTally;
  skips: SkipTally;
  repairs: RepairedRecord[];
  onUnreadable: UnreadableRecord | undefined;
}

/**
 * The records of the parts, each with where it came from; repairs noted, unreadable ones reported (or
 * thrown). `isRecord`: what a record of the parts is, to find the next one after damage.
 */
async function* records(parts: ExportPart[], reading: Reading, isRecord: (value: unknown) => boolean): AsyncGenerator<SourcedRecord> {
  for (const { source, layout, wrapper, format } of parts) {
    reading.label = source.label;
    let damaged = false;
    const unreadable: UnreadableRecord = (problem) => {
      if (!reading.onUnreadable) throw problem;
      damaged = true;
      reading.onUnreadable(problem);
    };
    const onUnreadable = reading.onUnreadable && unreadable;
    const skip = (reason: string, count = 1) => reading.skips.add(source.label, reason, count);
    const fallbackDate = fileDate(source);
    const raw: AsyncGenerator<RawRecord> =
      layout === "text"
        ? textRecords(source, reading.tally, importerOf(format).sectionHeading, onUnreadable)
        : layout === "page"
          ? activityPageRecords(source, reading.tally)
          : layout === "database"
            ? databaseRecords(source, reading.tally, databaseReader(format))
            : layout === "lines"
              ? jsonLines(source, reading.tally, onUnreadable)
              : jsonRecords(source, layout, reading.tally, { isRecord, onUnreadable, wrapper });
    for await (const { value, index, byte, repair } of raw) {
      if (repair !== undefined) reading.repairs.push({ file: source.label, record: index + 1, ...repair });
      yield {
        value,
        context: {
          label: source.label,
          path: source.path,
          index,
          byte,
          encoding: source.encoding,
          fallbackDate,
          sibling: source.sibling,
          file: source,
          skip,
          unreadable,
          damaged: () => damaged,
        },
      };
    }
  }
}

function databaseReader(format: ExportFormat): DatabaseReader {
  const read = importerOf(format).database;
  if (read === undefined) throw new Error(`the format "${format}" reads no database`);
  return read;
}

/**
 * The date of a conversation that gives none: its file's, unless the file's is no plausible time of a
 * chat (1970 or 1980, the zero times of Unix and of zip entries, as some tools extract files), then
 * the import's own.
 */
function fileDate(source: ByteSource): Date {
  return plausibleIso(source.mtime.getTime()) === undefined ? new Date() : source.mtime;
}

/**
 * A file's messages that share an id numbered apart (m1, m1-2), as the chat importers do, rather than
 * the record refused: an upload-shape file is an export too. One sent twice is kept once, as the upload
 * endpoint keeps it; ids too long for an upload are shortened (fittingId). Anything malformed is left for the core.
 */
function withUniqueMessageIds(upload: UploadConversation): UploadConversation {
  const messages: unknown = isObject(upload) && isObject(upload.conversation) ? upload.conversation.messages : undefined;
  if (!Array.isArray(messages) || !messages.every((message) => isObject(message) && typeof message.id === "string")) return upload;
  const id: unknown = upload.conversation.id;
  return {
    ...upload,
    conversation: {
      ...upload.conversation,
      ...(typeof id === "string" ? { id: fittingId(id) } : {}),
      // After numbering: a 499-character id numbered apart (`-2`) is too long too.
      messages: uniqueIds(withoutRepeats(messages as UploadMessage[])).map((message) => ({ ...message, id: fittingId(message.id) })),
    },
  };
}

/**
 * An export's `updatedAt` earlier than its `createdAt` left out (it then defaults to `createdAt`), where
 * the upload endpoint refuses it: the app wrote it so, and the conversation is worth more than the date.
 */
function withOrderedDates(upload: UploadConversation): UploadConversation {
  const conversation: unknown = isObject(upload) ? upload.conversation : undefined;
  if (!isObject(conversation) || typeof conversation.createdAt !== "string" || typeof conversation.updatedAt !== "string") return upload;
  if (!(utcMillis(conversation.updatedAt) < utcMillis(conversation.createdAt))) return upload;
  const { updatedAt: _, ...rest } = conversation;
  return { ...upload, conversation: rest as UploadConversation["conversation"] };
}

/** The conversation with `platform` replaced; non-objects are left for the core to reject. */
function withPlatform(conversation: UploadConversation, platform: string | undefined): UploadConversation {
  if (platform === undefined || !isObject(conversation)) return conversation;
  return { ...conversation, platform };
}
