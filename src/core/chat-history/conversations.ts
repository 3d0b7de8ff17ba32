import { parseInput } from "../../schemas/parse.js";
import {
  ConversationIds,
  ConversationQuery,
  ExcludeRequest,
  ListChatsQuery,
  PinRequest,
  type ConversationDetail,
  type ConversationListItem,
  type CountResponse,
  type DeleteChatsResponse,
  type FlagResponse,
  type ListChatsResponse,
  type QueueStatus,
} from "../../schemas/chat-history.js";
import { messagesRowId, type ConversationRow, type StoredMessage } from "../../store/rows.js";
import type { Where } from "../../store/where.js";
import type { CoreContext } from "../context.js";
import { AppError } from "../../shared/errors.js";
import { checkProvider } from "./provider.js";
import { releaseQuota } from "./quota.js";
import { dayRange } from "../../shared/time.js";
import { loadTokenizer, type Tokenizer } from "../../text/tokens.js";
import { shownId } from "../../text/cut-text.js";

/** What listing needs. */
const SUMMARY_COLUMNS = [
  "id",
  "userId",
  "platform",
  "platformConversationId",
  "importId",
  "title",
  "createdAt",
  "updatedAt",
  "status",
  "statusReason",
  "pinned",
  "excluded",
  "quotaBlocked",
  "messageCount",
  "tokenCount",
  "uploadedAt",
];
type Summary = Omit<ConversationRow, "contentHash" | "revision" | "claimedAt" | "claimedBy">;

/**
 * The ways a title filter can be spelt in Unicode: composed (é) and decomposed (e and a combining
 * accent), so "Café" typed on one device finds the title another stored, as a partial match (spec
 * §4.3) should; titles are stored as they were sent.
 */
function titleSpellings(title: string): string[] {
  return [...new Set([title, title.normalize("NFC"), title.normalize("NFD")])];
}

/** GET /api/chat-history/chats: pinned first, then the most recently updated. */
export async function listConversations(ctx: CoreContext, userId: string, input: ListChatsQuery): Promise<ListChatsResponse> {
  const query = parseInput(ListChatsQuery, input);
  await checkProvider(ctx, userId, query.provider);
  const where: Where<"conversations"> = {
    userId,
    platform: query.provider === "all" ? undefined : query.provider,
    anyOf: query.title ? titleSpellings(query.title).map((title) => ({ title: { contains: title } })) : undefined,
    createdAt: dayRange(query.dateFrom, query.dateTo),
    pinned: query.pinnedOnly ? true : undefined,
    // Empty, as a form sends a field left blank, it filters nothing, as an empty title does.
    importId: query.importId || undefined,
  };
  const [total, rows] = await Promise.all([
    ctx.store.count("conversations", where),
    ctx.store.select("conversations", where, {
      columns: SUMMARY_COLUMNS,
      orderBy: [
        { column: "pinned", ascending: false },
        { column: "updatedAt", ascending: false },
        { column: "id", ascending: false },
      ],
      offset: (query.page - 1) * query.pageSize,
      limit: query.pageSize,
    }),
  ]);
  return {
    items: (rows as Summary[]).map(toListItem),
    page: query.page,
    pageSize: query.pageSize,
    total,
    totalPages: Math.ceil(total / query.pageSize),
  };
}

function toListItem(row: Summary): ConversationListItem {
  return {
    id: row.id,
    title: row.title,
    platform: row.platform,
    messageCount: row.messageCount,
    tokenCount: row.tokenCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    pinned: row.pinned,
    status: row.status,
    ...(row.statusReason ? { statusReason: row.statusReason } : {}),
    excluded: row.excluded,
    quotaBlocked: row.quotaBlocked,
    importId: row.importId,
  };
}

/**
 * GET /api/chat-history/conversation: one conversation with all its messages, or a page of them
 * (`offset`, `limit`, `maxTokens`: what an assistant's context can take), with the next page's offset.
 */
export async function getConversation(ctx: CoreContext, userId: string, input: ConversationQuery): Promise<ConversationDetail> {
  const { conversationId, ...page } = parseInput(ConversationQuery, input);
  const { row, messages } = await readConversation(ctx, userId, conversationId);
  const { shown, nextOffset } = await pageOf(messages, page);
  const [platform] = await ctx.store.select("platforms", { userId, id: row.platform });
  return {
    id: row.id,
    title: row.title,
    platform: row.platform,
    ...(platform?.displayName ? { platformDisplayName: platform.displayName } : {}),
    platformConversationId: row.platformConversationId,
    importId: row.importId,
    status: row.status,
    ...(row.statusReason ? { statusReason: row.statusReason } : {}),
    pinned: row.pinned,
    excluded: row.excluded,
    quotaBlocked: row.quotaBlocked,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    tokenCount: row.tokenCount,
    total: messages.length,
    messages: shown,
    ...(nextOffset === undefined ? {} : { nextOffset }),
  };
}

