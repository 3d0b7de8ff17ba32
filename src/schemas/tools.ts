import { z } from "zod";
import { queryInt } from "./common.js";
import {
  ChatHistoryOverview,
  ConversationDetail,
  ConversationIds,
  ConversationMessage,
  ConversationQuery,
  DeleteChatsResponse,
  ExcludeRequest,
  FlagResponse,
  ListChatsQuery,
  ListChatsResponse,
  PinRequest,
} from "./chat-history.js";
import {
  Bucket,
  BucketIdParams,
  BulkDeleteRequest,
  BulkDeleteResponse,
  CreateBucketRequest,
  CreateBucketResponse,
  DeleteBucketResponse,
  ListBucketsQuery,
  MemoryHistoryQuery,
  MemoryHistoryResponse,
  MemoryIdParams,
  MemoryObject,
  RenameBucketRequest,
  RenameBucketResponse,
  StoreMemoryRequest,
  StoreMemoryResponse,
  UpdateMemoryRequest,
  UpdateMemoryResponse,
  V2MemoryQuery,
  V2MemoryResponse,
} from "./memories.js";
import {
  ContextChunks,
  queryOrQueries,
  RecallFields,
  RecallPart,
  RecallResponse,
  SearchLimit,
  SearchRequest,
  SearchResponse,
  SearchResult,
} from "./recall.js";

/**
 * A list of memories as the memory tools answer it: each memory's text once. The API's memory object
 * repeats it in `metadata.text` (spec §2), which doubled a structured result: 12 long memories made
 * ~25k tokens of text and ~50k of structure.
 */
const ToolMemoryList = V2MemoryResponse.extend({
  memories: z.array(z.union([z.string(), MemoryObject.extend({ metadata: MemoryObject.shape.metadata.omit({ text: true }) })])),
});

/** Tokens of message text get_full_conversation returns by default: with its lines, under ~5,000. */
export const CONVERSATION_PAGE_TOKENS = 4000;
const RecallPartSources = RecallPart.omit({ content: true }).extend({ query: z.string(), model: z.string() });

/**
 * The input and output of each MCP tool (src/mcp/tools.ts): its REST twin's own schemas, narrowed
 * where the tool fixes a parameter for the model, its path parameters beside its body or query.
 * `source` and `v` are a client's name and the API version: a tool has one of each. A result MCP
 * takes must be an object, so a list the API answers bare comes wrapped in one.
 */
export const ToolSchemas = {
  store_memory: { input: StoreMemoryRequest.omit({ source: true }), output: StoreMemoryResponse },
  /** GET /api/v2/memory with a query; the tool always asks for ids, which the model needs to edit. */
  search_memories: {
    input: V2MemoryQuery.pick({ query: true, count: true, bucketId: true, contentType: true, dateFrom: true, dateTo: true }).required({
      query: true,
    }),
    output: ToolMemoryList,
  },
  /**
   * GET /api/v2/memory without a query (search_memories has it), ids always included, a page at a
   * time: `all` would put every memory into the model's context at once.
   */
  get_memories_and_buckets: {
    // `latest` is the default mode, a flag of the spec that changes nothing: one argument fewer for a model.
    input: V2MemoryQuery.omit({ query: true, source: true, includeIds: true, latest: true, all: true }),
    output: ToolMemoryList,
  },
  memory_history: { input: MemoryIdParams.extend(MemoryHistoryQuery.shape), output: MemoryHistoryResponse },
  update_or_move_memories: { input: UpdateMemoryRequest.omit({ source: true }), output: UpdateMemoryResponse },
  delete_memories: { input: BulkDeleteRequest.omit({ source: true }), output: BulkDeleteResponse },
  list_buckets: { input: ListBucketsQuery.pick({}), output: z.object({ buckets: z.array(Bucket) }) },
  create_bucket: { input: CreateBucketRequest.omit({ source: true }), output: CreateBucketResponse },
  // RenameBucketRequest's rule (a name or a description) is checked by the core, which parses it again.
  rename_bucket: { input: BucketIdParams.extend(RenameBucketRequest.shape).omit({ source: true }), output: RenameBucketResponse },
  delete_bucket: { input: BucketIdParams, output: DeleteBucketResponse },
  /**
   * The three that return long text say it once, in the text a model reads: their structured
   * result carries the ids, scores, dates and paging, not the passages again (MCP asks that a
   * structured result match the output schema, not that it repeat the text).
   */
  /**
   * `maxTokens` without the endpoint's default: with `queries` and none given, the tool shares its
   * default among them (mcp/tools.ts), where the endpoint gives each query the whole of it.
   */
  recall_chat_history: {
    input: RecallFields.extend({ maxTokens: RecallFields.shape.maxTokens.unwrap().optional() }).superRefine(queryOrQueries),
    output: RecallResponse.omit({ content: true }).extend({ results: z.array(RecallPartSources).optional() }),
  },
  /** Smaller defaults than the endpoint's (20 hits, 4 chunks around each): ~2,000 tokens of text. */
  search_chat_history: {
    input: SearchRequest.extend({
      limit: queryInt(SearchLimit.default(8)),
      contextChunks: queryInt(ContextChunks.default(1)),
    }),
    output: SearchResponse.extend({ results: z.array(SearchResult.omit({ text: true, parts: true, context: true })) }),
  },
  list_conversations: { input: ListChatsQuery, output: ListChatsResponse },
  /** A page of ~4,000 tokens of messages by default; `nextOffset` says where the next begins. */
  get_full_conversation: {
    input: ConversationQuery.extend({
      maxTokens: queryInt(
        z.int().min(100, "must be at least 100").max(1_000_000, "must be at most 1000000").default(CONVERSATION_PAGE_TOKENS),
      ),
    }),
    output: ConversationDetail.extend({ messages: z.array(ConversationMessage.omit({ text: true })) }),
  },
  chat_history_overview: { input: z.object({}), output: ChatHistoryOverview },
  pin_conversations: { input: PinRequest.omit({ source: true }), output: FlagResponse },
  exclude_conversations: { input: ExcludeRequest.omit({ source: true }), output: FlagResponse },
  delete_conversations: { input: ConversationIds.omit({ source: true }), output: DeleteChatsResponse },
} satisfies Record<string, { input: z.ZodObject; output: z.ZodObject }>;

export type ToolName = keyof typeof ToolSchemas;
