import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { MnemoService } from "../core/index.js";
import { ENDPOINTS, endpointPath, pathParams, type EndpointName } from "../schemas/endpoints.js";
import { DEFAULT_RECALL_TOKENS } from "../schemas/recall.js";
import { ToolSchemas, type ToolName } from "../schemas/tools.js";
import type { AppError } from "../shared/errors.js";
import { conversationPastTheEnd, historyPastTheEnd, listPastTheEnd, memoriesPastTheEnd } from "./paging.js";
import {
  bucketLines,
  pendingNote,
  renderBucketDeleted,
  renderBucketRenamed,
  renderConversation,
  renderConversationChange,
  renderConversationList,
  renderDelete,
  renderHistory,
  renderMemoriesAndBuckets,
  renderMemorySearch,
  renderOverview,
  renderRecall,
  renderSearch,
  renderStored,
  renderUpdate,
  withMemoryTextsCut,
} from "./render.js";

type Input<N extends ToolName> = z.output<(typeof ToolSchemas)[N]["input"]>;
type Output<N extends ToolName> = z.output<(typeof ToolSchemas)[N]["output"]>;
type Value = string | number | boolean;

/**
 * One MCP tool: what the model reads about it, and the one service call it makes, the same
 * function its REST twin calls (`twin`). Inputs and outputs are ToolSchemas' (src/schemas/tools.ts);
 * `run` answers as the twin does (R), the text is made from that, and the structured result is it
 * narrowed to the output schema (where that leaves the long text to the text alone), or `structured`'s.
 */
export interface Tool<N extends ToolName = ToolName, R extends Output<N> = Output<N>> {
  name: N;
  /**
   * The REST endpoint that calls the same function (schemas/endpoints.ts). Its path parameters are
   * the tool's arguments of the same names; the others are its query (GET) or its body.
   */
  twin: EndpointName;
  /** Parameters the tool always sends, which the model does not choose (they are not in its input). */
  fixed?: Record<string, Value>;
  /** Parameters sent when the model leaves them out, where the tool's default is not the endpoint's. */
  defaults?: Record<string, Value>;
  title: string;
  description: string;
  /** What an argument means, where its name, type and limits do not say it. */
  arguments?: Partial<Record<keyof Input<N>, string>>;
  annotations: ToolAnnotations;
  // Methods, not function properties: a Tool<"store_memory"> is then a Tool. `args` hold `fixed` and `defaults`.
  run(service: MnemoService, args: Input<N>): Promise<R>;
  text(result: R, args: Input<N>): string;
  /** The structured result, where it is not the service's answer as the output schema keeps it. */
  structured?(result: R): R;
  /** A line the text adds about the store, which the REST twin's answer does not carry. */
  note?(service: MnemoService): Promise<string | undefined>;
  /** A page asked for past the last one: an error that says which pages there are, not an empty answer. */
  pastTheEnd?(result: R, args: Input<N>): AppError | undefined;
}

const define = <N extends ToolName, R extends Output<N> = Output<N>>(name: N, tool: Omit<Tool<N, R>, "name">): Tool<N, R> => ({
  name,
  ...tool,
});

/** Reads only the user's own store: the same answer every time until something changes it. */
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Changes the user's store; the same call again changes nothing more. */
const EDIT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Removes or replaces what the user stored. */
const DESTROY: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/**
 * Conversations imported but not indexed yet are not searched: without saying so, "nothing
 * matches" right after an import reads as "the user never discussed it".
 */
const notIndexedYet = async (service: MnemoService) => pendingNote((await service.conversations.status()).counts);

/**
 * Several questions share the default summary budget when the model sets none: the endpoint gives
 * each query its whole default (1,000 tokens), and three questions came back as ~4,500 tokens of
 * text. Each keeps enough for a cited sentence or two.
 */