type Page = { offset: number; limit?: number | undefined; maxTokens?: number | undefined };

/**
 * What a message costs a page besides its text: its index, sender and time (a line of the tool's
 * text, an object of the API's), ~20 tokens. Counted on its text alone, a page of 4,000 tokens held
 * 4,000 one-word messages: ~99,000 tokens of get_full_conversation's text.
 */
const MESSAGE_FIELDS_TOKENS = 20;

/**
 * The messages of a page: from `offset`, at most `limit`, and no more than `maxTokens` of text and
 * fields (the first is cut to fit).
 */
async function pageOf(messages: StoredMessage[], page: Page): Promise<{ shown: ConversationDetail["messages"]; nextOffset?: number }> {
  const tokenizer = page.maxTokens === undefined ? undefined : await loadTokenizer();
  const budget = page.maxTokens ?? Number.POSITIVE_INFINITY;
  const end = Math.min(messages.length, page.offset + (page.limit ?? messages.length));
  const shown: ConversationDetail["messages"] = [];
  let used = 0;
  for (let index = page.offset; index < end; index++) {
    const message = messages[index]!;
    const tokens = tokenizer ? (message.tokens ?? tokenizer.count(message.text)) : 0;
    const item = { id: message.id, message_index: index, sender: message.sender, text: message.text, timestamp: message.timestamp };
    if (used + tokens + MESSAGE_FIELDS_TOKENS <= budget) {
      shown.push(item);
      used += tokens + MESSAGE_FIELDS_TOKENS;
    } else {
      // A message longer than the whole page still comes, cut, so that paging moves on.
      if (shown.length === 0 && tokenizer)
        shown.push({ ...item, text: cutToTokens(message.text, budget - MESSAGE_FIELDS_TOKENS, tokenizer), cutFromTokens: tokens });
      break;
    }
  }
  const next = page.offset + shown.length;
  return next < messages.length ? { shown, nextOffset: next } : { shown };
}

/** The most words from the start of `text` that fit in `limit` tokens, marked as cut. */
function cutToTokens(text: string, limit: number, tokenizer: Tokenizer): string {
  const words = text.split(/(\s+)/);
  let low = 0;
  let high = words.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (tokenizer.within(`${words.slice(0, mid).join("")} …`, limit)) low = mid;
    else high = mid - 1;
  }
  return `${words.slice(0, low).join("").trimEnd()} …`;
}

/** A conversation row and its messages, read consistently: a re-upload between the two reads is read again. */
async function readConversation(
  ctx: CoreContext,
  userId: string,
  conversationId: string,
): Promise<{ row: ConversationRow; messages: StoredMessage[] }> {
  for (let attempt = 1; ; attempt++) {
    const [row] = await ctx.store.select("conversations", { userId, id: conversationId });
    if (!row) throw conversationNotFound(conversationId);
    const json = (await readMessages(ctx, [row])).get(row.id);
    if (json !== undefined || attempt === 3) return { row, messages: JSON.parse(json ?? "[]") as StoredMessage[] };
  }
}

/** The messages (JSON of StoredMessage[]) of each conversation at its current revision, by conversation id. */
export async function readMessages(
  ctx: Pick<CoreContext, "store">,
  rows: Pick<ConversationRow, "id" | "revision">[],
): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const found = await ctx.store.select("messages", { id: rows.map(messagesRowId) }, { columns: ["conversationId", "messagesJson"] });
  return new Map(found.map((row) => [row.conversationId, row.messagesJson]));
}

export function conversationNotFound(conversationId: string): AppError {
  return new AppError("not_found", `conversation ${shownId(conversationId)} not found`, {
    details: { field: "conversationId" },
    suggestion: "List conversations and their ids with `mnemo chats list` (GET /api/chat-history/chats).",
  });
}

/** DELETE /api/chat-history/chats: conversations with their chunks and vectors. Unknown ids are skipped. */
export async function deleteConversations(ctx: CoreContext, userId: string, input: ConversationIds): Promise<DeleteChatsResponse> {
  const { ids } = parseInput(ConversationIds, input);
  const deleted = await ctx.store.write(() => removeConversations(ctx, userId, ids));
  if (deleted.length > 0) {
    ctx.afterWrite();
    ctx.onQueued();
  }
  return { deleted, count: deleted.length };
}

