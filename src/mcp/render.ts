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
import { chatAppNames, probablyUnrelated } from "../core/index.js";
import { cutText, shownId } from "../text/cut-text.js";
import { periodWords } from "../shared/time.js";
import { awaitingIndex, nothingImported } from "../schemas/queue-counts.js";
import { startsWithItsDate } from "../text/memory-date.js";
import { memoriesInView } from "./paging.js";

/** Neighbouring messages are cut to this in the text. */
const CONTEXT_CHARS = 200;
/**
 * The passages of a search are listed while their text stays under this many characters (about
 * 2,000 tokens of English, less in most other scripts): clients warn at 10k tokens and cut at 25k,
 * and an assistant needs a few good passages, not twenty.
 */
const SEARCH_TEXT_CHARS = 7_000;

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : "no date");
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/**
 * A conversation's title on one line: it comes from the imported export, and a line break in it
 * would start what reads as a line of mnemo's own ("Fix: …", "[2] …"). Cut at TITLE_CHARS, as an
 * upload takes up to 1,000: a list of 25 such titles was ~6,000 tokens (the structured result keeps it whole).
 */
const TITLE_CHARS = 200;
const titleOf = (title: string | null | undefined) =>
  title ? cutText(title.replace(/\s+/g, " ").trim(), TITLE_CHARS) || "Untitled" : "Untitled";
/** A query as the text repeats it: the model sent it, so a long one need not come back whole. */
const quoted = (query: string) => JSON.stringify(cutText(query, 200));

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

/**
 * A memory's text in a list is cut past this many characters: memories are short as a rule, but one
 * may hold 20,000, and twelve such made a search ~25k tokens, past where clients cut. memory_history
 * gives the text whole.
 */
const MEMORY_TEXT_CHARS = 1_500;

function memoryBody(memory: MemoryObject): string {
  if (memory.content_type !== "image") return memoryText(memory).replace(/\n/g, "\n   ");
  return `[image] ${memory.image_description ?? memory.text}${memory.image_url ? ` (${memory.image_url})` : ""}`;
}

function memoryText(memory: MemoryObject): string {
  const { text } = memory;
  if (text.length <= MEMORY_TEXT_CHARS) return text;
  const cut = cutText(text, MEMORY_TEXT_CHARS);
  const rest = text.length - cut.length;
  return `${cut}\n[${rest.toLocaleString("en")} more characters: memory_history ${memory.id ?? ""} gives the whole text, as its last version]`;
}

/**
 * The memories with each text as the list shows it, cut past MEMORY_TEXT_CHARS: for the structured
 * result, which some clients hand the model instead of the text (three memories of 16,000 characters
 * were ~14k tokens there beside ~1.2k of text).
 */
export function withMemoryTextsCut(result: V2MemoryResponse): V2MemoryResponse {
  const cut = (memory: V2MemoryResponse["memories"][number]) =>
    typeof memory === "string" || memory.content_type === "image" ? memory : { ...memory, text: memoryText(memory) };
  return { ...result, memories: result.memories.map(cut) };
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
  const related = result.memories.filter((memory) => typeof memory === "string" || !probablyUnrelated(memory.score));
  if (related.length === 0) {
    return `Nothing found: no saved memory is about ${quoted(query)}. The closest, probably unrelated (do not present them as an answer):\n${memoryLines(result.memories)}`;
  }
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
      `- version ${v.version} · ${v.changedAt.slice(0, 16).replace("T", " ")} · bucket ${v.bucketId} ${v.bucketName === undefined ? "(deleted)" : JSON.stringify(v.bucketName)}\n   ${v.text.replace(/\n/g, "\n   ")}`,
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
  return `${done} ${plural(changed.length, "conversation")}${changed.length ? `: ${changed.join(", ")}` : ""}.${unknown.length ? ` Not found: ${unknown.map((id) => shownId(id)).join(", ")}.` : ""}`;
}

export function renderUpdate(result: UpdateMemoryResponse): string {
  if (result.memory) {
    const { id, version, bucketId, text } = result.memory;
    return `Updated ${id}: version ${version}, bucket ${bucketId}.\n${text}`;
  }
  return `Moved ${plural(result.updated ?? 0, "memory", "memories")} to bucket ${result.bucketId} (memories already there are not counted).`;
}

/**
 * What a delete did, and the ids it found nothing for (the API skips them, only its count lower):
 * "Deleted 0 memories." alone left a model unsure whether the memory was still there. Which ids
 * those were is known only when none was deleted.
 */
/** Ids named in a line: a few, each cut, and how many more (a model may send a thousand). */
const NAMED_IDS = 10;
function someIds(ids: string[]): string {
  const named = ids
    .slice(0, NAMED_IDS)
    .map((id) => shownId(id))
    .join(", ");
  return ids.length > NAMED_IDS ? `${named} and ${ids.length - NAMED_IDS} more` : named;
}

export function renderDelete(result: BulkDeleteResponse, asked: string[]): string {
  const errors = result.errors.map((e) => `\n- ${shownId(e.memoryId)}: ${e.error}`).join("");
  const refused = new Set(result.errors.map((e) => e.memoryId));
  const looked = [...new Set(asked)].filter((id) => !refused.has(id));
  const skipped = looked.length - result.deletedCount;
  const notFound =
    skipped <= 0
      ? ""
      : result.deletedCount === 0
        ? ` Not found (deleted before, or never stored): ${someIds(looked)}.`
        : ` ${skipped === 1 ? "1 id was" : `${skipped} ids were`} not found (deleted before, or never stored).`;
  return `Deleted ${plural(result.deletedCount, "memory", "memories")}.${notFound}${errors ? ` Not deleted:${errors}` : ""}`;
}

