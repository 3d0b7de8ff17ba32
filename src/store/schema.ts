import type { DataType, Field, Schema } from "apache-arrow";
import { arrow } from "./arrow.js";

const { Binary, Bool, FixedSizeList, Float32, Int32, List, Utf8 } = arrow;

const text = (name: string, nullable = false) => new arrow.Field(name, new Utf8(), nullable);
const int = (name: string, nullable = false) => new arrow.Field(name, new Int32(), nullable);
const bool = (name: string) => new arrow.Field(name, new Bool(), false);
const bytes = (name: string) => new arrow.Field(name, new Binary(), false);
const vector = (dims: number) => new arrow.Field("vector", new FixedSizeList(dims, new arrow.Field("item", new Float32(), true)), false);
const strings = (name: string) => new arrow.Field(name, new List(new arrow.Field("item", new Utf8(), true)), false);
const ints = (name: string) => new arrow.Field(name, new List(new arrow.Field("item", new Int32(), true)), false);

export interface StoreMeta {
  schemaVersion: number;
  /** Identity of the model the vectors were made with. */
  embedderId: string;
  /** How to load that model again (`bundled`, `transformers:<id or folder>`). */
  embedderSpec: string;
  dims: number;
  /** Most tokens in one chunk of chat history: the chunk size the store's conversations were cut at. */
  chunkTokens: number;
  /** Which set of vector tables is live; `mnemo reindex` builds the next one beside it. */
  generation: number;
}

/** Every store made before its meta recorded the chunk size was chunked at this many tokens. */
export const CHUNK_TOKENS_UNRECORDED = 192;

/** What the live vector tables were made with: the embedder, and the chunk size of the chat history. */
export type StoreMade = Pick<StoreMeta, "embedderId" | "embedderSpec" | "dims" | "chunkTokens">;

/** Table names as they are on disk. Vector tables get a suffix per embedding generation (see reindex). */
export const TABLE = {
  meta: "meta",
  users: "users",
  buckets: "buckets",
  memories: "memories",
  memoryHistory: "memory_history",
  platforms: "platforms",
  conversations: "conversations",
  messages: "conversation_messages",
  chunks: "chunks",
  /** The bytes of image memories, for a store on object storage (store/image-bytes.ts). */
  images: "images",
  /** What was moved to the trash, each item as its export record, kept 30 days (core/trash/). */
  trash: "trash",
} as const;
export type TableKey = keyof typeof TABLE;
export const VECTOR_TABLES = ["memories", "chunks"] as const satisfies readonly TableKey[];
export type VectorTableKey = (typeof VECTOR_TABLES)[number];

const plainSchemas: Record<Exclude<TableKey, VectorTableKey>, Field<DataType>[]> = {
  meta: [text("key"), text("value")],
  users: [text("id"), text("name"), text("tokenHash", true), text("createdAt")],
  buckets: [text("userId"), int("id"), text("name"), text("description", true), text("createdAt")],
  memoryHistory: [text("id"), text("userId"), text("memoryId"), int("version"), text("text"), int("bucketId"), text("changedAt")],
  platforms: [text("userId"), text("id"), text("displayName", true), text("importId"), text("createdAt")],
  conversations: [
    text("id"),
    text("userId"),
    text("platform"),
    text("platformConversationId"),
    text("importId"),
    text("title"),
    text("createdAt"),
    text("updatedAt"),
    text("status"),
    text("statusReason", true),
    bool("pinned"),
    bool("excluded"),
    bool("quotaBlocked"),
    int("messageCount"),
    int("tokenCount"),
    text("contentHash"),
    int("revision"),
    text("claimedAt", true),
    text("claimedBy", true),
    text("uploadedAt"),
  ],
  messages: [text("id"), text("userId"), text("conversationId"), int("revision"), text("messagesJson")],
  images: [text("file"), text("userId"), bytes("data")],
  trash: [text("id"), text("userId"), text("kind"), text("itemId"), text("title"), text("detail"), text("deletedAt"), text("entryJson")],
};

function vectorSchema(key: VectorTableKey, dims: number): Field<DataType>[] {
  if (key === "memories") {
    return [
      text("id"),
      text("userId"),
      int("bucketId"),
      text("text"),
      text("contentType"),
      text("imageFile", true),
      text("imageDescription", true),
      text("source", true),
      int("version"),
      text("createdAt"),
      text("updatedAt"),
      vector(dims),
    ];
  }
  return [
    text("id"),
    text("userId"),
    text("conversationId"),
    text("platform"),
    int("chunkIndex"),
    text("text"),
    text("sender"),
    strings("messageIds"),
    ints("messageOffsets"),
    strings("messageTimes"),
    strings("messageSenders"),
    text("timestamp", true),
    int("tokenCount"),
    bool("active"),
    vector(dims),
  ];
}

export function tableSchema(key: TableKey, dims: number): Schema {
  const fields = key === "memories" || key === "chunks" ? vectorSchema(key, dims) : plainSchemas[key];
  return new arrow.Schema(fields);
}