/**
 * Removes the user's conversations of these ids with their chunks and messages, and releases what
 * the quota held back; inside `store.write`. The ids that were theirs (unknown ones are skipped).
 */
export async function removeConversations(ctx: CoreContext, userId: string, ids: string[]): Promise<string[]> {
  const found = await ownedIds(ctx, userId, ids);
  if (found.length === 0) return found;
  // Chunks first: a crash in between leaves a listed conversation to delete again, never
  // search hits pointing at a conversation that is gone. Messages last: without their row
  // nothing reads them, and the intent has the next write delete them if this one is cut short.
  const done = ctx.store.intend({ rows: "conversations", userId, ids: found });
  await ctx.store.delete("chunks", { userId, conversationId: found });
  await ctx.store.delete("conversations", { userId, id: found });
  await ctx.store.delete("messages", { userId, conversationId: found });
  done();
  await releaseQuota(ctx, userId);
  return found;
}

async function ownedIds(ctx: CoreContext, userId: string, ids: string[]): Promise<string[]> {
  const rows = await ctx.store.select("conversations", { userId, id: [...new Set(ids)] }, { columns: ["id"] });
  return rows.map((row) => row.id);
}

/** GET /api/chat-history/count: excluded and quota-blocked conversations are not counted. */
export async function countConversations(ctx: CoreContext, userId: string): Promise<CountResponse> {
  return { count: await ctx.store.count("conversations", { userId, excluded: false, quotaBlocked: false }) };
}

export async function setPinned(ctx: CoreContext, userId: string, input: PinRequest): Promise<FlagResponse> {
  const { ids, pinned } = parseInput(PinRequest, input);
  const updated = await ctx.store.write(async () => {
    const found = await ownedIds(ctx, userId, ids);
    if (found.length > 0) await ctx.store.update("conversations", { id: found }, { pinned });
    return found;
  });
  ctx.afterWrite();
  return { updated, count: updated.length };
}

/** An excluded conversation stays stored but is left out of search, recall and count. */
export async function setExcluded(ctx: CoreContext, userId: string, input: ExcludeRequest): Promise<FlagResponse> {
  const { ids, excluded } = parseInput(ExcludeRequest, input);
  const updated = await ctx.store.write(async () => {
    const found = await ownedIds(ctx, userId, ids);
    if (found.length === 0) return found;
    await ctx.store.update("conversations", { id: found }, { excluded });
    await ctx.store.update("chunks", { userId, conversationId: found }, { active: !excluded });
    return found;
  });
  ctx.afterWrite();
  return { updated, count: updated.length };
}

/** The processing queue: how many conversations are in each state, and why any failed. */
export async function queueStatus(ctx: CoreContext, userId: string): Promise<QueueStatus> {
  const rows = (await ctx.store.select(
    "conversations",
    { userId },
    {
      columns: ["id", "title", "status", "statusReason", "quotaBlocked", "excluded"],
    },
  )) as Pick<ConversationRow, "id" | "title" | "status" | "statusReason" | "quotaBlocked" | "excluded">[];
  const problems = rows
    .filter((row) => row.status === "failed" || row.status === "rejected")
    .map((row) => ({ id: row.id, title: row.title, status: row.status, reason: row.statusReason ?? "" }));
  return { counts: stateCounts(rows), problems, ...queueStall(ctx) };
}

/** How many conversations are in each state; a quota-blocked one counts as that, whatever its state. */
export function stateCounts(rows: Pick<ConversationRow, "status" | "quotaBlocked" | "excluded">[]): QueueStatus["counts"] {
  const counts = { queued: 0, processing: 0, ready: 0, failed: 0, rejected: 0, quotaBlocked: 0, excluded: 0 };
  for (const row of rows) {
    if (row.quotaBlocked) counts.quotaBlocked++;
    else counts[row.status]++;
    if (row.excluded) counts.excluded++;
  }
  return counts;
}

/** Why the queue cannot move now, while it cannot. */
export function queueStall(ctx: CoreContext): Pick<QueueStatus, "stalled"> {
  const stall = ctx.indexStalled();
  return stall ? { stalled: { reason: stall.message, ...(stall.suggestion ? { suggestion: stall.suggestion } : {}) } } : {};
}
