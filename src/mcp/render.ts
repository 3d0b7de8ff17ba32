/**
 * Tool results as a model reads them best: plain lines that carry every id a follow-up call needs,
 * beside the structured result. Many clients hand the model only this text part.
 */
import type {
  Bucket,
  BulkDeleteResponse,
  DeleteBucketResponse,
  MemoryHistoryResponse,
  MemoryObject,
  RenameBucketResponse,
  StoreMemoryResponse,
  UpdateMemoryResponse,
  V2MemoryResponse,
} from "../schemas/memories.js";
import type { ChatHistoryOverview, ConversationDetail, ListChatsResponse, QueueStatus } from "../schemas/chat-history.js";
import type { RecallResponse, SearchResponse } from "../schemas/recall.js";
import { chatAppNames } from "../core/index.js";
import { startsWithItsDate } from "../text/memory-date.js";
import { probablyUnrelated } from "../text/relevance.js";
import { memoriesInView } from "./paging.js";

/** Neighbouring chunks are cut to this in the text (the structured result has them whole). */
const CONTEXT_CHARS = 300;

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : "no date");
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const clip = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);
/**
 * A conversation's title on one line: it comes from the imported export, and a line break in it
 * would start what reads as a line of mnemo's own ("Fix: …", "[2] …").
 */
const titleOf = (title: string | null | undefined) => (title ? title.replace(/\s+/g, " ").trim() || "Untitled" : "Untitled");
/** A query as the text repeats it: the model sent it, so a long one need not come back whole. */
const quoted = (query: string) => JSON.stringify(clip(query, 200));

/** Numbered from `first` (a page's first memory is not the first memory). */
export function memoryLines(memories: V2MemoryResponse["memories"], first = 1): string {
  return memories
    .map((memory, i) => {
      if (typeof memory === "string") return `${first + i}. ${memory}`;
      return `${first + i}. ${memoryHeader(memory)}\n   ${memoryBody(memory)}`;
    })
    .join("\n");
}

function memoryHeader(memory: MemoryObject): string {
  const { metadata } = memory;
  const score =
    memory.score === undefined
      ? ""
      : ` · score ${memory.score.toFixed(2)}${probablyUnrelated(memory.score) ? " (probably unrelated)" : ""}`;
  // The date once (text/memory-date.ts): a text that starts with its day needs no second one.
  const date = startsWithItsDate(memory.text, metadata.createdAt) ? "" : ` · ${day(metadata.createdAt)}`;
  return `${memory.id ?? "?"} · bucket ${metadata.bucketId} ${JSON.stringify(metadata.bucketName)}${date}${score}`;
}

function memoryBody(memory: MemoryObject): string {
  if (memory.content_type !== "image") return memory.text.replace(/\n/g, "\n   ");
  return `[image] ${memory.image_description ?? memory.text}${memory.image_url ? ` (${memory.image_url})` : ""}`;
}

export function bucketLines(buckets: Bucket[]): string {
  return buckets
    .map(
      (b) =>
        `- ${b.id} ${JSON.stringify(b.name)} · ${plural(b.memoryCount, "memory", "memories")}${b.description ? ` · ${b.description}` : ""}`,
    )
    .join("\n");
}

export function renderMemorySearch(query: string, result: V2MemoryResponse): string {
  if (result.memories.length === 0) return `No saved memory matches ${quoted(query)}.`;
  return `${plural(result.memories.length, "memory", "memories")} for ${quoted(query)}, best first:\n${memoryLines(result.memories)}`;
}

/** A page of memories (a page past the end is the tool's error, paging.ts), and where the next one starts. */
export function renderMemoriesAndBuckets(result: V2MemoryResponse, args: Parameters<typeof memoriesInView>[1] & { skip: number }): string {
  const buckets = `Buckets:\n${bucketLines(result.buckets)}`;
  if (result.memories.length === 0) return `No memories here.\n\n${buckets}`;
  const total = memoriesInView(result, args);
  const last = args.skip + result.memories.length;
  const range = `${args.skip + 1}–${last}${total === undefined ? "" : ` of ${total}`}`;
  const more = total === undefined ? "" : last < total ? `\nMore: skip ${last}.` : "";
  return `Memories ${range}, newest first:\n${memoryLines(result.memories, args.skip + 1)}${more}\n\n${buckets}`;
}

