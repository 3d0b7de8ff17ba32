import { z } from "zod";
import { withFix } from "./fixes.js";
import { notTaken } from "./parse.js";
import { MAX_MEMORY_CHARS } from "./limits.js";
import { hasVisibleText, ONLY_INVISIBLE } from "../text/visible.js";
import {
  ApiVersion,
  DateFilter,
  DateTime,
  HAS_CONTROL_CHARACTERS,
  HAS_DIRECTION_CONTROLS,
  IdText,
  MAX_QUERY_CHARS,
  noControlCharacters,
  noDirectionControls,
  QUERY_TOO_LONG,
  queryBool,
  queryInt,
  Source,
  writeBody,
} from "./common.js";

export { MAX_MEMORY_CHARS };
export const MEMORY_ID_PATTERN = /^mem_[0-9A-HJKMNP-TV-Z]{26}$/;

/** mnemo has no path for long documents (an import reads chats, not prose), so whoever holds a longer text splits it. */
const MEMORY_TOO_LONG = withFix(
  "text",
  `must be at most ${MAX_MEMORY_CHARS} characters`,
  `Split the text into several memories, each at most ${MAX_MEMORY_CHARS.toLocaleString("en")} characters.`,
);
const MemoryText = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(MAX_MEMORY_CHARS, MEMORY_TOO_LONG)
  .refine((text) => text === "" || hasVisibleText(text), ONLY_INVISIBLE);
export const BucketId = z.number().int().min(1, "must be a positive integer");
/** A bucket id in a request body: written as a string ("3") it is read too, as models send it. */
const BodyBucketId = queryInt(BucketId);
export const MemoryId = z
  .string()
  .min(1, "is required")
  .regex(MEMORY_ID_PATTERN, "is not a memory id (expected mem_ followed by 26 characters)");

// POST /api/memory. Every small request body is strict: a field it does not take is refused, named
// with the fields it takes (schemas/parse.ts), where it was dropped (a `bucketName` stored into General).
export const StoreMemoryRequest = writeBody({
  text: MemoryText,
  bucketId: BodyBucketId.optional(),
  source: Source,
  /**
   * Ours: what to do when a memory of the user already says nearly the same (core/memories/
   * similar-memory.ts). `store` (the default, the spec's behaviour) stores it anyway; `skip` stores
   * nothing and answers with that memory.
   */
  ifSimilar: z.enum(["store", "skip"]).optional(),
});
export type StoreMemoryRequest = z.input<typeof StoreMemoryRequest>;
withFix(
  "bucketName",
  notTaken(1, Object.keys(StoreMemoryRequest.shape)),
  "To store into a bucket by name, create it with POST /api/buckets and send its id as bucketId, or store the memory and move it with POST /api/v2/memory/update and bucketName (which creates the bucket when there is none of that name).",
);
export const SimilarMemory = z.object({
  text: z.string(),
  bucketId: z.number().int(),
  createdAt: DateTime,
  /** Cosine similarity of the two texts' vectors. */
  similarity: z.number(),
});
export type SimilarMemory = z.infer<typeof SimilarMemory>;
export const StoreMemoryResponse = z.object({
  /** `ok`: stored as `memoryId`. `exists` (with `ifSimilar: "skip"` only): nothing stored; `memoryId` already says nearly the same. */
  done: z.enum(["ok", "exists"]),
  memoryId: z.string(),
  /** With `exists`: the memory that already says it. */
  similar: SimilarMemory.optional(),
});
export type StoreMemoryResponse = z.infer<typeof StoreMemoryResponse>;

// An empty query is refused by the core (core/memories/memories.ts), which names the mode it asks for.
const Query = z
  .string()
  .normalize("NFC") // accents composed, as the stored text has them (recall.ts QueryText)
  .max(MAX_QUERY_CHARS, QUERY_TOO_LONG)
  .refine((query) => query.trim() === "" || hasVisibleText(query), ONLY_INVISIBLE)
  .optional();
const Count = queryInt(z.int().min(1, "must be at least 1").max(1000, "must be at most 1000").default(10));
const Skip = queryInt(z.int().min(0, "must be 0 or more").default(0));

// GET /api/memory
export const LegacyMemoryQuery = z.object({
  query: Query,
  all: queryBool(z.boolean()).optional(),
  latest: queryBool(z.boolean()).optional(),
  count: Count,
  v: ApiVersion,
  source: Source,
  skip: Skip,
});
export type LegacyMemoryQuery = z.input<typeof LegacyMemoryQuery>;
export const LegacyMemory = z.object({
  text: z.string(),
  score: z.number().optional(),
  metadata: z.object({ bucketId: z.number().int() }),
});
export const LegacyMemoryResponse = z.union([z.array(z.string()), z.array(LegacyMemory)]);
export type LegacyMemoryResponse = z.infer<typeof LegacyMemoryResponse>;

