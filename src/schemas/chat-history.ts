import { z } from "zod";
import { utcMillis } from "../shared/time.js";
import { hasVisibleText, ONLY_INVISIBLE } from "../text/visible.js";
import {
  DateFilter,
  DateTime,
  HAS_CONTROL_CHARACTERS,
  HAS_DIRECTION_CONTROLS,
  IdText,
  noControlCharacters,
  noDirectionControls,
  queryBool,
  queryInt,
  writeBody,
} from "./common.js";
import { withFix } from "./fixes.js";
import { MAX_ID_CHARS, MAX_TITLE_CHARS } from "./limits.js";
import { PLATFORM_PATTERN, PLATFORM_RULE } from "./platform.js";

export { PLATFORM_PATTERN } from "./platform.js";
/** Which platform's conversations: `all`, or a platform id (the core refuses one the user has none from, naming theirs). */
export const Provider = z.string().max(100, "must be at most 100 characters").default("all");
export { MAX_CONVERSATION_TOKENS, MAX_TITLE_CHARS } from "./limits.js";

/**
 * The caller's id of a conversation or message, the key an upsert or a re-upload's deduplication goes
 * by: one of spaces alone ("   ", a template's empty variable) is refused as an empty one is.
 */
const UploadId = z
  .string()
  .min(1)
  .max(MAX_ID_CHARS)
  .refine((id) => id === "" || hasVisibleText(id), ONLY_INVISIBLE);

export const UploadMessage = z.object({
  id: UploadId,
  role: z.enum(["human", "assistant"]),
  content: z.string(),
  createdAt: DateTime.optional(),
});
export type UploadMessage = z.infer<typeof UploadMessage>;

/**
 * A message's id says which message a re-upload replaces (spec §2: "used for deduplication"), so a
 * second message with an id the upload already gave replaces the first there and then: the same
 * message sent twice is kept once, and another message under that id is refused, since one of the two
 * would be lost without a word.
 */
function eachIdOnce(messages: UploadMessage[], ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  messages.forEach((message, index) => {
    const earlier = first.get(message.id);
    if (earlier === undefined) first.set(message.id, index);
    else if (!sameMessage(messages[earlier]!, message))
      ctx.addIssue({
        code: "custom",
        path: [index, "id"],
        message: `repeats the id of messages[${earlier}] with another message: each message needs its own id, or one of the two is lost`,
      });
  });
}

/** Whether two messages under one id are the same message sent twice (same sender, text and time). */
export const sameMessage = (a: UploadMessage, b: UploadMessage): boolean =>
  a.role === b.role && a.content === b.content && a.createdAt === b.createdAt;

/**
 * `updatedAt` before `createdAt` (the spec is silent): refused, since the list sorts by one and filters
 * by the other, and shows "2025-03-01 to 2024-01-01". Importers drop such an `updatedAt` of an export
 * instead (importers/index.ts), as they repair what an app wrote.
 */
const UPDATED_BEFORE_CREATED = withFix(
  "updatedAt",
  "is before conversation.createdAt: a conversation cannot be updated before it starts",
  "Send an updatedAt at or after createdAt, or leave it out: it defaults to createdAt.",
);

function updatedAfterCreated(conversation: { createdAt: string; updatedAt?: string | undefined }, ctx: z.RefinementCtx): void {
  const { createdAt, updatedAt } = conversation;
  if (updatedAt !== undefined && utcMillis(updatedAt) < utcMillis(createdAt))
    ctx.addIssue({ code: "custom", path: ["updatedAt"], message: UPDATED_BEFORE_CREATED });
}