export function renderRecall(result: RecallResponse): string {
  if (!result.content) return "Nothing fitted in maxTokens: ask again with a larger maxTokens.";
  const sources = result.sources.map(
    (s, i) =>
      `[${i + 1}] ${titleOf(s.conversationTitle)} · ${day(s.date)} · ${s.sender} · conversation ${s.conversationId} · message ${s.messageId}`,
  );
  // Several queries that found nothing still have content (a "nothing found" line per query), but no sources.
  return sources.length ? `${result.content}\n\nSources:\n${sources.join("\n")}` : result.content;
}

export function renderSearch(result: SearchResponse, period: { dateFrom?: string | undefined; dateTo?: string | undefined } = {}): string {
  const hidden = result.results.some((hit) => hit.probablyUnrelated) ? 0 : result.unrelatedResults;
  const left = hidden > 0 ? ` (${plural(hidden, "passage")} scored as probably unrelated ${hidden === 1 ? "was" : "were"} left out)` : "";
  const when = periodWords(period.dateFrom, period.dateTo);
  if (result.results.length === 0) {
    return `Nothing found: no passage in the chat history${when ? ` ${when}` : ""} is about ${quoted(result.query)}${left}.`;
  }
  const hits: string[] = [];
  let chars = 0;
  for (const [i, hit] of result.results.entries()) {
    const text = renderHit(hit, i);
    if (hits.length > 0 && chars + text.length > SEARCH_TEXT_CHARS) break;
    hits.push(text);
    chars += text.length;
  }
  const more = result.results.length - hits.length;
  const rest =
    more > 0
      ? `\n\n${plural(more, "more passage")} not shown, to keep this short: search with other words, or read a conversation with get_full_conversation.`
      : "";
  return `${plural(result.totalResults, "passage")} for ${quoted(result.query)}, most relevant first${left} (┆ marks neighbouring messages):\n${hits.join("\n\n")}${rest}`;
}

function renderHit(hit: SearchResponse["results"][number], i: number): string {
  const around = (position: "before" | "after") =>
    hit.context
      .filter((c) => c.position === position)
      .map((c) => `   ┆ ${c.sender}: ${cutText(c.text, CONTEXT_CHARS).replace(/\n/g, " ")}`);
  const score = `score ${hit.score.toFixed(2)}${hit.probablyUnrelated ? " (probably unrelated)" : ""}`;
  return [
    `${i + 1}. ${titleOf(hit.title)} · ${day(hit.timestamp)} · ${hit.sender} · ${score} · conversation ${hit.conversationId} · message ${hit.messageId}`,
    ...around("before"),
    ...hit.parts.map((part) => `   ${part.sender}: ${part.text.replace(/\n/g, "\n   ")}`),
    ...around("after"),
  ].join("\n");
}

export function renderConversationList(result: ListChatsResponse): string {
  if (result.total === 0) return "No conversations match.";
  const items = result.items.map(
    (c) =>
      `- ${c.id} · ${JSON.stringify(cutText(c.title, TITLE_CHARS))} · ${c.platform} · ${day(c.createdAt)} to ${day(c.updatedAt)} · ${plural(c.messageCount, "message")}${c.pinned ? " · pinned" : ""}${c.status === "ready" ? "" : ` · ${c.status}`}${c.excluded ? " · excluded" : ""}`,
  );
  const next = result.page < result.totalPages ? `\nNext: page ${result.page + 1}.` : "";
  return `Page ${result.page} of ${result.totalPages} (${plural(result.total, "conversation")}):\n${items.join("\n")}${next}`;
}

export function renderConversation(c: ConversationDetail, offset = 0): string {
  const header = `# ${titleOf(c.title)}\n${c.id} · ${c.platformDisplayName ?? c.platform} · ${day(c.createdAt)} to ${day(c.updatedAt)} · ${plural(c.total, "message")} · ${c.status}`;
  const messages = c.messages.map(
    (m) =>
      `[${m.message_index + 1}] ${m.sender}${m.timestamp ? ` · ${m.timestamp}` : ""}\n${m.text}${m.cutFromTokens ? `\n(cut: this message is ${m.cutFromTokens} tokens long)` : ""}`,
  );
  const first = c.messages[0]?.message_index ?? offset;
  const page =
    c.nextOffset !== undefined
      ? `Messages ${first + 1}–${c.nextOffset} of ${c.total}. The rest: get_full_conversation with offset ${c.nextOffset}.`
      : first > 0
        ? `Messages ${first + 1}–${c.total} of ${c.total}: the end of the conversation.`
        : undefined;
  if (c.messages.length === 0)
    return `${header}\n\nNo messages from offset ${first} on: the conversation has ${plural(c.total, "message")}.`;
  return [header, ...messages, ...(page ? [page] : [])].join("\n\n");
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
const NOTHING_IMPORTED =
  "Note: the user has imported no chat history yet, so there is nothing to search; they can import a chat app's export with `mnemo import <file>` or the web app's Import page.";

export function pendingNote(counts: QueueStatus["counts"]): string | undefined {
  // A new user's store: "nothing found" alone would be told to them as "you never talked about it".
  if (nothingImported(counts)) return NOTHING_IMPORTED;
  const pending = awaitingIndex(counts);
  if (pending === 0) return undefined;
  return `Note: ${plural(pending, "conversation")} ${pending === 1 ? "is" : "are"} still being indexed and not searched yet; try again in a minute, or see chat_history_overview.`;
}
