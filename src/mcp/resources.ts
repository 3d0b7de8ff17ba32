import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  GetPromptRequestSchema,
  type GetPromptResult,
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  type ListResourcesResult,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { forModel } from "../text/visible.js";
import type { MnemoService } from "../core/index.js";
import { AppError, isAppError } from "../shared/errors.js";
import { probablyUnrelated } from "../core/index.js";
import { protocolError, quoted, type McpLog } from "./errors.js";
import { bucketLines, memoryLines, renderConversation } from "./render.js";

/** Conversations a page of resources/list holds (pinned first, then the most recently updated); `nextCursor` leads to the next. */
const LISTED_CONVERSATIONS = 50;
/** A bucket's memories a resource holds, newest first: a client reads a resource whole. */
const BUCKET_MEMORIES = 500;
/**
 * A conversation's text a resource holds, from its first message: under the ~25,000 tokens at which
 * clients cut an answer (an 800-message chat was ~36,000 in one); its last line names the offset
 * get_full_conversation reads on from.
 */
const CONVERSATION_TOKENS = 20_000;

type Service = () => Promise<MnemoService>;
type Log = McpLog;

/**
 * The user's data as resources a client can attach to a conversation: the buckets, each bucket's
 * memories (`mnemo://buckets/{bucketId}`) and each conversation (`mnemo://conversations/{id}`),
 * all read through the same service calls as the tools. resources/list is ours (listResources):
 * McpServer's lists what the templates' callbacks give in one answer, without a cursor.
 */
export function registerResources(server: McpServer, service: Service, log: Log): void {
  const guard =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await read(...args);
      } catch (error) {
        throw protocolError(error, log);
      }
    };

  const reads = resourceReads(service);
  server.registerResource(
    "buckets",
    "mnemo://buckets",
    BUCKETS,
    guard((uri) => reads.buckets(uri)),
  );
  server.registerResource(
    "bucket",
    new ResourceTemplate("mnemo://buckets/{bucketId}", { list: undefined }),
    BUCKET,
    guard((uri, { bucketId }) => reads.bucket(uri, String(bucketId))),
  );
  server.registerResource(
    "conversation",
    new ResourceTemplate("mnemo://conversations/{conversationId}", { list: undefined }),
    CONVERSATION,
    guard((uri, { conversationId }) => reads.conversation(uri, String(conversationId))),
  );
  // Registered above for resources/templates/list; read here, where a bad URI is the caller's error.
  server.server.setRequestHandler(
    ReadResourceRequestSchema,
    guard((request) => readResource(reads, request.params.uri)),
  );
  server.server.setRequestHandler(
    ListResourcesRequestSchema,
    guard((request) => listResources(service, request.params?.cursor)),
  );
}

type Reads = ReturnType<typeof resourceReads>;

/** What each resource reads, through the same service calls as the tools. */
function resourceReads(service: Service) {
  return {
    buckets: async (uri: URL) => text(uri, bucketLines(await (await service()).buckets.list())),
    bucket: async (uri: URL, bucketId: string) => {
      const id = await bucketIdOf(bucketId);
      const { memories } = await (await service()).memories.listV2({ bucketId: id, count: BUCKET_MEMORIES, includeIds: true });
      return text(uri, memories.length ? memoryLines(memories) : "No memories in this bucket.");
    },
    conversation: async (uri: URL, conversationId: string) =>
      text(
        uri,
        renderConversation(await (await service()).conversations.get(conversationId, { maxTokens: CONVERSATION_TOKENS })),
        "text/markdown",
      ),
  };
}

const RESOURCE_URIS = "Use a URI of resources/list, or of a template of resources/templates/list (mnemo://buckets/1).";

/**
 * resources/read, by URI. McpServer's own answered a URI that is none ("not a uri") as an internal
 * error (-32603 "Invalid URL"), and one that names no resource of this server with its code twice:
 * "MCP error -32602: MCP error -32602: Resource mnemo://memories/x not found".
 */
async function readResource(reads: Reads, uri: string): Promise<ReadResourceResult> {
  if (!URL.canParse(uri)) throw AppError.invalid("uri", `${quoted(uri)} is not a URI`, RESOURCE_URIS);
  const url = new URL(uri);
  if (url.href === "mnemo://buckets") return reads.buckets(url);
  const [, kind, id] = /^mnemo:\/\/(buckets|conversations)\/([^/]+)$/.exec(url.href) ?? [];
  if (kind === "buckets") return reads.bucket(url, id!);
  if (kind === "conversations") return reads.conversation(url, id!);
  throw new AppError("not_found", `resource ${quoted(uri)} not found`, { details: { field: "uri" }, suggestion: RESOURCE_URIS });
}

const BUCKETS = { title: "Memory buckets", description: "Every bucket: id, name, memory count.", mimeType: "text/plain" };
const BUCKET = { title: "Bucket", description: `A bucket's memories, newest first (at most ${BUCKET_MEMORIES}).`, mimeType: "text/plain" };
const CONVERSATION = {
  title: "Conversation",
  description: `An imported conversation, its messages in order (up to ~${CONVERSATION_TOKENS.toLocaleString("en-US")} tokens; get_full_conversation reads on).`,
  mimeType: "text/markdown",
};

