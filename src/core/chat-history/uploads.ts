import { createHash } from "node:crypto";
import { parseInput } from "../../schemas/parse.js";
import { UploadConversation, type IngestResponse } from "../../schemas/chat-history.js";
import { messagesRowId, type ConversationRow, type PlatformRow, type StoredMessage } from "../../store/rows.js";
import type { CoreContext } from "../context.js";
import { messageTokens } from "./chunking.js";
import { readMessages } from "./conversations.js";
import { newId } from "../../shared/ids.js";
import { releaseQuota } from "./quota.js";
import { toUtcIso } from "../../shared/time.js";
import { loadTokenizer, type Tokenizer } from "../../text/tokens.js";
import { FORMER_PLATFORMS } from "../../schemas/platform.js";

export const DEFAULT_PLATFORM = "custom";

export type Upload = ReturnType<typeof UploadConversation.parse>;
/** What an upload does to the store: `unchanged` queues nothing. */
export type UploadChange = IngestResponse["change"];

/**
 * Stores uploaded conversations (the spec's upload shape) and queues them for processing.
 * Upsert by (user, platform, conversation.id): a re-upload merges messages by message id, keeps
 * them in time order and never duplicates the conversation; an upload that changes nothing queues
 * nothing. One import record per (user, platform). When this returns, the conversations and
 * their messages are durably stored.
 */
export async function uploadConversations(ctx: CoreContext, userId: string, inputs: unknown[]): Promise<IngestResponse[]> {
  const uploads = inputs.map((input, index) => parseInput(UploadConversation, input, inputs.length > 1 ? `[${index}]` : undefined));
  return storeUploads(ctx, userId, uploads);
}

/** The same for uploads already validated, in one write. */
export async function storeUploads(ctx: CoreContext, userId: string, uploads: Upload[]): Promise<IngestResponse[]> {
  const tokenizer = await loadTokenizer();
  const responses = await ctx.store.write(async () => {
    const platforms = await ensurePlatforms(ctx, userId, uploads);
    const existing = await findExisting(ctx, userId, uploads);
    // Room the quota has now (raised since, say) goes first to the conversations waiting for it.
    const quota = await releaseQuota(ctx, userId);
    let room = quota.room;
    // By id: the same conversation twice in one batch is one row, processed if either upload asks for it.
    const changed = new Map<string, { stored: Stored; process: boolean }>();
    const results = uploads.map((upload) => {
      const found = storedAs(existing, upload);
      const platform = platforms.get(found.platform)!;
      const before = found.before;
      if (before) existing.delete(key(before.row.platform, upload.conversation.id));
      const after = mergeUpload(ctx, userId, platform, upload, before, tokenizer);
      const { change, process } = changeOf(before?.row, after.row);
      if (change === "new") {
        after.row.quotaBlocked = room !== null && room <= 0;
        if (room !== null && !after.row.quotaBlocked) room--;
      }
      const stored = process ? after : withDates(before!, after.row);
      if (process) changed.set(stored.row.id, { stored, process });
      else if (change === "updated") changed.set(stored.row.id, { stored, process: changed.get(stored.row.id)?.process ?? false });
      existing.set(key(platform.id, upload.conversation.id), stored);
      return toResponse(stored.row, change);
    });
    const all = [...changed.values()];
    await storeConversations(
      ctx,
      userId,
      all.filter((entry) => entry.process).map((entry) => entry.stored),
    );
    await ctx.store.upsert(
      "conversations",
      "id",
      all.filter((entry) => !entry.process).map((entry) => entry.stored.row),
    );
    return { results, queued: all.filter((entry) => entry.process).length + quota.released };
  });
  if (responses.queued > 0) {
    ctx.afterWrite();
    ctx.onQueued();
  }
  return responses.results;
}

const key = (platform: string, platformConversationId: string) => `${platform}\u0000${platformConversationId}`;