/** The upload shape of spec §2: the body of POST /api/chat-history/ingest/custom-online. */
export const UploadConversation = z.object({
  platform: z.string().regex(PLATFORM_PATTERN, PLATFORM_RULE).optional(),
  /**
   * A name shown on a line of its own in lists (chat_history_overview's text, the CLI), as a bucket's
   * is, so no control character nor direction control either: a line break in it started a line
   * of the overview that read as mnemo's own.
   */
  platformDisplayName: z
    .string()
    .max(200)
    .refine(noControlCharacters, HAS_CONTROL_CHARACTERS)
    .refine(noDirectionControls, HAS_DIRECTION_CONTROLS)
    .optional(),
  /**
   * An addition to the spec's shape: the upload holds the whole conversation as it stands now (an
   * export does), so a re-upload drops the messages it no longer holds, such as the branch a user
   * edited away. Without it, a re-upload adds to what was stored, as the spec describes.
   */
  complete: z.boolean().optional(),
  conversation: z
    .object({
      id: UploadId,
      title: z.string().max(MAX_TITLE_CHARS, "must be at most 1,000 characters"),
      createdAt: DateTime,
      updatedAt: DateTime.optional(),
      messages: z.array(UploadMessage).min(1).superRefine(eachIdOnce),
    })
    .superRefine(updatedAfterCreated),
});
export type UploadConversation = z.infer<typeof UploadConversation>;

const ConversationStatus = z.enum(["queued", "processing", "ready", "failed", "rejected"]);

// POST /api/chat-history/ingest/custom-online
export const IngestResponse = z.object({
  queued: z.boolean(),
  importId: z.string(),
  conversationId: z.string(),
  platform: z.string(),
  conversation: z.object({
    id: z.string(),
    platformConversationId: z.string(),
    title: z.string(),
    updatedAt: DateTime,
    messageCount: z.number().int(),
    /** Always `queued` (spec §4.3): the upload's acknowledgement, not the processing state. */
    status: z.literal("queued"),
  }),
  /** What the upload did (an addition to the spec's shape): `unchanged` queues nothing. */
  change: z.enum(["new", "updated", "unchanged"]),
});
export type IngestResponse = z.infer<typeof IngestResponse>;

const Page = queryInt(z.int().min(1, "must be 1 or more").default(1));
const PageSize = queryInt(z.int().min(1, "must be at least 1").max(100, "must be at most 100").default(25));