/**
 * One page of resources/list: the buckets and the first conversations, then the next
 * conversations for each `nextCursor` (`conversations:<page>`), until none are left.
 */
async function listResources(service: Service, cursor: string | undefined): Promise<ListResourcesResult> {
  const page = cursor === undefined ? 1 : pageOf(cursor);
  const svc = await service();
  const list = await svc.conversations.list({ page, pageSize: LISTED_CONVERSATIONS });
  const conversations = list.items.map((c) => ({
    ...CONVERSATION,
    uri: `mnemo://conversations/${c.id}`,
    name: c.title || "Untitled",
    description: `${c.platform}, ${c.messageCount} messages, ${c.updatedAt.slice(0, 10)}`,
  }));
  const buckets =
    page > 1
      ? []
      : [
          { uri: "mnemo://buckets", name: "buckets", ...BUCKETS },
          ...(await svc.buckets.list()).map((bucket) => ({
            ...BUCKET,
            uri: `mnemo://buckets/${bucket.id}`,
            name: bucket.name,
            description: `${bucket.memoryCount} ${bucket.memoryCount === 1 ? "memory" : "memories"}${bucket.description ? `: ${bucket.description}` : ""}`,
          })),
        ];
  return {
    resources: [...buckets, ...conversations],
    ...(page < list.totalPages ? { nextCursor: `conversations:${page + 1}` } : {}),
  };
}

function pageOf(cursor: string): number {
  const page = /^conversations:([1-9]\d{0,8})$/.exec(cursor)?.[1];
  if (!page)
    throw AppError.invalid(
      "cursor",
      `${quoted(cursor)} is not a cursor of this server`,
      "Use the nextCursor of the answer before, or none for the first page.",
    );
  return Number(page);
}

/** The template's `{bucketId}`, checked as the API checks a bucketId in a query string. */
async function bucketIdOf(value: string | string[] | undefined): Promise<number> {
  // Loaded here, not with the server: `initialize` is answered before any schema is built.
  const [{ queryInt }, { BucketId }, { parseInput }] = await Promise.all([
    import("../schemas/common.js"),
    import("../schemas/memories.js"),
    import("../schemas/parse.js"),
  ]);
  return parseInput(queryInt(BucketId), String(value), "bucketId");
}

function text(uri: URL, body: string, mimeType = "text/plain"): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType, text: forModel(body) }] };
}

/** How many memories the prompt brings in. */
const PRIMING_MEMORIES = 10;

/** A prompt the user picks to start a conversation with what they saved about a topic. */
export function registerPrompts(server: McpServer, service: Service, log: Log): void {
  const primeWith = async (topic: unknown): Promise<GetPromptResult> => {
    try {
      if (typeof topic !== "string") throw AppError.invalid("topic", topic === undefined ? "is required" : "must be a string");
      const { memories } = await (await service()).memories.listV2({ query: topic, count: PRIMING_MEMORIES, includeIds: true });
      // The search fills `count` whatever the scores: what is probably unrelated does not "bear on" the topic.
      const related = memories.filter((memory) => typeof memory === "string" || !probablyUnrelated(memory.score));
      return { messages: [{ role: "user", content: { type: "text", text: forModel(primer(topic, memoryLines(related))) } }] };
    } catch (error) {
      throw protocolError(asTopic(error), log);
    }
  };
  // Registered for prompts/list; got here: McpServer's own said a missing topic or an unknown prompt
  // with its code twice ("MCP error -32602: MCP error -32602: Invalid arguments for prompt …").
  server.registerPrompt(
    "memories_about",
    {
      title: "Memories about a topic",
      description: "Start with what you saved in mnemo about a topic.",
      argsSchema: { topic: z.string().describe("What the conversation is about") },
    },
    ({ topic }) => primeWith(topic),
  );
  server.server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name === "memories_about") return primeWith(request.params.arguments?.["topic"]);
    throw protocolError(AppError.invalid("name", `there is no prompt ${quoted(request.params.name)}`, "Use memories_about."), log);
  });
}

/** The search's complaint about its query is about the prompt's `topic`, which is what the client sent. */
function asTopic(error: unknown): unknown {
  if (!isAppError(error) || error.details["field"] !== "query" || typeof error.details["problem"] !== "string") return error;
  return AppError.invalid("topic", error.details["problem"], error.suggestion);
}

function primer(topic: string, lines: string): string {
  if (!lines) return `We are going to talk about ${topic}. I have no memories saved about it in mnemo yet.`;
  return [
    `We are going to talk about ${topic}. These are the memories I saved in mnemo that may bear on it, most relevant first:`,
    lines,
    "Keep them in mind as background. Where one looks out of date, ask me; search_memories and recall_chat_history can find more.",
  ].join("\n\n");
}