/** The platforms a conversation uploaded under `platform` may be stored under: its own, its former, those it is the former of. */
function platformsOf(platform: string): string[] {
  const former = FORMER_PLATFORMS[platform];
  const newer = Object.keys(FORMER_PLATFORMS).filter((id) => FORMER_PLATFORMS[id] === platform);
  return [platform, ...(former === undefined ? [] : [former]), ...newer];
}

/**
 * Where an upload goes: the conversation stored under its platform, else under a former or newer id of
 * it (FORMER_PLATFORMS), and the platform it is then stored under, the newer of the two.
 */
function storedAs<T extends { row: Pick<ConversationRow, "platform"> }>(
  existing: Map<string, T>,
  upload: Upload,
): { before: T | undefined; platform: string } {
  const platform = upload.platform ?? DEFAULT_PLATFORM;
  for (const candidate of platformsOf(platform)) {
    const before = existing.get(key(candidate, upload.conversation.id));
    if (before) return { before, platform: FORMER_PLATFORMS[candidate] === platform ? candidate : platform };
  }
  return { before: undefined, platform };
}

type Known = Pick<ConversationRow, "contentHash" | "status" | "createdAt" | "updatedAt" | "platform">;

/**
 * What an upload does to a conversation, and whether it is to be processed (chunked and embedded)
 * again: a new title or new messages are, and so is a failed conversation even when the upload holds
 * nothing new; new dates alone are stored without processing.
 */
function changeOf(before: Known | undefined, after: Known): { change: UploadChange; process: boolean } {
  if (!before) return { change: "new", process: true };
  // A platform moved (FORMER_PLATFORMS) is processed: its chunks carry it, and keep their vectors.
  if (after.contentHash !== before.contentHash || before.status === "failed" || after.platform !== before.platform)
    return { change: "updated", process: true };
  const redated = after.createdAt !== before.createdAt || after.updatedAt !== before.updatedAt;
  return { change: redated ? "updated" : "unchanged", process: false };
}

/** The stored conversation with the dates of `dated`. */
function withDates(stored: Stored, dated: Pick<ConversationRow, "createdAt" | "updatedAt">): Stored {
  return { ...stored, row: { ...stored.row, createdAt: dated.createdAt, updatedAt: dated.updatedAt } };
}

/**
 * The dates an upload gives its conversation, in UTC: `updatedAt` defaults to `createdAt` (spec §2).
 * An upload that adds to what was stored (not `complete`) never moves `updatedAt` back: re-sent
 * without it, or read from a session file cut mid-write, the conversation had sunk in a list by
 * update as if it had not been touched since it began.
 */
function uploadDates(
  upload: Upload,
  before: Pick<ConversationRow, "updatedAt"> | undefined,
): Pick<ConversationRow, "createdAt" | "updatedAt"> {
  const createdAt = toUtcIso(upload.conversation.createdAt);
  const updatedAt = upload.conversation.updatedAt ? toUtcIso(upload.conversation.updatedAt) : createdAt;
  const kept = !upload.complete && before !== undefined && before.updatedAt > updatedAt;
  return { createdAt, updatedAt: kept ? before.updatedAt : updatedAt };
}

/**
 * What storing these uploads would do to each conversation, read from the store without writing
 * anything: a dry run's report. Uploads of the same conversation later in the list see the earlier ones.
 */
export async function previewUploads(ctx: CoreContext, userId: string, inputs: unknown[]): Promise<UploadChange[]> {
  const uploads = inputs.map((input, index) => parseInput(UploadConversation, input, inputs.length > 1 ? `[${index}]` : undefined));
  const known = new Map<string, { row: Known; messages: StoredMessage[] }>();
  for (const [id, { row, messagesJson }] of await findExisting(ctx, userId, uploads)) {
    known.set(id, { row, messages: JSON.parse(messagesJson) as StoredMessage[] });
  }
  return uploads.map((upload) => {
    const { before, platform } = storedAs(known, upload);
    if (before) known.delete(key(before.row.platform, upload.conversation.id));
    const messages = uploadedMessages(upload, before?.messages ?? []);
    const after = {
      contentHash: contentHash(upload.conversation.title, messages),
      status: "queued" as const,
      platform,
      ...uploadDates(upload, before?.row),
    };
    known.set(key(platform, upload.conversation.id), { row: after, messages });
    return changeOf(before?.row, after).change;
  });
}

