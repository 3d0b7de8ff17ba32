import { z } from "zod";
import { AppError } from "../shared/errors.js";
import { formatNames, readUploadBody, type MnemoService } from "../core/index.js";
import {
  ChatHistoryOverview,
  ConversationDetail,
  ConversationIds,
  ConversationQuery,
  CountResponse,
  DeleteChatsResponse,
  ExcludeRequest,
  FlagResponse,
  IngestResponse,
  ListChatsQuery,
  ListChatsResponse,
  PinRequest,
  QueueStatus,
  UploadConversation,
} from "../schemas/chat-history.js";
import { ErrorBody } from "../schemas/common.js";
import {
  Bucket,
  BulkDeleteRequest,
  BulkDeleteResponse,
  BulkMoveNotFound,
  CreateBucketRequest,
  CreateBucketResponse,
  DeleteBucketResponse,
  DeleteMemoryResponse,
  ImageMemoryRequest,
  LegacyMemoryQuery,
  LegacyMemoryResponse,
  ListBucketsQuery,
  MemoryHistoryQuery,
  MemoryHistoryResponse,
  RenameBucketRequest,
  RenameBucketResponse,
  StoreMemoryRequest,
  StoreMemoryResponse,
  UpdateMemoryRequest,
  UpdateMemoryResponse,
  V2MemoryQuery,
  V2MemoryResponse,
} from "../schemas/memories.js";
import { RotateTokenResponse, StoreInfo } from "../schemas/account.js";
import { ImportJob, ImportJobList, UploadImportQuery } from "../schemas/imports.js";
import { RecallRequest, RecallResponse, SearchRequest, SearchResponse } from "../schemas/recall.js";
import { ExportLine, ExportQuery } from "../schemas/export.js";
import { ENDPOINTS, type Endpoint, type EndpointName } from "../schemas/endpoints.js";
import { checkNoQuery } from "./request-input.js";
import {
  EmptyTrashRequest,
  EmptyTrashResponse,
  MoveToTrashRequest,
  MoveToTrashResponse,
  RestoreTrashResponse,
  TrashIds,
  TrashList,
  TrashQuery,
} from "../schemas/trash.js";

export const MB = 1024 * 1024;

export interface RouteInput {
  service: MnemoService;
  query: Record<string, string>;
  params: Record<string, string>;
  body: unknown;
  /** The raw request body, for a route that streams it (`stream: true`). */
  stream?: AsyncIterable<Uint8Array> | undefined;
}

/**
 * Every authenticated endpoint, once: the server registers these, and /openapi.json is generated
 * from the same list, so the two cannot drift apart. The core validates every input itself;
 * the schemas here document it. Each route's method and path are its endpoint's (`at`), which the
 * HTTP client and the MCP tools name too.
 */
export interface Route extends Endpoint {
  /** The endpoint's name in ENDPOINTS (schemas/endpoints.ts), where its method and path are written. */
  name: EndpointName;
  summary: string;
  /** `spec` for the endpoints of the API spec; `mnemo` for our additions. */
  origin: "spec" | "mnemo";
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  /** Documented error statuses, each answered with the error body (a bulk move's 404 adds rejectedIds). */
  errors: number[];
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number;
  /**
   * A route whose answer is streamed, one JSON document a line (`handle` gives the lines): `response`
   * is then the schema of one line.
   */
  produces?: "application/x-ndjson";
  /** Reads the body as it arrives, given its Content-Length when it has one (JSON.parse of the whole body otherwise). */
  readBody?(body: AsyncIterable<Uint8Array>, length: number | undefined): Promise<unknown>;
  /** The body is a file streamed to the core as it arrives (application/octet-stream), not JSON; the core enforces its limit. */
  stream?: true;
  handle(input: RouteInput): Promise<unknown>;
}

const at = <N extends EndpointName>(name: N) => ({ name, ...ENDPOINTS[name] });

