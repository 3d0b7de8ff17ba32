/** Rows as the store holds them. Dates are ISO 8601 strings in UTC, so they sort as text. */

export interface UserRow {
  id: string;
  name: string;
  tokenHash: string | null;
  createdAt: string;
}

export interface BucketRow {
  userId: string;
  id: number;
  name: string;
  description: string | null;
  createdAt: string;
}

export type ContentType = "text" | "image";

export interface MemoryRow {
  id: string;
  userId: string;
  bucketId: number;
  text: string;
  contentType: ContentType;
  imageFile: string | null;
  imageDescription: string | null;
  source: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  vector: Float32Array;
}

export interface MemoryHistoryRow {
  id: string;
  userId: string;
  memoryId: string;
  version: number;
  text: string;
  bucketId: number;
  changedAt: string;
}

export interface PlatformRow {
  userId: string;
  id: string;
  displayName: string | null;
  importId: string;
  createdAt: string;
}

export type ConversationStatus = "queued" | "processing" | "ready" | "failed" | "rejected";

export interface ConversationRow {
  id: string;
  userId: string;
  platform: string;
  platformConversationId: string;
  importId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  status: ConversationStatus;
  statusReason: string | null;
  pinned: boolean;
  excluded: boolean;
  quotaBlocked: boolean;
  messageCount: number;
  tokenCount: number;
  /** Hash of title + messages: an upload with the same hash changes nothing. */
  contentHash: string;
  /** Bumped on every content change; processing commits only if it is unchanged. */
  revision: number;
  /** When a worker took it for processing; a claim older than the lease may be taken over. */
  claimedAt: string | null;
  /** `<host>:<pid>` of the process that claimed it, so a dead claimer's work is taken over at once. */
  claimedBy: string | null;
  uploadedAt: string;
}

/**
 * A conversation's messages at one revision. Kept apart from the conversation row so that status
 * and flag changes, which LanceDB applies by rewriting whole rows, do not rewrite the messages.
 */
export interface MessagesRow {
  /** `<conversation id>:<revision>` (see messagesRowId). */
  id: string;
  userId: string;
  conversationId: string;
  revision: number;
  /** JSON of StoredMessage[], in conversation order. */
  messagesJson: string;
}

export function messagesRowId(conversation: Pick<ConversationRow, "id" | "revision">): string {
  return `${conversation.id}:${conversation.revision}`;
}

export type Sender = "human" | "assistant";

/** One message of a conversation, as kept in MessagesRow.messagesJson. */
export interface StoredMessage {
  /** The caller's message id. */
  id: string;
  sender: Sender;
  text: string;
  timestamp: string | null;
  /** Tokens of the text as chunked (see chunking's messageTokens), counted once at upload. Absent in older stores. */
  tokens?: number;
}

export interface ChunkRow {
  id: string;
  userId: string;
  conversationId: string;
  platform: string;
  chunkIndex: number;
  text: string;
  sender: Sender;
  messageIds: string[];
  /** Where each of `messageIds` starts in `text` (character offsets). */
  messageOffsets: number[];
  /** Each message's time (ISO 8601), or "" when it has none. */
  messageTimes: string[];
  messageSenders: Sender[];
  timestamp: string | null;
  tokenCount: number;
  /** False while the conversation is excluded: search filters on it. */
  active: boolean;
  vector: Float32Array;
}

/** An image memory's bytes, by the `imageFile` name its memory row holds (`<user id>/<memory id>.<ext>`). */
export interface ImageRow {
  file: string;
  userId: string;
  data: Uint8Array;
}

/**
 * An item moved to the trash: a memory or a conversation as its export record (core/jobs/export.ts)
 * with what restoring it needs, kept until restored, deleted for good, or 30 days old.
 */
export interface TrashRow {
  /** `trs_…` */
  id: string;
  userId: string;
  kind: "memory" | "conversation";
  /** The memory's or conversation's own id, which a restore gives it back. */
  itemId: string;
  /** What the trash lists it by: the conversation's title, the memory's text (cut short). */
  title: string;
  /** A line beside it: the bucket, or the platform and message count. */
  detail: string;
  deletedAt: string;
  /** JSON of core/trash's TrashEntry. */
  entryJson: string;
}

export interface TableRows {
  meta: { key: string; value: string };
  users: UserRow;
  buckets: BucketRow;
  memories: MemoryRow;
  memoryHistory: MemoryHistoryRow;
  platforms: PlatformRow;
  conversations: ConversationRow;
  messages: MessagesRow;
  chunks: ChunkRow;
  images: ImageRow;
  trash: TrashRow;
}
