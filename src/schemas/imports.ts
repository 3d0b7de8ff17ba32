import { z } from "zod";
import { DateTime, queryBool, queryInt } from "./common.js";
import { PLATFORM_PATTERN, PLATFORM_RULE } from "./platform.js";

/** The largest export file the upload endpoint takes: a whole ChatGPT export of many years is ~1 GB. */
export const MAX_UPLOAD_BYTES = 4 * 1024 ** 3;

// Ours: POST /api/chat-history/imports — an export file streamed to the server, imported as `mnemo import` does
export const UploadImportQuery = z.object({
  filename: z.string().trim().min(1, "must not be empty").max(255, "must be at most 255 characters").default("export"),
  platform: z.string().regex(PLATFORM_PATTERN, PLATFORM_RULE).optional(),
  /** Read and compare with the store, store nothing (as `mnemo import --dry-run`). */
  dryRun: queryBool(z.boolean().default(false)),
  /**
   * When the file was last changed, in milliseconds since 1970 (a browser's `File.lastModified`):
   * a conversation that carries no date at all takes it, as `mnemo import` of the file gives it the
   * file's time, so uploading the same file again changes nothing.
   */
  lastModified: queryInt(
    z.number("must be a time in milliseconds").int("must be a time in milliseconds").min(0, "must not be negative"),
  ).optional(),
  /**
   * The file's size in bytes, when the client knows it: one over the limit is refused before a byte
   * is stored, and a body that ends short of it is refused as cut off rather than imported in part.
   */
  size: queryInt(
    z
      .number("must be a whole number of bytes")
      .int("must be a whole number of bytes")
      .min(1, "must be at least 1 byte: an empty file is no export")
      .max(MAX_UPLOAD_BYTES, `must be at most ${MAX_UPLOAD_BYTES} bytes (4 GB), the limit of an export file`),
  ).optional(),
});
export type UploadImportQuery = z.input<typeof UploadImportQuery>;

export const ImportSummary = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      /** The first of `formats`; null when the file could not be read. */
      format: z.string().nullable(),
      /** Every format the file holds (a folder of several apps' exports side by side), in the order read. Absent from a server before it. */
      formats: z.array(z.string()).optional(),
      conversations: z.number().int(),
      /** The memories the file holds (Claude's memories.json, projects.json), when it holds some. */
      memories: z.number().int().optional(),
      error: z.string().optional(),
    }),
  ),
  new: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  rejected: z.number().int(),
  failed: z.number().int(),
  /** Files and folders inside the folders read that could not be read, each named in problems (not failed conversations). */
  unreadableFiles: z.number().int().default(0),
  problems: z.array(
    z.object({ file: z.string(), conversation: z.string().optional(), reason: z.string(), suggestion: z.string().optional() }),
  ),
  /** Records left out on purpose, counted per file and reason (empty conversations, other products' activity…). */
  skipped: z.array(z.object({ file: z.string(), reason: z.string(), count: z.number().int() })).default([]),
  /** Records whose text was not valid Unicode, imported with U+FFFD in its place: the file, the record (from 1), the fields. */
  repaired: z
    .array(
      z.object({
        file: z.string(),
        record: z.number().int(),
        fields: z.array(z.string()),
        count: z.number().int(),
        text: z.string(),
      }),
    )
    .default([]),
  /** When many conversations are in languages the store's embedder does not read: what that means, and the fix. */
  languageHint: z.string().optional(),
  /** Conversations over the 100,000-token limit, stored in parts that each hold at most that many: the file, the title, the parts. */
  inParts: z.array(z.object({ file: z.string(), conversation: z.string(), parts: z.number().int() })).default([]),
  /**
   * The memories the export holds, stored as memories: new, updated (the export words one otherwise
   * now: a new version), unchanged (imported before) and failed, and the buckets they are in by name.
   */
  memories: z
    .object({
      new: z.number().int(),
      updated: z.number().int(),
      unchanged: z.number().int(),
      /** Records of the memory files that could not be read, each named in `problems`. */
      failed: z.number().int(),
      buckets: z.array(z.string()),
    })
    .default({ new: 0, updated: 0, unchanged: 0, failed: 0, buckets: [] }),
  conversationIds: z.array(z.string()),
  importIds: z.array(z.string()),
  dryRun: z.boolean(),
  comparedWithStore: z.boolean(),
  /**
   * What the import did, in the words `mnemo import` says it: of the conversations (unless the file
   * held memories alone), and of the memories when it held some, with their buckets.
   */
  outcome: z.object({ conversations: z.string().optional(), memories: z.string().optional() }).optional(),
});

export const ImportJobState = z.enum(["receiving", "waiting", "reading", "indexing", "done", "failed"]);
export type ImportJobState = z.infer<typeof ImportJobState>;

/** An upload's import as it goes: received → waiting (behind another import) → reading → indexing → done or failed. */
export const ImportJob = z.object({
  id: z.string(),
  filename: z.string(),
  state: ImportJobState,
  dryRun: z.boolean(),
  /** Bytes of the file received so far, and in all once received. */
  bytesReceived: z.number().int(),
  /** Reading the export: bytes read of the stored file, and conversations read. */
  reading: z.object({
    bytesRead: z.number().int(),
    totalBytes: z.number().int(),
    conversations: z.number().int(),
    format: z.string().nullable(),
  }),
  /** Indexing: the user's conversations ready and still to process (the queue is shared by every import). */
  indexing: z.object({ ready: z.number().int(), pending: z.number().int() }),
  summary: ImportSummary.optional(),
  error: z.object({ message: z.string(), suggestion: z.string().optional() }).optional(),
  createdAt: DateTime,
  finishedAt: DateTime.optional(),
});
export type ImportJob = z.infer<typeof ImportJob>;
export const ImportJobList = z.object({ jobs: z.array(ImportJob) });
export type ImportJobList = z.infer<typeof ImportJobList>;