/** A conversation row with its messages (the JSON of StoredMessage[]). */
interface Stored {
  row: ConversationRow;
  messagesJson: string;
}

/**
 * The messages first, under the new revision's id, then the rows that point at them: a cut in
 * between leaves an unreferenced messages row, never a conversation without its messages, and the
 * intent recorded first has the next write delete that row. Then the earlier revisions' messages
 * go. Inside `write`.
 *
 * A new conversation's rows are appended: its id was just made, so nothing can hold it. An upsert
 * scans the whole table, and an import is mostly new conversations.
 */
async function storeConversations(ctx: CoreContext, userId: string, conversations: Stored[]): Promise<void> {
  if (conversations.length === 0) return;
  const fresh = conversations.filter(({ row }) => row.revision === 1);
  const updated = conversations.filter(({ row }) => row.revision > 1);
  const messagesRow = ({ row, messagesJson }: Stored) => ({
    id: messagesRowId(row),
    userId,
    conversationId: row.id,
    revision: row.revision,
    messagesJson,
  });
  const done = ctx.store.intend({ rows: "conversations", userId, ids: conversations.map(({ row }) => row.id) });
  await ctx.store.add("messages", fresh.map(messagesRow));
  // A crash after this write and before the conversation's can have left a row with the same id.
  await ctx.store.upsert("messages", "id", updated.map(messagesRow));
  await ctx.store.add(
    "conversations",
    fresh.map(({ row }) => row),
  );
  await ctx.store.upsert(
    "conversations",
    "id",
    updated.map(({ row }) => row),
  );
  if (updated.length > 0) {
    await ctx.store.delete("messages", {
      userId,
      conversationId: updated.map(({ row }) => row.id),
      id: { not: updated.map(({ row }) => messagesRowId(row)) },
    });
  }
  done();
}

/** The platform rows (with their import record id) for every platform in the uploads. Inside `write`. */
async function ensurePlatforms(ctx: CoreContext, userId: string, uploads: Upload[]): Promise<Map<string, PlatformRow>> {
  const rows = await ctx.store.select("platforms", { userId });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const changed = new Map<string, PlatformRow>();
  for (const upload of uploads) {
    const id = upload.platform ?? DEFAULT_PLATFORM;
    const current = byId.get(id);
    const displayName = upload.platformDisplayName ?? current?.displayName ?? null;
    if (current && current.displayName === displayName) continue;
    const row: PlatformRow = current
      ? { ...current, displayName }
      : { userId, id, displayName, importId: newId("imp"), createdAt: ctx.now().toISOString() };
    byId.set(id, row);
    changed.set(id, row);
  }
  if (changed.size > 0) {
    await ctx.store.replaceScope("platforms", "importId", { userId, id: [...changed.keys()] }, [...changed.values()]);
  }
  return byId;
}

async function findExisting(ctx: CoreContext, userId: string, uploads: Upload[]): Promise<Map<string, Stored>> {
  const ids = [...new Set(uploads.map((upload) => upload.conversation.id))];
  const platforms = [...new Set(uploads.flatMap((upload) => platformsOf(upload.platform ?? DEFAULT_PLATFORM)))];
  const rows = await ctx.store.select("conversations", { userId, platform: platforms, platformConversationId: ids });
  const messages = await readMessages(ctx, rows);
  return new Map(rows.map((row) => [key(row.platform, row.platformConversationId), { row, messagesJson: messages.get(row.id) ?? "[]" }]));
}