// GET /api/v2/memory
export const V2MemoryQuery = z.object({
  bucketId: queryInt(BucketId).optional(),
  count: Count,
  all: queryBool(z.boolean()).optional(),
  latest: queryBool(z.boolean()).optional(),
  query: Query,
  source: Source,
  skip: Skip,
  includeIds: queryBool(z.boolean().default(false)),
  contentType: z.enum(["text", "image"]).optional(),
  /** Ours: memories stored on or after, on or before (a date is the whole day). */
  dateFrom: DateFilter.optional(),
  dateTo: DateFilter.optional(),
});
export type V2MemoryQuery = z.input<typeof V2MemoryQuery>;
export const MemoryObject = z.object({
  id: z.string().optional(),
  text: z.string(),
  content_type: z.enum(["text", "image"]).optional(),
  image_url: z.string().url().optional(),
  image_description: z.string().optional(),
  /** Relevance, in query mode only (an addition to the spec's shape). */
  score: z.number().optional(),
  metadata: z.object({
    text: z.string(),
    createdAt: DateTime,
    bucketId: z.number().int(),
    bucketName: z.string(),
  }),
});
export type MemoryObject = z.infer<typeof MemoryObject>;
export const Bucket = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  memoryCount: z.number().int(),
});
export type Bucket = z.infer<typeof Bucket>;

export const V2MemoryResponse = z.object({
  memories: z.array(z.union([z.string(), MemoryObject])),
  buckets: z.array(Bucket),
});
export type V2MemoryResponse = z.infer<typeof V2MemoryResponse>;

/**
 * A bucket's name: shown in lists, a terminal and file names, so no control character (NUL, a line
 * break) and nothing that turns the text around.
 */
const BucketName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .refine((name) => name === "" || hasVisibleText(name), ONLY_INVISIBLE)
  .refine(noControlCharacters, HAS_CONTROL_CHARACTERS)
  .refine(noDirectionControls, HAS_DIRECTION_CONTROLS);
/**
 * A bucket's description: one line beside its name in every list (the web's field is one line),
 * so no control character either: a line break in it started a line of list_buckets' text that
 * read as another bucket.
 */
const BucketDescription = z.string().max(500).refine(noControlCharacters, HAS_CONTROL_CHARACTERS);

const MAX_BULK_MOVE = 100;
// POST /api/v2/memory/update — one body, two forms; memories.ts tells them apart with clear errors.
export const UpdateMemoryRequest = writeBody({
  memoryId: IdText.optional(),
  memoryIds: z.array(IdText).min(1, "must list at least one id").max(MAX_BULK_MOVE, `must list at most ${MAX_BULK_MOVE} ids`).optional(),
  /**
   * Trimmed before its length is counted, as a stored memory's text is: the text kept is the trimmed
   * one. Not refused as empty here, so a bulk move with text says text cannot go there (memory-edits.ts).
   */
  text: z.string().trim().max(MAX_MEMORY_CHARS, MEMORY_TOO_LONG).optional(),
  bucketId: BodyBucketId.optional(),
  bucketName: BucketName.optional(),
});
export type UpdateMemoryRequest = z.input<typeof UpdateMemoryRequest>;
export const UpdatedMemory = z.object({
  id: z.string(),
  text: z.string(),
  bucketId: z.number().int(),
  version: z.number().int(),
  updatedAt: DateTime,
  createdAt: DateTime,
});
export const UpdateSingleResponse = z.object({ success: z.boolean(), memory: UpdatedMemory });
export type UpdateSingleResponse = z.infer<typeof UpdateSingleResponse>;
export const BulkMoveResponse = z.object({ success: z.boolean(), updated: z.number().int(), bucketId: z.number().int() });
export type BulkMoveResponse = z.infer<typeof BulkMoveResponse>;
/**
 * Either form's answer as one object, not a union of the two: an MCP client is shown an object's
 * fields, and a union's none (update_or_move_memories shares this schema). `memory` answers the
 * single form; `updated` and `bucketId` the bulk move.
 */
export const UpdateMemoryResponse = UpdateSingleResponse.extend(BulkMoveResponse.shape).partial({
  memory: true,
  updated: true,
  bucketId: true,
});
export type UpdateMemoryResponse = z.infer<typeof UpdateMemoryResponse>;
export const BulkMoveNotFound = z.object({ error: z.string(), rejectedIds: z.array(z.string()), suggestion: z.string().optional() });