const MIN_TOKENS_PER_QUERY = 150;
function sharedBudget(args: Input<"recall_chat_history">): Input<"recall_chat_history"> {
  if (args.queries === undefined || args.maxTokens !== undefined) return args;
  return { ...args, maxTokens: Math.max(MIN_TOKENS_PER_QUERY, Math.floor(DEFAULT_RECALL_TOKENS / args.queries.length)) };
}

/** Where a memory's date goes: the spec asks callers to prefix it (§4.1). */
const DATED = "Start with today's date as YYYY-MM-DD.";
const CONFIRM = "Confirm with the user first.";
/**
 * A chat search's bounds: a day is a whole day in UTC (`dateTo`'s included), so the user's own day
 * is a time with their offset; "Said on or after" left an assistant to guess. The tool list's token
 * budget keeps it this short.
 */
const SAID_FROM = 'A day (UTC) or time; "last week" as dates.';
const SAID_TO = "A whole day (UTC) or time.";

export const TOOLS: Tool[] = [
  define("store_memory", {
    twin: "storeMemory",
    defaults: { ifSimilar: "skip" },
    title: "Store memory",
    description:
      "Save a lasting fact about the user (a preference, decision, plan, detail to recall later) when they ask you to remember it or it is clearly worth keeping. One self-contained fact per memory. Returns its id, or the memory that already says nearly the same.",
    arguments: {
      text: `The memory. ${DATED}`,
      bucketId: "Bucket to file it in (list_buckets); default 1, General.",
      ifSimilar:
        'If a memory already says nearly the same: "skip" stores nothing and returns it, to update instead; "store" stores anyway.',
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (service, args) => service.memories.store(args),
    text: (result) => renderStored(result),
  }),
  define("search_memories", {
    twin: "listMemoriesV2",
    fixed: { includeIds: true },
    title: "Search memories",
    description:
      "Find the user's saved memories by meaning and keywords. Use it before answering anything that may depend on what they told you before. Returns the best matches (id, text, bucket, date, score) and every bucket.",
    arguments: { count: "Most memories to return.", dateFrom: "Stored on or after.", dateTo: "Stored on or before." },
    annotations: READ,
    run: (service, args) => service.memories.listV2(args),
    text: (result, args) => renderMemorySearch(args.query, result),
    structured: withMemoryTextsCut,
  }),
  define("get_memories_and_buckets", {
    twin: "listMemoriesV2",
    fixed: { includeIds: true },
    title: "List memories and buckets",
    description:
      "List saved memories without a query, newest first, a page at a time; optionally one bucket, content type or date range. Also returns every bucket with its memory count. For browsing; use search_memories to find something.",
    arguments: { skip: "Memories to skip, for the next page.", dateFrom: "Stored on or after.", dateTo: "Stored on or before." },
    annotations: READ,
    run: (service, args) => service.memories.listV2(args),
    text: (result, args) => renderMemoriesAndBuckets(result, args),
    structured: withMemoryTextsCut,
    pastTheEnd: memoriesPastTheEnd,
  }),
  define("memory_history", {
    twin: "memoryHistory",
    title: "Memory history",
    description: "Every version of one saved memory, oldest first: its text, bucket and when it changed.",
    arguments: { count: "Most versions to return (default all)." },
    annotations: READ,
    run: (service, { memoryId, ...page }) => service.memories.history(memoryId, page),
    text: (result, args) => renderHistory(result, args.skip),
    pastTheEnd: historyPastTheEnd,
  }),
  define("update_or_move_memories", {
    twin: "updateMemories",
    title: "Edit or move memories",
    description:
      "Edit or move saved memories. Either memoryId with text (replaces it; old versions are kept) and/or a bucket, or memoryIds (bulk: move only) with a bucket. Give the bucket as bucketId (must exist) or bucketName (created if missing). If any bulk id is unknown nothing moves and the error lists them.",
    arguments: { memoryId: "One memory to edit or move.", memoryIds: "Several memories to move; not with memoryId." },
    // Text is replaced (its versions are kept, but the memory reads differently); the same call again changes nothing.
    annotations: DESTROY,
    run: (service, args) => service.memories.update(args),
    text: (result) => renderUpdate(result),
  }),
  define("delete_memories", {
    twin: "bulkDeleteMemories",
    title: "Delete memories",
    description: `Delete saved memories and their history for good. ${CONFIRM} Unknown ids are skipped.`,
    annotations: DESTROY,
    run: (service, args) => service.memories.bulkDelete(args),
    text: (result, args) => renderDelete(result, args.memoryIds),
  }),
  define("list_buckets", {
    twin: "listBuckets",
    title: "List buckets",
    description: "List the user's memory buckets (folders): id, name, description, memory count.",
    annotations: READ,
    run: async (service) => ({ buckets: await service.buckets.list() }),
    text: (result) => bucketLines(result.buckets),
  }),
  define("create_bucket", {
    twin: "createBucket",
    title: "Create bucket",
    description: "Create a memory bucket. Fails if one of that name exists. Returns it with its id.",
    // Again with the same name: refused, and nothing changes.
    annotations: EDIT,
    run: (service, args) => service.buckets.create(args),
    text: (result) => `Created bucket ${result.bucket.id} ${JSON.stringify(result.bucket.name)}.`,
  }),
  define("rename_bucket", {
    twin: "renameBucket",
    title: "Rename bucket",
    description: "Rename a bucket and/or change its description (an empty one clears it). Bucket 1 too.",
    annotations: EDIT,
    run: (service, { bucketId, ...change }) => service.buckets.rename(bucketId, change),
    text: (result) => renderBucketRenamed(result),
  }),
  define("delete_bucket", {
    twin: "deleteBucket",
    title: "Delete bucket",
    description: `Delete a bucket; its memories move to bucket 1 (General), which cannot be deleted. ${CONFIRM}`,
    annotations: DESTROY,
    run: (service, { bucketId }) => service.buckets.delete(bucketId),
    text: (result) => renderBucketDeleted(result),
  }),
  define("recall_chat_history", {
    twin: "recall",
    title: "Recall chat history",
    // Not every app's name: the list grows with each importer, and chat_history_overview names the user's own.
    description:
      "Recall what the user's past AI conversations (imported from ChatGPT, Claude, Gemini and other chat apps) say about something: a short summary citing [n], with numbered sources (conversation, message, date). Use when they refer to something discussed before. Several questions: queries instead of query.",
    arguments: {
      conversationContext: "The current conversation in a line, to disambiguate.",
      conversationHistory: "Recent turns, for the same purpose.",
      platform: "Format the summary for this chat product.",
      queries: 'Several questions at once, instead of query: [{"query": "…"}, …], each with its own maxTokens if wanted.',
      dateFrom: SAID_FROM,
      dateTo: SAID_TO,
    },
    annotations: READ,
    run: (service, args) => service.recall(sharedBudget(args)),
    text: (result) => renderRecall(result),
    note: notIndexedYet,
  }),
  define("search_chat_history", {
    twin: "search",
    title: "Search chat history",
    description:
      "Search the user's past AI conversations for passages, without a summary: each hit's conversation id and title, date, sender, text, relevance (0-1) and neighbouring messages; says when nothing is about the query. To quote, or to find a conversation to read whole.",
    arguments: {
      provider: '"all" or one platform id (chat_history_overview lists them).',
      contextChunks: "Neighbouring chunks per hit.",
      skipRerank: "Faster, rougher order.",
      includeUnrelated: "Also probably unrelated passages.",
      dateFrom: SAID_FROM,
      dateTo: SAID_TO,
    },
    annotations: READ,
    run: (service, args) => service.search(args),
    text: (result, args) => renderSearch(result, args),
    note: notIndexedYet,
  }),
  define("list_conversations", {
    twin: "listConversations",
    title: "List conversations",
    description:
      "List the user's imported conversations, pinned first, then most recently updated, a page at a time: id, title, platform, dates, message count, flags. Filter by words of the title, platform, creation dates, pinned or import.",
    arguments: {
      provider: '"all" or one platform id.',
      title: "Part of the title, any case.",
      dateFrom: "Created on or after.",
      dateTo: "Created on or before.",
    },
    annotations: READ,
    run: (service, args) => service.conversations.list(args),
    text: (result) => renderConversationList(result),
    pastTheEnd: listPastTheEnd,
  }),
  define("get_full_conversation", {
    twin: "getConversation",
    title: "Read a conversation",
    description:
      "Read one imported conversation, its messages in order, ~4,000 tokens a page; each page says the next offset. Its id comes from search_chat_history, recall sources or list_conversations. To find a passage, search.",
    arguments: { offset: "First message (0-based)." },
    annotations: READ,
    run: (service, { conversationId, ...page }) => service.conversations.get(conversationId, page),
    text: (result, args) => renderConversation(result, args.offset),
    pastTheEnd: conversationPastTheEnd,
  }),
  define("chat_history_overview", {
    twin: "overview",
    title: "Chat history overview",
    description:
      "What the user's chat history holds: conversations and messages per platform, the dates they span, and the import queue (queued, failed…). Call it to learn whether there is history to search.",
    annotations: READ,
    run: (service) => service.conversations.overview(),
    text: (result) => renderOverview(result),
  }),
  define("pin_conversations", {
    twin: "pinConversations",
    title: "Pin conversations",
    description: "Pin conversations (pinned: true) so they list first, or unpin them (false).",
    annotations: EDIT,
    run: (service, args) => service.conversations.pin(args),
    text: (result, args) => renderConversationChange(args.pinned ? "Pinned" : "Unpinned", result.updated, args.ids),
  }),
  define("exclude_conversations", {
    twin: "excludeConversations",
    title: "Exclude conversations",
    description:
      "Exclude conversations from search, recall and counts (excluded: true), or include them again (false). Nothing is deleted.",
    annotations: EDIT,
    run: (service, args) => service.conversations.exclude(args),
    text: (result, args) => renderConversationChange(args.excluded ? "Excluded" : "Included again", result.updated, args.ids),
  }),
  define("delete_conversations", {
    twin: "deleteConversations",
    title: "Delete conversations",
    description: `Delete imported conversations with their messages. ${CONFIRM} Unknown ids are skipped.`,
    annotations: DESTROY,
    run: (service, args) => service.conversations.delete(args),
    text: (result, args) => renderConversationChange("Deleted", result.deleted, args.ids),
  }),
];

/** The tools by name; each schema pair is ToolSchemas'. */
export const TOOLS_BY_NAME = new Map<string, Tool>(TOOLS.map((tool) => [tool.name, tool]));
export const toolSchemas = (tool: Tool) => ToolSchemas[tool.name];

/**
 * The REST request that does what a call of `tool` with `args` does: its twin endpoint, the path
 * parameters from the arguments of the same names, the rest (with what the tool fixes or defaults) as the
 * query of a GET or the body of any other method.
 */
export function twinRequest(
  tool: Tool,
  args: Record<string, unknown>,
): { method: string; path: string; query?: Record<string, string>; body?: Record<string, unknown> } {
  const endpoint = ENDPOINTS[tool.twin];
  const params = pathParams(endpoint);
  const path = endpointPath(endpoint, Object.fromEntries(params.map((name) => [name, String(args[name])])));
  const rest = Object.fromEntries(Object.entries({ ...tool.defaults, ...args, ...tool.fixed }).filter(([name]) => !params.includes(name)));
  const method = endpoint.method.toUpperCase();
  if (method === "GET") return { method, path, query: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)])) };
  // A POST or PATCH carries a body, however empty; a DELETE one when there is something to send.
  return method !== "DELETE" || Object.keys(rest).length ? { method, path, body: rest } : { method, path };
}
