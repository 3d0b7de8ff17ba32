import { z } from "zod";
import { queryBool } from "./common.js";

/**
 * The records of mnemo's export format (`mnemo export`, GET /api/export), one JSON object a line.
 * The format itself, what each record means and how a restore treats it, is described in the
 * header comment of core/jobs/export.ts, which writes it; importers/mnemo-export.ts reads it.
 * Fields a reader does not know are ignored, so a later minor addition does not break older readers.
 */

export const EXPORT_FORMAT = "mnemo-export";
/** Bumped only for a change an older reader would get wrong; additions keep it. */
export const EXPORT_VERSION = 1;

const Time = z.string().min(1);
/** A vector: the bytes of its float32 values, little-endian, in base64. */
const Vector = z.string();

export const ExportHeader = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.number().int().min(1),
  exportedAt: Time,
  /** The mnemo that wrote it, e.g. `mnemo 0.1.0`. */
  generator: z.string(),
  /** The model the vectors were made with; a restore carries them over only into a store of the same one. */
  embedder: z.object({ id: z.string(), spec: z.string(), dims: z.number().int().positive() }),
  /** Most tokens in one chunk (the store's `chunkTokens`); a file without it was cut at 192. A restore carries chunks only into a store of the same size. */
  chunkTokens: z.number().int().positive().optional(),
  /** Whether memories and chunks carry their vectors (`mnemo export --no-vectors` leaves them out). */
  vectors: z.boolean(),
  /** `user`: one user's data (what GET /api/export gives); `store`: every user of the store. */
  scope: z.enum(["user", "store"]),
  /** Records to expect after the header, by type, counted as the export began: for progress only. */
  expected: z.record(z.string(), z.number().int().min(0)).optional(),
});
export type ExportHeader = z.infer<typeof ExportHeader>;

export const ExportUser = z.object({
  type: z.literal("user"),
  id: z.string().min(1),
  name: z.string().min(1),
  createdAt: Time,
  /** SHA-256 of the user's API token (hex), or null: see the format's description on tokens. */
  tokenHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});

export const ExportBucket = z.object({
  type: z.literal("bucket"),
  id: z.number().int().min(1),
  name: z.string().min(1),
  description: z.string().nullable(),
  createdAt: Time,
});

const HistoryEntry = z.object({
  id: z.string().min(1),
  version: z.number().int().min(1),
  text: z.string(),
  bucketId: z.number().int().min(1),
  changedAt: Time,
});

export const ExportMemory = z.object({
  type: z.literal("memory"),
  id: z.string().min(1),
  bucketId: z.number().int().min(1),
  text: z.string(),
  contentType: z.enum(["text", "image"]),
  imageDescription: z.string().nullable(),
  source: z.string().nullable(),
  version: z.number().int().min(1),
  createdAt: Time,
  updatedAt: Time,
  /** An image memory's file: its name in the store and its bytes in base64. */
  image: z.object({ name: z.string().regex(/^[\w.-]+$/), data: z.string() }).nullable(),
  /** Every version, oldest first. */
  history: z.array(HistoryEntry),
  vector: Vector.optional(),
});

export const ExportPlatform = z.object({
  type: z.literal("platform"),
  id: z.string().min(1),
  displayName: z.string().nullable(),
  importId: z.string().min(1),
  createdAt: Time,
});

const StoredMessage = z.object({
  id: z.string(),
  sender: z.enum(["human", "assistant"]),
  text: z.string(),
  timestamp: z.string().nullable(),
  tokens: z.number().int().min(0).optional(),
});

const Sender = z.enum(["human", "assistant"]);
const ExportChunk = z.object({
  id: z.string().min(1),
  chunkIndex: z.number().int().min(0),
  text: z.string(),
  sender: Sender,
  messageIds: z.array(z.string()),
  messageOffsets: z.array(z.number().int()),
  messageTimes: z.array(z.string()),
  messageSenders: z.array(Sender),
  timestamp: z.string().nullable(),
  tokenCount: z.number().int().min(0),
  active: z.boolean(),
  vector: Vector,
});

export const ExportConversation = z.object({
  type: z.literal("conversation"),
  id: z.string().min(1),
  platform: z.string().min(1),
  platformConversationId: z.string().min(1),
  importId: z.string().min(1),
  title: z.string(),
  createdAt: Time,
  updatedAt: Time,
  uploadedAt: Time,
  status: z.enum(["queued", "processing", "ready", "failed", "rejected"]),
  statusReason: z.string().nullable(),
  pinned: z.boolean(),
  excluded: z.boolean(),
  quotaBlocked: z.boolean(),
  messageCount: z.number().int().min(0),
  tokenCount: z.number().int().min(0),
  contentHash: z.string(),
  revision: z.number().int().min(1),
  messages: z.array(StoredMessage),
  /** The conversation's search chunks with their vectors; absent in an export without vectors. */
  chunks: z.array(ExportChunk).optional(),
});

export const ExportEnd = z.object({
  type: z.literal("end"),
  /** Records written, by type: a file without this line was cut short. */
  records: z.record(z.string(), z.number().int().min(0)),
});

export const ExportRecord = z.discriminatedUnion("type", [
  ExportUser,
  ExportBucket,
  ExportMemory,
  ExportPlatform,
  ExportConversation,
  ExportEnd,
]);
export type ExportRecord = z.infer<typeof ExportRecord>;
export type ExportUser = z.infer<typeof ExportUser>;
export type ExportBucket = z.infer<typeof ExportBucket>;
export type ExportMemory = z.infer<typeof ExportMemory>;
export type ExportPlatform = z.infer<typeof ExportPlatform>;
export type ExportConversation = z.infer<typeof ExportConversation>;
export type ExportChunk = z.infer<typeof ExportChunk>;

/** One line of an export: the header, then records. For /openapi.json, which documents GET /api/export. */
export const ExportLine = z.union([ExportHeader, ExportRecord]);

export const ExportQuery = z.object({
  /** `false` leaves the vectors out: a file about a tenth the size, whose restore embeds everything again. */
  vectors: queryBool(z.boolean().default(true)),
});
export type ExportQuery = z.input<typeof ExportQuery>;
