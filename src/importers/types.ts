import type { AppError } from "../shared/errors.js";
import type { ByteSource, TextEncoding } from "./source.js";
import type { UploadConversation } from "../schemas/chat-history.js";

/** An export format `openExport` recognises: the id of its importer (registry.ts). */
export type ExportFormat = string;

/**
 * How records sit in a JSON file: the elements of one top-level array (`array`), one value per
 * line (`lines`: NDJSON), one or more top-level values of any layout (`values`: a single
 * pretty-printed object, concatenated JSON), or the elements of the array a top-level object
 * holds under `conversations` (`wrapped`: `{ "conversations": [...] }`, as some ChatGPT exports have it).
 * A file of a text format (a Markdown transcript) is one record, its text, or one per section of a format
 * that heads each conversation with a line (Aider's history) (`text`, text-records.ts).
 * A Takeout activity page (HTML) is read record by record into the records of its JSON (`page`, activity-page/).
 * A SQLite database (Cursor's state.vscdb, OpenCode's opencode.db) is read into the records its format's `database` reader finds (`database`, sqlite.ts).
 */
export type Layout = "array" | "lines" | "values" | "wrapped" | "text" | "page" | "database";

export interface ExportReader {
  /** The export's format; the first one's, when a folder or zip holds exports of several formats (all are read). */
  format: ExportFormat;
  /** Every format it holds, in the order read: one, or several side by side in a folder or zip. */
  formats: ExportFormat[];
  /** The files and folders inside a folder read that this user may not read: what they hold is not read (not failed records). */
  unreadable: AppError[];
  /** Total bytes that will be read (sum of relevant file sizes / uncompressed entry sizes) — for progress and ETA. */
  totalBytes: number;
  /** Bytes consumed so far (monotonic), for progress. */
  bytesRead(): number;
  /** Conversations in the upload shape. Streaming: bounded memory whatever the file size. */
  conversations(): AsyncGenerator<UploadConversation>;
  /**
   * The memories the export's memory files hold (Importer.memories), read after the conversations:
   * what they leave out or repair is added to what `conversations()` counted. `onUnreadable` takes a
   * record that cannot be read instead of openExport's (it is no conversation that failed).
   */
  memories(onUnreadable?: UnreadableRecord): AsyncGenerator<ExportMemory>;
  /** How many of the export's files hold memories (0: `memories()` yields none). */
  memoryFiles: number;
  /** What the last `conversations()` left out and why, counted per file and reason (complete once it has ended). */
  skipped(): SkippedCount[];
  /** The records of the last `conversations()` whose text was not valid Unicode, repaired. */
  repaired(): RepairedRecord[];
}

/**
 * A memory an export holds (Claude's memory of the user, a project's instructions), stored as a mnemo
 * memory: `<day> <label> (<aside>): <text>`, in the bucket named.
 */
export interface ExportMemory {
  /** The bucket it goes to, named for its source ("Claude memories"), and what that bucket is for, should the import create it. */
  bucket: { name: string; description: string };
  /**
   * What it is among its source's memories, the same in every export of it (`Claude's memory, "Work
   * context"`): written before its text, it is how an import finds the memory an earlier one stored.
   */
  label: string;
  /**
   * Words in parentheses after the label that an export may not give, or give otherwise (a project's
   * name, which only its projects file holds): shown, but not what finds the memory again.
   */
  aside?: string | undefined;
  text: string;
  /** When it was written or last changed (ISO 8601), or the export's date when the export does not say. */
  date: string;
}

/** A record whose text was not valid Unicode (half an emoji, bytes that are not UTF-8), repaired to U+FFFD and imported. */
export interface RepairedRecord {
  /** The file as messages name it. */
  file: string;
  /** The record's position in the file, from 1. */
  record: number;
  /** The fields repaired (`title`, `mapping.….message.content.parts[0]`), the first few. */
  fields: string[];
  /** How many strings of the record were repaired. */
  count: number;
  /** The first of them as repaired (cut short), to tell which record it is. */
  text: string;
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

/** Told of a record that is skipped because it cannot be read (damaged JSON, not a conversation): the problem names it. */
export type UnreadableRecord = (problem: AppError) => void;

/** Where a record came from, for error messages and fallbacks. */
export interface RecordContext {
  /** The file as messages name it, e.g. `conversations.json (in export.zip)`. */
  label: string;
  /** The file's path inside the export ("/"-separated), or its base name for a lone file: where a format keeps a chat's name in it. */
  path: string;
  /** Zero-based position of the record in its file. */
  index: number;
  /** Where the record starts in its file (in its text as UTF-8, for a file read from `encoding`). */
  byte: number;
  /** The file is UTF-16, read as UTF-8 (ByteSource.encoding). */
  encoding?: TextEncoding | undefined;
  /** Used when a conversation carries no date at all: the file's modification time. */
  fallbackDate: Date;
  /** The file named so in the record's folder (a session's workspace.yaml beside its events), when there is one. */
  sibling?: ((name: string) => Promise<ByteSource | undefined>) | undefined;
  /**
   * The record's own file, for a format whose records are joined with another part of the same file,
   * read again from it (Cherry Studio's topics with their message blocks, later in its backup).
   */
  file?: ByteSource | undefined;
  /** Counts what this record leaves out, with the reason. */
  skip: SkipReport;
  /** The record cannot be read: it is skipped, and the problem reported (or thrown, when no one takes it). */
  unreadable: UnreadableRecord;
  /** Whether a record of the file could not be read, so far: what the file gives is not the whole of it (a file cut short). */
  damaged?: () => boolean;
}

/** A record read from an export file, with where it came from. */
export interface SourcedRecord {
  value: unknown;
  context: RecordContext;
}