const memoryIdParam = (params: Record<string, string>) => params["memoryId"] ?? "";
/** A bucket id from the path, as a number when it reads as one (the core names a bad one). */
const bucketIdParam = (params: Record<string, string>) => {
  const raw = params["bucketId"] ?? "";
  return /^\d+$/.test(raw) ? Number(raw) : raw;
};

export const ROUTES: Route[] = [
  {
    ...at("storeMemory"),
    summary: "Store a memory",
    origin: "spec",
    body: StoreMemoryRequest,
    response: StoreMemoryResponse,
    errors: [400, 401, 404, 500],
    handle: ({ service, body }) => service.memories.store(body as StoreMemoryRequest),
  },
  {
    ...at("listMemories"),
    summary: "Query memories, fetch all, or the latest (v=1 strings, v=2 objects)",
    origin: "spec",
    query: LegacyMemoryQuery,
    response: LegacyMemoryResponse,
    errors: [400, 401, 500],
    handle: ({ service, query }) => service.memories.list(query),
  },
  {
    ...at("listMemoriesV2"),
    summary: "Memories and buckets in one request",
    origin: "spec",
    query: V2MemoryQuery,
    response: V2MemoryResponse,
    errors: [400, 401, 404, 500],
    handle: ({ service, query }) => service.memories.listV2(query),
  },
  {
    ...at("updateMemories"),
    summary: "Edit one memory's text and/or bucket, or move 1–100 memories",
    origin: "spec",
    body: UpdateMemoryRequest,
    response: UpdateMemoryResponse,
    errors: [400, 401, 404],
    handle: ({ service, body }) => service.memories.update(body as UpdateMemoryRequest),
  },
  {
    ...at("storeImageMemory"),
    summary: "Store an image memory (base64 PNG, JPEG, WebP or GIF, at most 10 MB)",
    origin: "mnemo",
    body: ImageMemoryRequest,
    response: StoreMemoryResponse,
    errors: [400, 401, 404, 413],
    bodyLimit: 15 * MB,
    handle: ({ service, body }) => service.memories.storeImage(body as ImageMemoryRequest),
  },
  {
    ...at("memoryHistory"),
    summary: "A memory's versions, oldest first: every one, or a page (skip, count)",
    origin: "mnemo",
    query: MemoryHistoryQuery,
    response: MemoryHistoryResponse,
    errors: [400, 401, 404],
    handle: ({ service, params, query }) => service.memories.history(memoryIdParam(params), query),
  },
  {
    ...at("deleteMemoryWithoutId"),
    summary: "Delete one memory, without its id: always 400 (the spec's status for a missing memoryId)",
    origin: "spec",
    response: ErrorBody,
    errors: [400],
    handle: () => {
      throw AppError.invalid("memoryId", "is required: DELETE /api/memories/{memoryId}");
    },
  },
  {
    ...at("deleteMemory"),
    summary: "Delete one memory",
    origin: "spec",
    response: DeleteMemoryResponse,
    errors: [400, 401, 404],
    handle: ({ service, params }) => service.memories.delete(memoryIdParam(params)),
  },
  {
    ...at("bulkDeleteMemories"),
    summary: "Delete several memories",
    origin: "spec",
    body: BulkDeleteRequest,
    response: BulkDeleteResponse,
    errors: [400, 401],
    handle: ({ service, body }) => service.memories.bulkDelete(body as BulkDeleteRequest),
  },
  {
    ...at("listBuckets"),
    summary: "List buckets",
    origin: "spec",
    query: ListBucketsQuery,
    response: z.array(Bucket),
    errors: [401, 500],
    handle: ({ service, query }) => service.buckets.list(query),
  },
  {
    ...at("createBucket"),
    summary: "Create a bucket",
    origin: "spec",
    body: CreateBucketRequest,
    response: CreateBucketResponse,
    errors: [400, 401, 409, 500],
    handle: ({ service, body }) => service.buckets.create(body as CreateBucketRequest),
  },
  {
    ...at("renameBucket"),
    summary: "Rename a bucket or change its description (bucket 1, General, too)",
    origin: "mnemo",
    body: RenameBucketRequest,
    response: RenameBucketResponse,
    errors: [400, 401, 404, 409],
    handle: ({ service, params, body }) => service.buckets.rename(bucketIdParam(params) as number, body as RenameBucketRequest),
  },
  {
    ...at("deleteBucket"),
    summary: "Delete a bucket; its memories move to General (bucket 1, which cannot be deleted)",
    origin: "mnemo",
    response: DeleteBucketResponse,
    errors: [400, 401, 404],
    handle: ({ service, params }) => service.buckets.delete(bucketIdParam(params) as number),
  },
  {
    ...at("uploadConversation"),
    summary: "Upload one conversation (processed in the background)",
    origin: "spec",
    body: UploadConversation,
    response: IngestResponse,
    errors: [400, 401, 413, 500],
    bodyLimit: 50 * MB,
    readBody: readUploadBody,
    handle: ({ service, body }) => service.conversations.upload(body),
  },
  {
    ...at("recall"),
    summary: "Recall chat history: hybrid search and a cited summary",
    origin: "spec",
    body: RecallRequest,
    response: RecallResponse,
    errors: [400, 401],
    handle: ({ service, body }) => service.recall(body as RecallRequest),
  },
  {
    ...at("search"),
    summary: "Raw hybrid search over conversation chunks",
    origin: "spec",
    body: SearchRequest,
    response: SearchResponse,
    errors: [400, 401],
    handle: ({ service, body }) => service.search(body as SearchRequest),
  },
  {
    ...at("listConversations"),
    summary: "List conversations, paginated",
    origin: "spec",
    query: ListChatsQuery,
    response: ListChatsResponse,
    errors: [400, 401],
    handle: ({ service, query }) => service.conversations.list(query),
  },
  {
    ...at("deleteConversations"),
    summary: "Delete conversations with their messages, chunks and vectors",
    origin: "spec",
    body: ConversationIds,
    response: DeleteChatsResponse,
    errors: [400, 401],
    handle: ({ service, body }) => service.conversations.delete(body as ConversationIds),
  },
  {
    ...at("getConversation"),
    summary: "One conversation with all its messages (or a page of them)",
    origin: "spec",
    query: ConversationQuery,
    response: ConversationDetail,
    errors: [400, 401, 404],
    handle: ({ service, query }) => service.conversations.get(query["conversationId"] ?? "", query),
  },
  {
    ...at("countConversations"),
    summary: "How many conversations (excluded and quota-blocked ones are not counted)",
    origin: "spec",
    response: CountResponse,
    errors: [401],
    handle: ({ service }) => service.conversations.count(),
  },
  {
    ...at("pinConversations"),
    summary: "Pin or unpin conversations",
    origin: "mnemo",
    body: PinRequest,
    response: FlagResponse,
    errors: [400, 401],
    handle: ({ service, body }) => service.conversations.pin(body as PinRequest),
  },
  {
    ...at("excludeConversations"),
    summary: "Exclude conversations from search, recall and count, or include them again",
    origin: "mnemo",
    body: ExcludeRequest,
    response: FlagResponse,
    errors: [400, 401],
    handle: ({ service, body }) => service.conversations.exclude(body as ExcludeRequest),
  },
  {
    ...at("uploadImport"),
    summary: `Upload an export file (${formatNames("or")}; at most 4 GB) as the request body: streamed to the data dir and imported in the background as \`mnemo import\` does`,
    origin: "mnemo",
    query: UploadImportQuery,
    response: ImportJob,
    errors: [400, 401, 413, 503],
    stream: true,
    handle: ({ service, query, stream }) => service.imports.upload(stream ?? emptyBody(), query),
  },
  {
    ...at("listImports"),
    summary: "The caller's uploaded imports, newest first (kept for a day, and until the server restarts)",
    origin: "mnemo",
    response: ImportJobList,
    errors: [401],
    handle: ({ service }) => service.imports.list(),
  },
  {
    ...at("getImport"),
    summary: "An uploaded import's progress: receiving, waiting, reading, indexing, then done (with the summary) or failed",
    origin: "mnemo",
    response: ImportJob,
    errors: [401, 404],
    handle: ({ service, params }) => service.imports.get(params["jobId"] ?? ""),
  },
  {
    ...at("rotateToken"),
    summary: "A new API token for the caller, shown once; the old one stops working",
    origin: "mnemo",
    response: RotateTokenResponse,
    errors: [401],
    handle: ({ service }) => service.token.rotate(),
  },
  {
    ...at("info"),
    summary: "The embedder, reranker and synthesizer in use, the data dir, and statistics of the caller's data",
    origin: "mnemo",
    response: StoreInfo,
    errors: [401],
    handle: ({ service }) => service.info(),
  },
  {
    ...at("queueStatus"),
    summary: "The processing queue: counts by state and why any failed",
    origin: "mnemo",
    response: QueueStatus,
    errors: [401],
    handle: ({ service }) => service.conversations.status(),
  },
  {
    ...at("overview"),
    summary: "The chat history at a glance: conversations and messages per platform, their span, and the queue",
    origin: "mnemo",
    response: ChatHistoryOverview,
    errors: [401],
    handle: ({ service }) => service.conversations.overview(),
  },
  {
    ...at("moveToTrash"),
    summary:
      "Move memories and conversations to the trash, where they are kept 30 days and can be restored as they were (the web app's delete); gone from every list, search and count meanwhile. DELETE endpoints remove at once",
    origin: "mnemo",
    body: MoveToTrashRequest,
    response: MoveToTrashResponse,
    errors: [400, 401, 503],
    handle: ({ service, body }) => service.trash.move(body as MoveToTrashRequest),
  },
  {
    ...at("listTrash"),
    summary: "What the caller's trash holds, newest first, each with when it is deleted for good",
    origin: "mnemo",
    query: TrashQuery,
    response: TrashList,
    errors: [400, 401],
    handle: ({ service, query }) => service.trash.list(query),
  },
  {
    ...at("restoreTrash"),
    summary: "Put trash entries back as they were: the same ids, versions, dates, bucket and flags",
    origin: "mnemo",
    body: TrashIds,
    response: RestoreTrashResponse,
    errors: [400, 401, 404, 503],
    handle: ({ service, body }) => service.trash.restore(body as TrashIds),
  },
  {
    ...at("emptyTrash"),
    summary: "Delete trash entries for good: those listed in `ids`, or the whole trash",
    origin: "mnemo",
    body: EmptyTrashRequest,
    response: EmptyTrashResponse,
    errors: [400, 401, 404, 503],
    // Unlike other routes, it refuses a query parameter, which it does not read: without ids it empties the whole trash.
    handle: async ({ service, body, query }) => {
      checkNoQuery(query, ENDPOINTS.emptyTrash.path);
      return service.trash.empty((body ?? {}) as EmptyTrashRequest);
    },
  },
  {
    ...at("export"),
    summary:
      "Everything of the token's user (memories with history and images, buckets, conversations with messages, import records) in mnemo's export format: a header line, then one record a line; `mnemo import` restores it. Gzip with Accept-Encoding: gzip",
    origin: "mnemo",
    query: ExportQuery,
    response: ExportLine,
    errors: [400, 401, 503],
    produces: "application/x-ndjson",
    handle: ({ service, query }) => service.export(query),
  },
];

async function* emptyBody(): AsyncIterable<Uint8Array> {}

export { BulkMoveNotFound, ErrorBody };
