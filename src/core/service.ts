import type {
  Bucket,
  BulkDeleteRequest,
  BulkDeleteResponse,
  CreateBucketRequest,
  CreateBucketResponse,
  DeleteMemoryResponse,
  ImageMemoryRequest,
  LegacyMemoryQuery,
  LegacyMemoryResponse,
  ListBucketsQuery,
  MemoryHistoryResponse,
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
import type { ExportQuery } from "../schemas/export.js";
import { exportUser } from "./jobs/export.js";
import { createBucket, listBuckets } from "./memories/buckets.js";
import { storeImageMemory } from "./memories/images.js";
import { recall } from "./retrieval/recall.js";
import { searchChats } from "./retrieval/search.js";
import { uploadConversations, previewUploads, type UploadChange } from "./chat-history/uploads.js";
import { uploadOne } from "./chat-history/upload-batcher.js";
import {
  countConversations,
  deleteConversations,
  getConversation,
  listConversations,
  queueStatus,
  setExcluded,
  setPinned,
} from "./chat-history/conversations.js";
import { chatHistoryOverview } from "./chat-history/overview.js";
import type { CoreContext } from "./context.js";
import { storeMemoryBatched } from "./memories/memory-batcher.js";
import { listMemoriesLegacy, listMemoriesV2, memoryHistory, storeMemories } from "./memories/memories.js";
import { bulkDeleteMemories, deleteMemory, updateMemories } from "./memories/memory-edits.js";

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
    history(memoryId: string): Promise<MemoryHistoryResponse>;
  };
  buckets: {
    /** `v` and `source` (GET /api/buckets) are checked, and change nothing. */
    list(query?: ListBucketsQuery): Promise<Bucket[]>;
    create(body: CreateBucketRequest): Promise<CreateBucketResponse>;
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
    get(conversationId: string): Promise<ConversationDetail>;
    delete(body: ConversationIds): Promise<DeleteChatsResponse>;
    count(): Promise<CountResponse>;
    pin(body: PinRequest): Promise<FlagResponse>;
    exclude(body: ExcludeRequest): Promise<FlagResponse>;
    status(): Promise<QueueStatus>;
    /** Counts per platform, the span of the history and the queue, at a glance (GET /api/chat-history/overview). */
    overview(): Promise<ChatHistoryOverview>;
  };
  /** POST /api/chat-history/search: raw hybrid search over conversation chunks. */
  search(body: SearchRequest): Promise<SearchResponse>;
  /** POST /api/chat-history/inject: search, filter, rank and a cited summary. */
  recall(body: RecallRequest): Promise<RecallResponse>;
  /** GET /api/export: everything of the user in mnemo's export format, line by line (core/jobs/export.ts). */
  export(query?: ExportQuery): Promise<AsyncIterable<string>>;
}

export function createService(ctx: CoreContext, userId: string): MnemoService {
  return {
    memories: {
      store: (input) => storeMemoryBatched(ctx, userId, input),
      storeImage: (input) => storeImageMemory(ctx, userId, input),
      storeMany: async (inputs) => ({ memoryIds: await storeMemories(ctx, userId, inputs) }),
      list: (query) => listMemoriesLegacy(ctx, userId, query),
      listV2: (query) => listMemoriesV2(ctx, userId, query),
      update: (body) => updateMemories(ctx, userId, body),
      delete: (memoryId) => deleteMemory(ctx, userId, memoryId),
      bulkDelete: (body) => bulkDeleteMemories(ctx, userId, body),
      history: (memoryId) => memoryHistory(ctx, userId, memoryId),
    },
    buckets: {
      list: (query) => listBuckets(ctx, userId, query),
      create: (body) => createBucket(ctx, userId, body),
    },
    conversations: {
      upload: (upload) => uploadOne(ctx, userId, upload),
      uploadMany: (uploads) => uploadConversations(ctx, userId, uploads),
      previewUploads: (uploads) => previewUploads(ctx, userId, uploads),
      list: (query) => listConversations(ctx, userId, query),
      get: (conversationId) => getConversation(ctx, userId, { conversationId }),
      delete: (body) => deleteConversations(ctx, userId, body),
      count: () => countConversations(ctx, userId),
      pin: (body) => setPinned(ctx, userId, body),
      exclude: (body) => setExcluded(ctx, userId, body),
      status: () => queueStatus(ctx, userId),
      overview: () => chatHistoryOverview(ctx, userId),
    },
    search: async (body) => withoutTimings(await searchChats(ctx, userId, body)),
    recall: async (body) => withoutTimings(await recall(ctx, userId, body)),
    export: (query) => exportUser(ctx, userId, query),
  };
}

/** Timings are for benchmarks, not part of the API's answer. */
function withoutTimings<T extends { timings: unknown }>(result: T): Omit<T, "timings"> {
  const { timings: _timings, ...rest } = result;
  return rest;
}