// GET /api/chat-history/chats
export const ListChatsQuery = z.object({
  page: Page,
  pageSize: PageSize,
  provider: Provider,
  title: z.string().max(MAX_TITLE_CHARS, "must be at most 1,000 characters").optional(),
  dateFrom: DateFilter.optional(),
  dateTo: DateFilter.optional(),
  pinnedOnly: queryBool(z.boolean().default(false)),
  importId: IdText.optional(),
});
export type ListChatsQuery = z.input<typeof ListChatsQuery>;
export const ConversationListItem = z.object({
  id: z.string(),
  title: z.string(),
  platform: z.string(),
  messageCount: z.number().int(),
  tokenCount: z.number().int(),
  createdAt: DateTime,
  updatedAt: DateTime,
  pinned: z.boolean(),
  // Additions to the spec's list item: where it is in processing, its flags, and its import record
  // (what `importId` filters on).
  status: ConversationStatus,
  /** Why it failed or was rejected. */
  statusReason: z.string().optional(),
  excluded: z.boolean(),
  quotaBlocked: z.boolean(),
  importId: z.string(),
});
export type ConversationListItem = z.infer<typeof ConversationListItem>;
export const ListChatsResponse = z.object({
  items: z.array(ConversationListItem),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
export type ListChatsResponse = z.infer<typeof ListChatsResponse>;

// GET /api/chat-history/conversation
export const ConversationQuery = z.object({
  // Spaces alone are no id: answered "conversation    not found" (404), where an empty one is a 400.
  conversationId: IdText.min(1, "is required").refine((id) => id === "" || hasVisibleText(id), ONLY_INVISIBLE),
  /** An addition: the first message to return (0-based), for reading a long conversation in pages. */
  offset: queryInt(z.int().min(0, "must be 0 or more").max(10_000_000, "must be at most 10000000").default(0)),
  /** An addition: at most this many messages (all by default). */
  limit: queryInt(z.int().min(1, "must be at least 1").max(100_000, "must be at most 100000").optional()),
  /** An addition: stop before the messages' text passes this many tokens (the first message always comes, cut to it). */
  maxTokens: queryInt(z.int().min(100, "must be at least 100").max(1_000_000, "must be at most 1000000").optional()),
});
export type ConversationQuery = z.input<typeof ConversationQuery>;
/** One message of a conversation as read back. */
export const ConversationMessage = z.object({
  id: z.string(),
  message_index: z.number().int(),
  sender: z.enum(["human", "assistant"]),
  text: z.string(),
  timestamp: z.string().nullable(),
  /** An addition: the text was cut to `maxTokens` (the message is this long whole). */
  cutFromTokens: z.number().int().optional(),
});
export const ConversationDetail = z.object({
  id: z.string(),
  title: z.string(),
  platform: z.string(),
  platformDisplayName: z.string().optional(),
  platformConversationId: z.string(),
  importId: z.string(),
  status: ConversationStatus,
  statusReason: z.string().optional(),
  pinned: z.boolean(),
  excluded: z.boolean(),
  quotaBlocked: z.boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tokenCount: z.number().int(),
  total: z.number().int(),
  messages: z.array(ConversationMessage),
  /** An addition: the `offset` of the next page, when `limit` or `maxTokens` left messages out. */
  nextOffset: z.number().int().optional(),
});
export type ConversationDetail = z.infer<typeof ConversationDetail>;

// DELETE /api/chat-history/chats
export const ConversationIds = writeBody({
  ids: z.array(IdText.min(1)).min(1, "must list at least one id").max(1000, "must list at most 1000 ids"),
});
export type ConversationIds = z.input<typeof ConversationIds>;
export const DeleteChatsResponse = z.object({ deleted: z.array(z.string()), count: z.number().int() });
export type DeleteChatsResponse = z.infer<typeof DeleteChatsResponse>;

// GET /api/chat-history/count
export const CountResponse = z.object({ count: z.number().int() });
export type CountResponse = z.infer<typeof CountResponse>;

// Ours: pin/unpin and exclude/include (POST /api/chat-history/chats/pin and /exclude)
// Booleans written as strings ("true") are read too, as numbers are: models send them so.
export const PinRequest = ConversationIds.extend({ pinned: queryBool(z.boolean()) });
export type PinRequest = z.input<typeof PinRequest>;
export const ExcludeRequest = ConversationIds.extend({ excluded: queryBool(z.boolean()) });
export type ExcludeRequest = z.input<typeof ExcludeRequest>;
export const FlagResponse = z.object({ updated: z.array(z.string()), count: z.number().int() });
export type FlagResponse = z.infer<typeof FlagResponse>;

// Ours: GET /api/chat-history/status — the processing queue
export const QueueStatus = z.object({
  counts: z.object({
    queued: z.number().int(),
    processing: z.number().int(),
    ready: z.number().int(),
    failed: z.number().int(),
    rejected: z.number().int(),
    quotaBlocked: z.number().int(),
    excluded: z.number().int(),
  }),
  problems: z.array(z.object({ id: z.string(), title: z.string(), status: ConversationStatus, reason: z.string() })),
  /** Why the queue cannot move now (the disk is full), while it cannot. */
  stalled: z.object({ reason: z.string(), suggestion: z.string().optional() }).optional(),
});
export type QueueStatus = z.infer<typeof QueueStatus>;

const PlatformOverview = z.object({
  platform: z.string(),
  displayName: z.string().optional(),
  conversations: z.number().int(),
  messages: z.number().int(),
  /** When its oldest conversation began, and when its newest was last updated. */
  firstAt: DateTime,
  lastAt: DateTime,
});

// Ours: GET /api/chat-history/overview — what the history holds at a glance (the chat_history_overview tool)
export const ChatHistoryOverview = z.object({
  /** Counted as GET /api/chat-history/count counts: excluded and quota-blocked conversations are left out. */
  conversations: z.number().int(),
  messages: z.number().int(),
  /** The span of the counted conversations; absent when there are none. */
  firstAt: DateTime.optional(),
  lastAt: DateTime.optional(),
  /** Most conversations first. */
  platforms: z.array(PlatformOverview),
  /** The processing queue (GET /api/chat-history/status), without its list of problems. */
  queue: QueueStatus.pick({ counts: true, stalled: true }),
});
export type ChatHistoryOverview = z.infer<typeof ChatHistoryOverview>;
