import type { AppError } from "../shared/errors.js";
import type { UploadConversation } from "../schemas/chat-history.js";

/** An export format `openExport` recognises: the id of its importer (registry.ts). */
export type ExportFormat = string;

/**
 * How records sit in a JSON file: the elements of one top-level array (`array`), one value per
 * line (`lines`: NDJSON), one or more top-level values of any layout (`values`: a single
 * pretty-printed object, concatenated JSON), or the elements of the array a top-level object
 * holds under `conversations` (`wrapped`: `{ "conversations": [...] }`, as some ChatGPT exports have it).
 */
export type Layout = "array" | "lines" | "values" | "wrapped";

export interface ExportReader {
  /** The export's format; the first one's, when a folder or zip holds exports of several formats (all are read). */
  format: ExportFormat;
  /** Total bytes that will be read (sum of relevant file sizes / uncompressed entry sizes) — for progress and ETA. */
  totalBytes: number;
  /** Bytes consumed so far (monotonic), for progress. */
  bytesRead(): number;
  /** Conversations in the upload shape. Streaming: bounded memory whatever the file size. */
  conversations(): AsyncGenerator<UploadConversation>;
  /** What the last `conversations()` left out and why, counted per file and reason (complete once it has ended). */
  skipped(): SkippedCount[];
}

/** Records (or files) of an export that were not imported, and why: never left out without a word. */
export interface SkippedCount {
  /** The file as messages name it. */
  file: string;
  /** What was left out, in words that count it: "conversations without any message text". */
  reason: string;
  count: number;
}

/** Counts something left out of `file` (a record, a draft, a file) under `reason`. */
export type SkipReport = (reason: string, count?: number) => void;

/** Told of a record that was skipped because it cannot be read (an NDJSON line that is not JSON). */
export type SkippedRecord = (problem: AppError) => void;

/** Where a record came from, for error messages and fallbacks. */
export interface RecordContext {
  /** The file as messages name it, e.g. `conversations.json (in export.zip)`. */
  label: string;
  /** Zero-based position of the record in its file. */
  index: number;
  /** Used when a conversation carries no date at all: the file's modification time. */
  fallbackDate: Date;
  /** Counts what this record leaves out, with the reason. */
  skip: SkipReport;
}

/** A record read from an export file, with where it came from. */
export interface SourcedRecord {
  value: unknown;
  context: RecordContext;
}