export function renderStored(result: StoreMemoryResponse): string {
  if (result.done === "ok" || !result.similar) return `Stored as ${result.memoryId}.`;
  const { text, bucketId, createdAt, similarity } = result.similar;
  return [
    `Not stored: ${result.memoryId} (bucket ${bucketId}, ${day(createdAt)}) already says nearly the same (similarity ${similarity.toFixed(2)}):`,
    `   ${text.replace(/\n/g, "\n   ")}`,
    `To change it, call update_or_move_memories with memoryId ${result.memoryId} and the new text (its old version is kept); to keep both, call store_memory again with ifSimilar "store".`,
  ].join("\n");
}

export function renderHistory(result: MemoryHistoryResponse, skip = 0): string {
  const versions = result.versions.map(
    (v) =>
      `- version ${v.version} · ${v.changedAt.slice(0, 16).replace("T", " ")} · bucket ${v.bucketId}\n   ${v.text.replace(/\n/g, "\n   ")}`,
  );
  const last = skip + result.versions.length;
  const range =
    result.versions.length === result.total ? plural(result.total, "version") : `versions ${skip + 1}–${last} of ${result.total}`;
  const more = last < result.total ? `\nMore: skip ${last}.` : "";
  return `${result.memoryId}: ${range}, oldest first:\n${versions.join("\n")}${more}`;
}

export function renderBucketRenamed(result: RenameBucketResponse): string {
  const { id, name, description } = result.bucket;
  return `Bucket ${id} is now ${JSON.stringify(name)}${description ? ` · ${description}` : ""}.`;
}

export function renderBucketDeleted(result: DeleteBucketResponse): string {
  return `Deleted bucket ${result.bucketId}; ${plural(result.movedMemories, "memory", "memories")} moved to bucket ${result.movedTo}.`;
}

/** What pin_conversations, exclude_conversations and delete_conversations did, and the ids that are no conversation of the user's. */
export function renderConversationChange(done: string, changed: string[], asked: string[]): string {
  const unknown = [...new Set(asked)].filter((id) => !changed.includes(id));
  return `${done} ${plural(changed.length, "conversation")}${changed.length ? `: ${changed.join(", ")}` : ""}.${unknown.length ? ` Not found: ${unknown.join(", ")}.` : ""}`;
}

export function renderUpdate(result: UpdateMemoryResponse): string {
  if (result.memory) {
    const { id, version, bucketId, text } = result.memory;
    return `Updated ${id}: version ${version}, bucket ${bucketId}.\n${text}`;
  }
  return `Moved ${plural(result.updated ?? 0, "memory", "memories")} to bucket ${result.bucketId} (memories already there are not counted).`;
}

export function renderDelete(result: BulkDeleteResponse): string {
  const errors = result.errors.map((e) => `\n- ${e.memoryId}: ${e.error}`).join("");
  return `Deleted ${plural(result.deletedCount, "memory", "memories")}.${errors ? ` Not deleted:${errors}` : ""}`;
}

export function renderRecall(result: RecallResponse): string {
  if (!result.content) return "Nothing in the chat history answers this, or nothing fitted in maxTokens.";
  const sources = result.sources.map(
    (s, i) =>
      `[${i + 1}] ${titleOf(s.conversationTitle)} · ${day(s.date)} · ${s.sender} · conversation ${s.conversationId} · message ${s.messageId}`,
  );
  // Several queries that found nothing still have content (a "nothing found" line per query), but no sources.
  return sources.length ? `${result.content}\n\nSources:\n${sources.join("\n")}` : result.content;
}