// DELETE /api/memories/{memoryId}
export const DeleteMemoryResponse = z.object({ message: z.literal("Memory deleted") });
export type DeleteMemoryResponse = z.infer<typeof DeleteMemoryResponse>;

// POST /api/memories/bulk-delete
export const BulkDeleteRequest = writeBody({
  memoryIds: z.array(IdText).min(1, "must list at least one id").max(1000, "must list at most 1000 ids"),
});
export type BulkDeleteRequest = z.input<typeof BulkDeleteRequest>;
export const BulkDeleteResponse = z.object({
  message: z.literal("Memories deleted"),
  deletedCount: z.number().int(),
  errors: z.array(z.object({ memoryId: z.string(), error: z.string() })),
});
export type BulkDeleteResponse = z.infer<typeof BulkDeleteResponse>;

// GET /api/v2/memory/{memoryId}/history (ours: the spec leaves history out of the interface)
export const MemoryHistoryQuery = z.object({
  skip: Skip,
  /** Every version when absent. */
  count: queryInt(z.int().min(1, "must be at least 1").max(1000, "must be at most 1000")).optional(),
});
export type MemoryHistoryQuery = z.input<typeof MemoryHistoryQuery>;
export const MemoryHistoryResponse = z.object({
  memoryId: z.string(),
  /** How many versions there are in all (`versions` holds those of the page asked for). */
  total: z.number().int(),
  /** An image memory's image, signed as GET /api/v2/memory's `image_url` (absent while the memory is in the trash). */
  imageUrl: z.string().optional(),
  versions: z.array(
    z.object({
      version: z.number().int(),
      text: z.string(),
      bucketId: z.number().int(),
      /** The bucket's name now; absent when the bucket has since been deleted. */
      bucketName: z.string().optional(),
      changedAt: DateTime,
    }),
  ),
});
export type MemoryHistoryResponse = z.infer<typeof MemoryHistoryResponse>;

// Buckets
export const ListBucketsQuery = z.object({
  v: ApiVersion,
  source: Source,
});
export type ListBucketsQuery = z.input<typeof ListBucketsQuery>;
export const CreateBucketRequest = writeBody({
  name: BucketName,
  description: BucketDescription.optional(),
  source: Source,
});
export type CreateBucketRequest = z.input<typeof CreateBucketRequest>;
export const CreateBucketResponse = z.object({
  message: z.literal("Bucket created successfully"),
  /** The new bucket (an addition to the spec's shape, so callers learn its id). */
  bucket: Bucket,
});
export type CreateBucketResponse = z.infer<typeof CreateBucketResponse>;

// Ours: PATCH /api/buckets/{bucketId} (rename, or change the description) and DELETE /api/buckets/{bucketId}
export const BucketIdParam = queryInt(BucketId);
/**
 * The path parameters of the endpoints at /api/buckets/{bucketId} and /api/v2/memory/{memoryId}/…, as
 * an object (the tools' arguments): a bucket id written as a string is read, as every other tool reads one.
 */
export const BucketIdParams = z.object({ bucketId: BucketIdParam });
export const MemoryIdParams = z.object({ memoryId: IdText.min(1, "is required") });
export const RenameBucketRequest = writeBody({
  name: CreateBucketRequest.shape.name.optional(),
  /** An empty string clears the description. */
  description: BucketDescription.optional(),
}).refine((value) => value.name !== undefined || value.description !== undefined, {
  message: "send name or description (or both)",
  path: ["name"],
});
export type RenameBucketRequest = z.input<typeof RenameBucketRequest>;
export const RenameBucketResponse = z.object({ success: z.literal(true), bucket: Bucket });
export type RenameBucketResponse = z.infer<typeof RenameBucketResponse>;
export const DeleteBucketResponse = z.object({
  message: z.literal("Bucket deleted"),
  bucketId: z.number().int(),
  /** How many of its memories went to the default bucket (1, General). */
  movedMemories: z.number().int(),
  movedTo: z.number().int(),
});
export type DeleteBucketResponse = z.infer<typeof DeleteBucketResponse>;

// POST /api/v2/memory/image (ours: the spec returns image memories but does not show how they are stored)
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const ImageMemoryRequest = writeBody({
  /** The image file, base64-encoded: PNG, JPEG, WebP or GIF, at most 10 MB. */
  data: z.string().min(1, "must not be empty"),
  filename: z.string().max(255).optional(),
  description: z.string().trim().min(1, "must not be empty").max(2000).optional(),
  bucketId: BodyBucketId.optional(),
  source: Source,
});
export type ImageMemoryRequest = z.input<typeof ImageMemoryRequest>;
