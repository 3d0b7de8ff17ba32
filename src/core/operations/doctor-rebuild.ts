import { createHash } from "node:crypto";
import fs from "node:fs";
import { DEFAULT_USER } from "../../config/default-user.js";
import { readRecoveryRecord } from "../../store/recovery-record.js";
import type { ChunkRow, ConversationRow, MemoryRow, StoredMessage, TableRows, UserRow } from "../../store/rows.js";
import { newId } from "../../shared/ids.js";
import type { App } from "../app.js";
import { messagesOf } from "../chat-history/chunking.js";
import { REBUILT_HASH, RECOVERED_PLATFORM } from "./doctor.js";

/**
 * What `mnemo doctor --repair` rebuilds from what a damaged store still holds (doctor-repair.ts
 * decides what and when): users from their rows' ids, conversations and their messages from their
 * chunks or their messages, memories from their newest version. A rebuilt conversation is marked
 * (`contentHash` REBUILT_HASH), so that a restore or a new import of it replaces it whole. Each
 * function runs inside the store's `write`.
 */

/** The chunk columns a conversation's text is read back from (not the vector). */
const CHUNK_TEXT = ["id", "conversationId", "userId", "platform", "chunkIndex", "text", "sender", "timestamp", "tokenCount"].concat([
  "messageIds",
  "messageOffsets",
  "messageTimes",
  "messageSenders",
]);

type ChunkText = Pick<
  ChunkRow,
  "chunkIndex" | "text" | "sender" | "timestamp" | "messageIds" | "messageOffsets" | "messageTimes" | "messageSenders"
>;

/**
 * Users made again for the ids their rows name: with the name and token hash the data dir recorded
 * (store/recovery-record.ts); else the default user when the store has none and this is its only
 * (or oldest) user, with the token file's token; else `recovered-<id>`. Returns the names given.
 */
export async function rebuildUsers(app: App, ids: string[]): Promise<string[]> {
  const { store, config } = app.context;
  const recorded = new Map(readRecoveryRecord(config.paths.recoveryRecord).users.map((user) => [user.id, user]));
  const taken = new Set((await store.select("users", {}, { columns: ["name"] })).map((row) => row.name));
  const oldest = await oldestOwner(
    app,
    ids.filter((id) => !recorded.has(id)),
  );
  const now = app.context.now().toISOString();
  const rows: UserRow[] = ids.map((id) => {
    const known = recorded.get(id);
    const wanted = known?.name ?? (id === oldest && !taken.has(DEFAULT_USER) ? DEFAULT_USER : `recovered-${id.slice(-8).toLowerCase()}`);
    const name = taken.has(wanted) ? `recovered-${id.slice(-8).toLowerCase()}` : wanted;
    taken.add(name);
    return { id, name, tokenHash: known?.tokenHash ?? null, createdAt: known?.createdAt ?? now };
  });
  const token = readToken(config.paths.tokenFile);
  for (const row of rows) if (row.name === DEFAULT_USER && token) row.tokenHash = createHash("sha256").update(token).digest("hex");
  await store.add("users", rows);
  return rows.map((row) => row.name);
}

/** Of `ids`, the one whose first bucket is the oldest: the default user is made on first use, before any other. */
async function oldestOwner(app: App, ids: string[]): Promise<string | undefined> {
  if (ids.length <= 1) return ids[0];
  const buckets = await app.context.store.select("buckets", { userId: ids }, { columns: ["userId", "createdAt"] });
  return buckets.sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]?.userId ?? ids[0];
}