function mergeUpload(
  ctx: CoreContext,
  userId: string,
  platform: PlatformRow,
  upload: Upload,
  stored: Stored | undefined,
  tokenizer: Tokenizer,
): Stored {
  const before = stored?.row;
  const previous: StoredMessage[] = stored ? (JSON.parse(stored.messagesJson) as StoredMessage[]) : [];
  const messages = counted(uploadedMessages(upload, previous), previous, tokenizer);
  const title = upload.conversation.title;
  const row: ConversationRow = {
    id: before?.id ?? newId("conv"),
    userId,
    platform: platform.id,
    platformConversationId: upload.conversation.id,
    importId: platform.importId,
    title,
    ...uploadDates(upload, before),
    status: "queued",
    statusReason: null,
    pinned: before?.pinned ?? false,
    excluded: before?.excluded ?? false,
    quotaBlocked: before?.quotaBlocked ?? false,
    messageCount: messages.length,
    tokenCount: messages.reduce((sum, message) => sum + message.tokens, 0),
    contentHash: contentHash(title, messages),
    revision: (before?.revision ?? 0) + 1,
    claimedAt: null,
    claimedBy: null,
    uploadedAt: ctx.now().toISOString(),
  };
  return { row, messagesJson: JSON.stringify(messages) };
}

/** The conversation's messages once the upload is stored: what it holds if complete, else merged into what was. */
function uploadedMessages(upload: Upload, previous: StoredMessage[]): StoredMessage[] {
  const incoming = upload.conversation.messages.map(toStoredMessage);
  return upload.complete ? latestById(incoming) : mergeMessages(previous, incoming);
}

function toStoredMessage(message: Upload["conversation"]["messages"][number]): StoredMessage {
  return {
    id: message.id,
    sender: message.role,
    text: message.content,
    timestamp: message.createdAt ? toUtcIso(message.createdAt) : null,
  };
}

/**
 * The messages with their token counts, each counted once: a message stored before with the same
 * text keeps its count (counting is most of what an import's main thread does), and one from a store
 * made before counts were kept gets its count now.
 */
function counted(messages: StoredMessage[], previous: StoredMessage[], tokenizer: Tokenizer): (StoredMessage & { tokens: number })[] {
  const known = new Map(previous.map((message) => [message.id, message]));
  return messages.map((message) => {
    const before = known.get(message.id);
    const tokens = before?.tokens !== undefined && before.text === message.text ? before.tokens : messageTokens(message.text, tokenizer);
    return { ...message, tokens };
  });
}

/**
 * Earlier messages updated and extended by the new ones (same id → the newer text), in time
 * order. A message without a timestamp stays right after the message it followed.
 */
export function mergeMessages(previous: StoredMessage[], incoming: StoredMessage[]): StoredMessage[] {
  const byId = new Map<string, StoredMessage>();
  for (const message of [...previous, ...incoming]) byId.set(message.id, message); // a known id keeps its place
  let lastTime = "";
  const keyed = [...byId.values()].map((message, index) => {
    lastTime = message.timestamp ?? lastTime;
    return { message, time: lastTime, index };
  });
  keyed.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.index - b.index));
  return keyed.map(({ message }) => message);
}

/** A complete upload's messages as given (an exporter's order is the conversation's), each id once with its last text. */
function latestById(messages: StoredMessage[]): StoredMessage[] {
  return [...new Map(messages.map((message) => [message.id, message])).values()];
}

/** Over what was uploaded: a stored count is derived, and the hashes of stores made before counts were kept stay valid. */
function contentHash(title: string, messages: StoredMessage[]): string {
  const uploaded = messages.map(({ id, sender, text, timestamp }) => ({ id, sender, text, timestamp }));
  return createHash("sha256")
    .update(JSON.stringify([title, uploaded]))
    .digest("base64url");
}

function toResponse(row: ConversationRow, change: IngestResponse["change"]): IngestResponse {
  return {
    queued: true, // accepted; `change` says whether there was anything to process
    importId: row.importId,
    conversationId: row.id,
    platform: row.platform,
    conversation: {
      id: row.id,
      platformConversationId: row.platformConversationId,
      title: row.title,
      updatedAt: row.updatedAt,
      messageCount: row.messageCount,
      // The spec fixes the value; GET /api/chat-history/chats/{id} has the processing state.
      status: "queued",
    },
    change,
  };
}
