import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { MnemoService } from "../core/index.js";
import { ToolSchemas, type ToolName } from "../schemas/tools.js";
import {
  bucketLines,
  pendingNote,
  renderConversation,
  renderConversationList,
  renderDelete,
  renderMemoriesAndBuckets,
  renderMemorySearch,
  renderOverview,
  renderRecall,
  renderSearch,
  renderUpdate,
} from "./render.js";

type Input<N extends ToolName> = z.output<(typeof ToolSchemas)[N]["input"]>;
type Output<N extends ToolName> = z.output<(typeof ToolSchemas)[N]["output"]>;

/**
 * One MCP tool: what the model reads about it, and the one service call it makes, the same
 * function its REST twin calls (`twin`). Inputs and outputs are ToolSchemas' (src/schemas/tools.ts);
 * `run` answers as the twin does (R), the text is made from that, and the structured result is it
 * narrowed to the output schema (where that leaves the long text to the text alone).
 */
export interface Tool<N extends ToolName = ToolName, R extends Output<N> = Output<N>> {
  name: N;
  /** The REST endpoint that calls the same function, with the parameters this tool fixes. */
  twin: string;
  title: string;
  description: string;
  /** What an argument means, where its name, type and limits do not say it. */
  arguments?: Partial<Record<keyof Input<N>, string>>;
  annotations: ToolAnnotations;
  // Methods, not function properties: a Tool<"store_memory"> is then a Tool.
  run(service: MnemoService, args: Input<N>): Promise<R>;
  text(result: R, args: Input<N>): string;
  /** A line the text adds about the store, which the REST twin's answer does not carry. */
  note?(service: MnemoService): Promise<string | undefined>;
}

const define = <N extends ToolName, R extends Output<N> = Output<N>>(name: N, tool: Omit<Tool<N, R>, "name">): Tool<N, R> => ({
  name,
  ...tool,
});

/** Reads only the user's own store: the same answer every time until something changes it. */
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/**
 * Conversations imported but not indexed yet are not searched: without saying so, "nothing
 * matches" right after an import reads as "the user never discussed it".
 */
const notIndexedYet = async (service: MnemoService) => pendingNote((await service.conversations.status()).counts);

/** Where a memory's date goes: the spec asks callers to prefix it (§4.1). */
const DATED = "Start with today's date as YYYY-MM-DD.";