export function renderSearch(result: SearchResponse): string {
  if (result.results.length === 0) return `No passage in the chat history matches ${quoted(result.query)}.`;
  const hits = result.results.map((hit, i) => {
    const around = (position: "before" | "after") =>
      hit.context.filter((c) => c.position === position).map((c) => `   ┆ ${c.sender}: ${clip(c.text, CONTEXT_CHARS).replace(/\n/g, " ")}`);
    return [
      `${i + 1}. ${titleOf(hit.title)} · ${day(hit.timestamp)} · ${hit.sender} · score ${hit.score.toFixed(2)} · conversation ${hit.conversationId}`,
      ...around("before"),
      ...hit.parts.map((part) => `   ${part.sender}: ${part.text.replace(/\n/g, "\n   ")}`),
      ...around("after"),
    ].join("\n");
  });
  return `${plural(result.totalResults, "passage")} for ${quoted(result.query)}, best first (┆ marks neighbouring messages):\n${hits.join("\n\n")}`;
}

export function renderConversationList(result: ListChatsResponse): string {
  if (result.total === 0) return "No conversations match.";
  const items = result.items.map(
    (c) =>
      `- ${c.id} · ${JSON.stringify(c.title)} · ${c.platform} · ${day(c.createdAt)} to ${day(c.updatedAt)} · ${plural(c.messageCount, "message")}${c.pinned ? " · pinned" : ""}${c.status === "ready" ? "" : ` · ${c.status}`}${c.excluded ? " · excluded" : ""}`,
  );
  const next = result.page < result.totalPages ? `\nNext: page ${result.page + 1}.` : "";
  return `Page ${result.page} of ${result.totalPages} (${plural(result.total, "conversation")}):\n${items.join("\n")}${next}`;
}

export function renderConversation(c: ConversationDetail): string {
  const header = `# ${titleOf(c.title)}\n${c.id} · ${c.platformDisplayName ?? c.platform} · ${day(c.createdAt)} to ${day(c.updatedAt)} · ${plural(c.total, "message")} · ${c.status}`;
  const messages = c.messages.map((m) => `[${m.message_index + 1}] ${m.sender}${m.timestamp ? ` · ${m.timestamp}` : ""}\n${m.text}`);
  return [header, ...messages].join("\n\n");
}

export function renderOverview(o: ChatHistoryOverview): string {
  // Nothing to search yet: what would change that is the user's to do, outside the conversation.
  if (o.conversations === 0) {
    return `No chat history yet: nothing to search or recall. The user can import exports from ${chatAppNames("or")} on the Import page of mnemo's web app, or with \`mnemo import <file>\`.`;
  }
  const span = o.firstAt && o.lastAt ? `, from ${day(o.firstAt)} to ${day(o.lastAt)}` : "";
  const platforms = o.platforms.map(
    (p) =>
      `- ${p.displayName ? `${p.displayName} (${p.platform})` : p.platform}: ${plural(p.conversations, "conversation")}, ${plural(p.messages, "message")}, ${day(p.firstAt)} to ${day(p.lastAt)}`,
  );
  const q = o.queue.counts;
  const queue = `Processing: ${q.ready} ready, ${q.queued} queued, ${q.processing} processing, ${q.failed} failed, ${q.rejected} rejected (over 100,000 tokens); ${q.quotaBlocked} quota-blocked, ${q.excluded} excluded.`;
  const stalled = o.queue.stalled
    ? `\nStalled: ${o.queue.stalled.reason}${o.queue.stalled.suggestion ? ` ${o.queue.stalled.suggestion}` : ""}`
    : "";
  return `${plural(o.conversations, "conversation")}, ${plural(o.messages, "message")}${span}.\n${platforms.join("\n")}${platforms.length ? "\n" : ""}${queue}${stalled}`;
}

/** Said beside search and recall results while conversations wait to be indexed (they are not searched until then). */
export function pendingNote(counts: QueueStatus["counts"]): string | undefined {
  const pending = counts.queued + counts.processing;
  if (pending === 0) return undefined;
  return `Note: ${plural(pending, "conversation")} ${pending === 1 ? "is" : "are"} still being indexed and not searched yet; try again in a minute, or see chat_history_overview.`;
}