function readToken(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The conversation's messages as its chunks hold them, in order: a long message's pieces joined again. */
export function messagesFromChunks(chunks: ChunkText[]): StoredMessage[] {
  const messages: StoredMessage[] = [];
  for (const chunk of [...chunks].sort((a, b) => a.chunkIndex - b.chunkIndex)) {
    for (const piece of messagesOf(chunk)) {
      const last = messages.at(-1);
      if (last?.id === piece.id) last.text = `${last.text} ${piece.text}`;
      else messages.push({ id: piece.id, sender: piece.sender, text: piece.text, timestamp: piece.timestamp });
    }
  }
  return messages;
}

async function chunksOf(app: App, ids: string[]): Promise<Map<string, ChunkRow[]>> {
  const rows = (await app.context.store.select("chunks", { conversationId: ids }, { columns: CHUNK_TEXT })) as ChunkRow[];
  const byConversation = new Map<string, ChunkRow[]>();
  for (const row of rows) byConversation.set(row.conversationId, [...(byConversation.get(row.conversationId) ?? []), row]);
  return byConversation;
}

/** Conversations whose row and messages are gone, made again from their chunks; their chunks (and vectors) are kept. */
export async function conversationsFromChunks(app: App, ids: string[]): Promise<void> {
  const { store } = app.context;
  const conversations: ConversationRow[] = [];
  const messagesRows: TableRows["messages"][] = [];
  for (const [id, chunks] of await chunksOf(app, ids)) {
    const first = chunks[0]!;
    // Chunk ids are `<conversation>:<revision>:<index>`.
    const revision = Number(/:(\d+):\d+$/.exec(first.id)?.[1] ?? 0);
    const messages = messagesFromChunks(chunks);
    const row = rebuiltConversation(app, {
      id,
      userId: first.userId,
      platform: first.platform,
      importId: await importIdFor(app, first.userId, first.platform),
      revision,
      messages,
      status: "ready",
    });
    row.tokenCount = chunks.reduce((sum, chunk) => sum + chunk.tokenCount, 0);
    conversations.push(row);
    messagesRows.push(messagesRow(row, messages));
  }
  await store.add("messages", messagesRows);
  await store.add("conversations", conversations);
}

/** Conversations whose current messages row is lost: rebuilt from their chunks' text. */
export async function messagesRowsFromChunks(app: App, ids: string[]): Promise<void> {
  const { store } = app.context;
  const rows = await store.select("conversations", { id: ids });
  const chunks = await chunksOf(app, ids);
  await store.add(
    "messages",
    rows.map((row) => messagesRow(row, messagesFromChunks(chunks.get(row.id) ?? []))),
  );
  await store.update("conversations", { id: ids }, { contentHash: REBUILT_HASH });
}

/** Conversations whose current messages row is lost: their latest earlier revision's row becomes the current one, to be indexed again. */
export async function messagesRowsFromEarlier(app: App, ids: string[]): Promise<void> {
  const { store } = app.context;
  const current = new Map((await store.select("conversations", { id: ids }, { columns: ["id", "revision"] })).map((r) => [r.id, r]));
  const latest = new Map<string, { id: string; revision: number }>();
  for (const row of await store.select("messages", { conversationId: ids }, { columns: ["id", "conversationId", "revision"] })) {
    const known = latest.get(row.conversationId);
    if (!known || row.revision > known.revision) latest.set(row.conversationId, row);
  }
  for (const [conversationId, row] of latest) {
    const revision = current.get(conversationId)!.revision;
    await store.update("messages", { id: row.id }, { id: `${conversationId}:${revision}`, revision });
  }
  await store.update("conversations", { id: [...latest.keys()] }, { contentHash: REBUILT_HASH, status: "queued", statusReason: null });
}

/** Conversations nothing holds the text of any more: kept with their titles, marked failed with the reason. */
export async function keepTextless(app: App, ids: string[]): Promise<void> {
  await app.context.store.update(
    "conversations",
    { id: ids },
    {
      contentHash: REBUILT_HASH,
      status: "failed",
      statusReason:
        "Its messages were lost with a damaged table; `mnemo import <your latest export>` restores them (mnemo doctor kept the rest)",
    },
  );
}

/**
 * Conversations rebuilt from the messages rows they left (their row lost with a damaged table): the
 * latest revision's messages, the title from the first message, the dates from the messages, on the
 * platform `recovered`; queued, so the index worker makes their chunks again.
 */
export async function conversationsFromMessages(app: App, ids: string[]): Promise<void> {
  const { store } = app.context;
  const latest = new Map<string, TableRows["messages"]>();
  for (const row of await store.select("messages", { conversationId: ids })) {
    const known = latest.get(row.conversationId);
    if (!known || row.revision > known.revision) latest.set(row.conversationId, row);
  }
  const conversations: ConversationRow[] = [];
  for (const { conversationId, userId, revision, messagesJson } of latest.values()) {
    const messages = JSON.parse(messagesJson) as StoredMessage[];
    const importId = await importIdFor(app, userId, RECOVERED_PLATFORM);
    const row = rebuiltConversation(app, {
      id: conversationId,
      userId,
      platform: RECOVERED_PLATFORM,
      importId,
      revision,
      messages,
      status: "queued",
    });
    row.tokenCount = messages.reduce((sum, message) => sum + (message.tokens ?? 0), 0);
    conversations.push(row);
  }
  const current = conversations.map((row) => `${row.id}:${row.revision}`);
  await store.delete("messages", { conversationId: ids, id: { not: current } });
  await store.delete("chunks", { conversationId: ids });
  await store.add("conversations", conversations);
}

function rebuiltConversation(
  app: App,
  from: Pick<ConversationRow, "id" | "userId" | "platform" | "importId" | "revision" | "status"> & { messages: StoredMessage[] },
): ConversationRow {
  const now = app.context.now().toISOString();
  const times = from.messages.map((message) => message.timestamp).filter((time): time is string => Boolean(time));
  const first = from.messages.find((message) => message.text.trim() !== "")?.text.trim() ?? "";
  return {
    id: from.id,
    userId: from.userId,
    platform: from.platform,
    platformConversationId: from.id,
    importId: from.importId,
    title: first.length > 80 ? `${first.slice(0, 79)}…` : first || "Recovered conversation",
    createdAt: times[0] ?? now,
    updatedAt: times.at(-1) ?? now,
    status: from.status,
    statusReason: null,
    pinned: false,
    excluded: false,
    quotaBlocked: false,
    messageCount: from.messages.length,
    tokenCount: 0,
    contentHash: REBUILT_HASH,
    revision: from.revision,
    claimedAt: null,
    claimedBy: null,
    uploadedAt: now,
  };
}

function messagesRow(row: Pick<ConversationRow, "id" | "userId" | "revision">, messages: StoredMessage[]): TableRows["messages"] {
  return {
    id: `${row.id}:${row.revision}`,
    userId: row.userId,
    conversationId: row.id,
    revision: row.revision,
    messagesJson: JSON.stringify(messages),
  };
}

/** The user's import record for `platform`, made on first use when the platforms table has none. */
async function importIdFor(app: App, userId: string, platform: string): Promise<string> {
  const { store } = app.context;
  const [found] = await store.select("platforms", { userId, id: platform });
  if (found) return found.importId;
  const row = {
    userId,
    id: platform,
    displayName: platform === RECOVERED_PLATFORM ? "Rebuilt by mnemo doctor" : null,
    importId: newId("imp"),
    createdAt: app.context.now().toISOString(),
  };
  await store.add("platforms", [row]);
  return row.importId;
}

/**
 * Memories lost with their table, made again from their newest version: its text and bucket, the
 * dates of the first and last versions, an image memory's picture when its file is still there;
 * embedded again. The embedding runs first, outside the write lock: call it outside `write`.
 */
export async function memoriesFromHistory(app: App, ids: string[]): Promise<void> {
  const { store, images } = app.context;
  const versions = new Map<string, TableRows["memoryHistory"][]>();
  for (const row of await store.select("memoryHistory", { memoryId: ids }))
    versions.set(row.memoryId, [...(versions.get(row.memoryId) ?? []), row]);
  const rows: Omit<MemoryRow, "vector">[] = [];
  for (const [id, all] of versions) {
    const sorted = all.sort((a, b) => a.version - b.version);
    const newest = sorted.at(-1)!;
    const imageFile = await imageOf(images, `${newest.userId}/${id}`);
    rows.push({
      id,
      userId: newest.userId,
      bucketId: newest.bucketId,
      text: newest.text,
      contentType: imageFile ? "image" : "text",
      imageFile: imageFile ?? null,
      imageDescription: imageFile ? newest.text : null,
      source: null,
      version: newest.version,
      createdAt: sorted[0]!.changedAt,
      updatedAt: newest.changedAt,
    });
  }
  await embedAndStore(app, rows);
}

/** Memory rows embedded (outside the write lock, which a server's writes share) and stored by id. */
export async function embedAndStore(app: App, rows: Omit<MemoryRow, "vector">[]): Promise<void> {
  const { store, embedder } = app.context;
  const vectors = await embedder.embedDocuments(rows.map((row) => row.text));
  await store.write(() =>
    store.upsert(
      "memories",
      "id",
      rows.map((row, i) => ({ ...row, vector: vectors[i]! })),
    ),
  );
}

/** The name of an image memory's picture, by its memory's id, when it is still stored. */
async function imageOf(images: App["context"]["images"], stem: string): Promise<string | undefined> {
  for (const ext of ["png", "jpg", "gif", "webp"]) if (await images.localPath(`${stem}.${ext}`)) return `${stem}.${ext}`;
  return undefined;
}