export const TOOLS: Tool[] = [
  define("store_memory", {
    twin: "POST /api/memory",
    title: "Store memory",
    description:
      "Save a lasting fact about the user (a preference, decision, plan, detail to recall later) when they ask you to remember it or it is clearly worth keeping. One self-contained fact per memory. Returns its id.",
    arguments: { text: `The memory. ${DATED}`, bucketId: "Bucket to file it in (list_buckets); default 1, General." },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (service, args) => service.memories.store(args),
    text: (result) => `Stored as ${result.memoryId}.`,
  }),
  define("search_memories", {
    twin: "GET /api/v2/memory?query=…&includeIds=true",
    title: "Search memories",
    description:
      "Find the user's saved memories by meaning and keywords. Use it before answering anything that may depend on what they told you before. Returns the best matches (id, text, bucket, date, score) and every bucket.",
    arguments: { count: "Most memories to return." },
    annotations: READ,
    run: (service, args) => service.memories.listV2({ ...args, includeIds: true }),
    text: (result, args) => renderMemorySearch(args.query, result),
  }),
  define("get_memories_and_buckets", {
    twin: "GET /api/v2/memory?includeIds=true",
    title: "List memories and buckets",
    description:
      "List saved memories without a query, newest first: the latest `count`, or all; optionally one bucket or content type. Also returns every bucket with its memory count. For browsing; use search_memories to find something.",
    arguments: { all: "Every memory (count is ignored).", skip: "Memories to skip, for paging." },
    annotations: READ,
    run: (service, args) => service.memories.listV2({ ...args, includeIds: true }),
    text: (result, args) => renderMemoriesAndBuckets(result, args.skip),
  }),
  define("list_buckets", {
    twin: "GET /api/buckets",
    title: "List buckets",
    description: "List the user's memory buckets (folders): id, name, description, memory count.",
    annotations: READ,
    run: async (service) => ({ buckets: await service.buckets.list() }),
    text: (result) => bucketLines(result.buckets),
  }),
  define("create_bucket", {
    twin: "POST /api/buckets",
    title: "Create bucket",
    description: "Create a memory bucket. Fails if one of that name exists. Returns it with its id.",
    // Again with the same name: refused, and nothing changes.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (service, args) => service.buckets.create(args),
    text: (result) => `Created bucket ${result.bucket.id} ${JSON.stringify(result.bucket.name)}.`,
  }),
  define("update_or_move_memories", {
    twin: "POST /api/v2/memory/update",
    title: "Edit or move memories",
    description:
      "Edit or move saved memories. Either memoryId with text (replaces it; old versions are kept) and/or a bucket, or memoryIds (bulk: move only) with a bucket. Give the bucket as bucketId (must exist) or bucketName (created if missing). If any bulk id is unknown nothing moves and the error lists them.",
    arguments: { memoryId: "One memory to edit or move.", memoryIds: "Several memories to move; not with memoryId." },
    // Text is replaced (its versions are kept, but the memory reads differently); the same call again changes nothing.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: (service, args) => service.memories.update(args),
    text: (result) => renderUpdate(result),
  }),
  define("delete_memories", {
    twin: "POST /api/memories/bulk-delete",
    title: "Delete memories",
    description: "Delete saved memories and their history for good. Confirm with the user first. Unknown ids are skipped.",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: (service, args) => service.memories.bulkDelete(args),
    text: (result) => renderDelete(result),
  }),
  define("recall_chat_history", {
    twin: "POST /api/chat-history/inject",
    title: "Recall chat history",
    description:
      "Recall what the user's past AI conversations (imported from ChatGPT, Claude, Gemini…) say about something: a short summary citing [n], with numbered sources (conversation, message, date). Use when they refer to something discussed before. Several questions: queries instead of query.",
    arguments: {
      conversationContext: "The current conversation in a line, to disambiguate.",
      conversationHistory: "Recent turns, for the same purpose.",
      platform: "Format the summary for this chat product.",
      queries: 'Several questions at once, instead of query: [{"query": "…"}, …], each with its own maxTokens if wanted.',
    },
    annotations: READ,
    run: (service, args) => service.recall(args),
    text: (result) => renderRecall(result),
    note: notIndexedYet,
  }),
  define("search_chat_history", {
    twin: "POST /api/chat-history/search",
    title: "Search chat history",
    description:
      "Search the user's past AI conversations for passages, without a summary: each hit's conversation id and title, date, sender, text, relevance (0-1) and neighbouring messages; says when nothing is about the query. To quote, or to find a conversation to read whole.",
    arguments: {
      provider: '"all" or one platform id (chat_history_overview lists them).',
      contextChunks: "Neighbouring chunks per hit.",
      skipRerank: "Faster, rougher order.",
      includeUnrelated: "Also probably unrelated passages.",
    },
    annotations: READ,
    run: (service, args) => service.search(args),
    text: (result) => renderSearch(result),
    note: notIndexedYet,
  }),
  define("list_conversations", {
    twin: "GET /api/chat-history/chats",
    title: "List conversations",
    description:
      "List the user's imported conversations, pinned first, then most recently updated: id, title, platform, dates, message count. Filter by words of the title, platform, creation dates or import.",
    arguments: {
      provider: '"all" or one platform id.',
      title: "Part of the title, any case.",
      dateFrom: "Created on or after.",
      dateTo: "Created on or before.",
    },
    annotations: READ,
    run: (service, args) => service.conversations.list(args),
    text: (result) => renderConversationList(result),
  }),
  define("get_full_conversation", {
    twin: "GET /api/chat-history/conversation",
    title: "Read a conversation",
    description:
      "Read one imported conversation, its messages in order, ~4,000 tokens a page; each page says the next offset. Its id comes from search_chat_history, recall sources or list_conversations. To find a passage, search.",
    arguments: { offset: "First message (0-based)." },
    annotations: READ,
    run: (service, { conversationId, ...page }) => service.conversations.get(conversationId, page),
    text: (result, args) => renderConversation(result, args.offset),
  }),
  define("chat_history_overview", {
    twin: "GET /api/chat-history/overview",
    title: "Chat history overview",
    description:
      "What the user's chat history holds: conversations and messages per platform, the dates they span, and the import queue (queued, failed…). Call it to learn whether there is history to search.",
    annotations: READ,
    run: (service) => service.conversations.overview(),
    text: (result) => renderOverview(result),
  }),
];

/** The twelve, by name; each schema pair is ToolSchemas'. */
export const TOOLS_BY_NAME = new Map<string, Tool>(TOOLS.map((tool) => [tool.name, tool]));
export const toolSchemas = (tool: Tool) => ToolSchemas[tool.name];
