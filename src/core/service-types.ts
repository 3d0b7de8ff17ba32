import type {
  Bucket,
  BulkDeleteRequest,
  BulkDeleteResponse,
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
  BulkMoveResponse,
  UpdateMemoryRequest,
  UpdateSingleResponse,
  V2MemoryQuery,
  V2MemoryResponse,
} from "../schemas/memories.js";
import type {
  ChatHistoryOverview,
  ConversationDetail,
  ConversationQuery,
  ConversationIds,
  CountResponse,
  DeleteChatsResponse,
  ExcludeRequest,
  FlagResponse,
  IngestResponse,
  ListChatsQuery,
  ListChatsResponse,
  PinRequest,
  QueueStatus,
} from "../schemas/chat-history.js";
import type { RecallRequest, RecallResponse, SearchRequest, SearchResponse } from "../schemas/recall.js";
import type { UploadChange } from "./chat-history/uploads.js";
import type { ImportJob, ImportJobList, UploadImportQuery } from "../schemas/imports.js";
import type { RotateTokenResponse, StoreInfo } from "../schemas/account.js";
import type { ExportQuery } from "../schemas/export.js";
import type {
  EmptyTrashRequest,
  EmptyTrashResponse,
  MoveToTrashRequest,
  MoveToTrashResponse,
  RestoreTrashResponse,
  TrashIds,
  TrashList,
  TrashQuery,
} from "../schemas/trash.js";

/**
 * Everything one user can do, in the request and response shapes of the API spec. The embedded
 * core implements it (below), and so does the HTTP client (client/remote.ts): the CLI and the MCP
 * server work against this interface and do not know which one they hold.
 */
export interface MnemoService {
  memories: {
    store(input: StoreMemoryRequest): Promise<StoreMemoryResponse>;
    /** An image memory (POST /api/v2/memory/image). */
    storeImage(input: ImageMemoryRequest): Promise<StoreMemoryResponse>;
    /** Several memories in one embedding batch and one commit. */
    storeMany(inputs: StoreMemoryRequest[]): Promise<{ memoryIds: string[] }>;
    list(query: LegacyMemoryQuery): Promise<LegacyMemoryResponse>;
    listV2(query: V2MemoryQuery): Promise<V2MemoryResponse>;
    /** Either form's answer (the schema, UpdateMemoryResponse, holds both as one object). */
    update(body: UpdateMemoryRequest): Promise<UpdateSingleResponse | BulkMoveResponse>;
    delete(memoryId: string): Promise<DeleteMemoryResponse>;
    bulkDelete(body: BulkDeleteRequest): Promise<BulkDeleteResponse>;
    /** Every version, oldest first, or a page of them. */
    history(memoryId: string, query?: MemoryHistoryQuery): Promise<MemoryHistoryResponse>;
  };
  buckets: {
    /** `v` and `source` (GET /api/buckets) are checked, and change nothing. */
    list(query?: ListBucketsQuery): Promise<Bucket[]>;
    create(body: CreateBucketRequest): Promise<CreateBucketResponse>;
    /** A new name and/or description (PATCH /api/buckets/{bucketId}); bucket 1 too. */
    rename(bucketId: number, body: RenameBucketRequest): Promise<RenameBucketResponse>;
    /** Deletes a bucket, its memories going to General (DELETE /api/buckets/{bucketId}); never bucket 1. */
    delete(bucketId: number): Promise<DeleteBucketResponse>;
  };
  /**
   * Chat history: an upload stores a conversation and queues it; the index worker chunks and
   * embeds it; search and recall (below) read the index.
   */
  conversations: {
    /** One conversation in the upload shape (POST /api/chat-history/ingest/custom-online). */
    upload(upload: unknown): Promise<IngestResponse>;
    /** Several at once, in one commit (the importer's path). */
    uploadMany(uploads: unknown[]): Promise<IngestResponse[]>;
    /**
     * What uploadMany would do with each upload, storing nothing (a dry run). The embedded store
     * only: the API has no endpoint for it, so the HTTP client leaves it out.
     */
    previewUploads?(uploads: unknown[]): Promise<UploadChange[]>;
    list(query: ListChatsQuery): Promise<ListChatsResponse>;
    /** All its messages, or a page of them (`offset`, `limit`, `maxTokens`). */
    get(conversationId: string, page?: ConversationPage): Promise<ConversationDetail>;
    delete(body: ConversationIds): Promise<DeleteChatsResponse>;
    count(): Promise<CountResponse>;
    pin(body: PinRequest): Promise<FlagResponse>;
    exclude(body: ExcludeRequest): Promise<FlagResponse>;
    status(): Promise<QueueStatus>;
    /** Counts per platform, the span of the history and the queue, at a glance (GET /api/chat-history/overview). */
    overview(): Promise<ChatHistoryOverview>;
  };
  /**
   * Export files uploaded whole (POST /api/chat-history/imports): streamed to the server's data dir
   * and read by the same importer as `mnemo import`, in the background; `get` reports progress.
   */
  imports: {
    upload(body: AsyncIterable<Uint8Array>, options: UploadImportQuery & { size?: number }): Promise<ImportJob>;
    get(jobId: string): Promise<ImportJob>;
    list(): Promise<ImportJobList>;
  };
  /**
   * The trash (core/trash/): memories and conversations moved out of the store for 30 days, which
   * can be put back as they were. The web app's deletes go there; DELETE endpoints remove at once.
   */
  trash: {
    /** Moves them there (POST /api/trash): gone from every list, search and count, as after a delete. */
    move(body: MoveToTrashRequest): Promise<MoveToTrashResponse>;
    /** Newest first (GET /api/trash). */
    list(query?: TrashQuery): Promise<TrashList>;
    /** Puts entries back, with their ids, versions and dates (POST /api/trash/restore). */
    restore(body: TrashIds): Promise<RestoreTrashResponse>;
    /** Deletes the listed entries for good, or all of them (POST /api/trash/empty). */
    empty(body?: EmptyTrashRequest): Promise<EmptyTrashResponse>;
  };
  /** The caller's own token (POST /api/token/rotate): a new one, shown once; the old one stops working. */
  token: {
    rotate(): Promise<RotateTokenResponse>;
  };
  /** What the store runs with and holds (GET /api/info). */
  info(): Promise<StoreInfo>;
  /** POST /api/chat-history/search: raw hybrid search over conversation chunks. */
  search(body: SearchRequest): Promise<SearchResponse>;
  /** POST /api/chat-history/inject: search, filter, rank and a cited summary. */
  recall(body: RecallRequest): Promise<RecallResponse>;
  /** GET /api/export: everything of the user in mnemo's export format, line by line (core/jobs/export.ts). */
  export(query?: ExportQuery): Promise<AsyncIterable<string>>;
}

/** A page of a conversation's messages (GET /api/chat-history/conversation's additions). */
export type ConversationPage = Omit<ConversationQuery, "conversationId">;
