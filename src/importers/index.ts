// Importers: streaming readers of chat exports (ChatGPT, Claude, Gemini, mnemo's upload shape)
// that yield conversations in the upload shape.
//
// Conventions shared by the importers:
// - Dates are normalised to ISO 8601 UTC (`toISOString()`). A conversation without any date
//   (neither its own nor its messages') gets the modification time of the file it came from
//   (of the archive, for a zip).
// - Non-text content becomes short placeholders: `[image]`, `[audio]`, `[video]`, `[file: name]`,
//   `[attachment: name]` (Claude attachments also keep the first 500 characters of their text).
// - Messages or conversations left empty are skipped; records that are not objects are invalid input.
// - `options.platform` replaces `platform` on every conversation; `platformDisplayName` is kept.
// - Files are read as streams, one record at a time; only Gemini buffers (the extracted text of
//   its records), because grouping activity into conversations needs all of them.
import { AppError } from "../shared/errors.js";
import { PLATFORM_PATTERN, type UploadConversation } from "../schemas/chat-history.js";
import { chatgptConversation } from "./chatgpt.js";
import { claudeConversation } from "./claude.js";
import { planContainer, planFile, type ExportPart, type ExportPlan } from "./container.js";
import { REPEATED, RepeatFilter } from "./repeats.js";
import { geminiConversations } from "./gemini.js";
import { jsonRecords } from "./json-stream.js";
import { ByteTally, directorySources, fileSource, statPath } from "./source.js";
import type { ExportFormat, ExportReader, RecordContext, SkippedCount, SkippedRecord, SourcedRecord } from "./types.js";
import { uploadConversation, withPlatform } from "./upload-shape.js";
import { corruptZip, isZipFile, namedZipButNotJson, zipSources } from "./zip.js";

export type { ExportFormat, ExportReader, SkippedCount } from "./types.js";
export { SUPPORTED_FORMATS } from "./container.js";

export interface OpenExportOptions {
  /** Replaces the platform of every conversation (any format). */
  platform?: string | undefined;
  /**
   * Takes a record that cannot be read on its own (an NDJSON line that is not JSON), which is
   * then skipped. Without it such a record ends the read, like any malformed file.
   */
  onSkipped?: SkippedRecord | undefined;
}

/**
 * Detects the format by STRUCTURE (never by file name) and returns a reader. `path` may be a
 * .zip, a .json file, an NDJSON file, or a directory containing an unzipped export.
 * Throws AppError("invalid_input") for a missing path, a damaged archive, invalid JSON or an
 * unsupported structure.
 */
export async function openExport(path: string, options: OpenExportOptions = {}): Promise<ExportReader> {
  const platform = checkPlatform(options.platform);
  return createReader(await planFor(path), platform, options.onSkipped);
}

async function planFor(path: string): Promise<ExportPlan> {
  const info = await statPath(path);
  if (info.isDirectory()) return planContainer(await directorySources(path), path);
  if (await isZipFile(path)) return planContainer(await zipSources(path), path);
  if (await namedZipButNotJson(path)) throw corruptZip(path, new Error("it does not start as a zip archive does"));
  return planFile(await fileSource(path));
}

/** The platform id to record conversations under, checked: invalid input (field `platform`) otherwise. */
export function checkPlatform(platform: string | undefined): string | undefined {
  if (platform === undefined || PLATFORM_PATTERN.test(platform)) return platform;
  throw AppError.invalid("platform", "must be 1 to 100 letters, digits, hyphens, underscores or dots", "Use a name such as chatgpt-work.");
}

/**
 * A reader over the plan. Each call to `conversations()` reads the files again from the start
 * and restarts the `bytesRead()` count.
 */
function createReader(plan: ExportPlan, platform: string | undefined, onSkipped: SkippedRecord | undefined): ExportReader {
  let tally = new ByteTally();
  let skips = new SkipTally();
  return {
    format: plan.format,
    totalBytes: plan.parts.reduce((total, part) => total + part.source.size, 0),
    bytesRead: () => tally.value,
    skipped: () => skips.counts(),
    async *conversations(): AsyncGenerator<UploadConversation> {
      tally = new ByteTally();
      skips = new SkipTally();
      for (const { file, reason, count } of plan.skipped) skips.add(file, reason, count);
      const repeats = new RepeatFilter();
      const reading = { label: "" };
      for (const run of formatRuns(plan.parts)) {
        for await (const conversation of convert(run.format, records(run.parts, tally, skips, onSkipped, reading))) {
          // Upload-shape records may repeat a conversation on purpose: without `complete`, a repeat adds messages.
          if (run.format === "upload" || repeats.keep(conversation)) yield withPlatform(conversation, platform);
          else skips.add(reading.label, REPEATED);
        }
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

async function* records(
  parts: ExportPart[],
  tally: ByteTally,
  skips: SkipTally,
  onSkipped: SkippedRecord | undefined,
  reading: { label: string },
): AsyncGenerator<SourcedRecord> {
  for (const { source, layout } of parts) {
    reading.label = source.label; // the file the next conversation comes from, to name it when it is a repeat
    let index = 0;
    const skip = (reason: string, count = 1) => skips.add(source.label, reason, count);
    for await (const value of jsonRecords(source, layout, tally, onSkipped)) {
      yield { value, context: { label: source.label, index: index++, fallbackDate: source.mtime, skip } };
    }
  }
}

function convert(format: ExportFormat, input: AsyncIterable<SourcedRecord>): AsyncGenerator<UploadConversation> {
  switch (format) {
    case "chatgpt":
      return eachRecord(input, chatgptConversation);
    case "claude":
      return eachRecord(input, claudeConversation);
    case "gemini":
      return geminiConversations(input);
    case "upload":
      return eachRecord(input, uploadConversation);
  }
}

type RecordConverter = (value: unknown, context: RecordContext) => UploadConversation | undefined;

/** One conversation per record; records with nothing importable (undefined) are skipped. */
async function* eachRecord(input: AsyncIterable<SourcedRecord>, toConversation: RecordConverter): AsyncGenerator<UploadConversation> {
  for await (const { value, context } of input) {
    const conversation = toConversation(value, context);
    if (conversation !== undefined) yield conversation;
  }
}
