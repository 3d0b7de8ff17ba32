import type { Embedder } from "../../providers/embedder.js";
import type { ChunkRow, ConversationRow, StoredMessage } from "../../store/rows.js";
import type { Store } from "../../store/store.js";
import { loadTokenizer } from "../../text/tokens.js";
import { chunkConversation, chunkId, chunkRow } from "../chat-history/chunking.js";
import { readMessages } from "../chat-history/conversations.js";

/** Conversations re-chunked at a time, and their tokens at most (one alone may be larger): their messages and chunks are in memory together. */
const PAGE = 64;
const PAGE_TOKENS = 100_000;

type Conversation = Pick<ConversationRow, "id" | "userId" | "platform" | "revision" | "tokenCount">;
const CONVERSATION_COLUMNS = ["id", "userId", "platform", "revision", "tokenCount"];

export interface RechunkOptions {
  /** The live generation, read from, and the one being built. */
  from: number;
  to: number;
  /** Most tokens in one new chunk. */
  maxTokens: number;
  /** Embeds the new chunks. */
  embedder: Embedder;
  /** The old chunks' vectors are this embedder's too: a chunk whose text is unchanged keeps its vector. */
  sameEmbedder: boolean;
}

/**
 * Every conversation's chunks cut again at `maxTokens` into the new generation's chunks table,
 * from the messages they were cut from. Conversations keep their ids; only chunks are new. A
 * conversation whose chunks are of an earlier revision (re-uploaded, waiting for the index
 * worker) keeps those chunks as they are (embedded again for a new embedder): the worker replaces
 * them at the store's new size when it gets to it.
 */
export class Rechunker {
  /** Each conversation's live chunks (ids and whether active) as they were when it was re-chunked. */
  private readonly stamps = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly options: RechunkOptions,
  ) {}

  /** Re-chunks every conversation that has chunks, reporting conversations done of all. */
  async copyAll(onProgress: (done: number, total: number) => void): Promise<void> {
    const total = await this.store.count("conversations", {});
    let done = 0;
    for await (const rows of this.store.pagesById("conversations", { size: PAGE, columns: CONVERSATION_COLUMNS })) {
      const page = rows as Conversation[];
      for (const group of byTokens(page)) await this.redo(group);
      done += page.length;
      onProgress(done, total);
    }
  }

  /**
   * Call inside the store's write lock, before the switch: conversations whose live chunks changed
   * while we copied (uploaded, re-indexed, excluded, deleted, restored) are re-chunked again.
   */
  async catchUp(): Promise<void> {
    const { store, options } = this;
    const live = stampsOf(await store.selectIn("chunks", options.from, {}, { columns: ["id", "conversationId", "active"] }));
    const changed = [...new Set([...live.keys(), ...this.stamps.keys()])].filter((id) => live.get(id) !== this.stamps.get(id));
    for (let start = 0; start < changed.length; start += PAGE) {
      const ids = changed.slice(start, start + PAGE);
      await store.deleteIn("chunks", options.to, { conversationId: ids });
      const conversations = (await store.select("conversations", { id: ids }, { columns: CONVERSATION_COLUMNS })) as Conversation[];
      for (const group of byTokens(conversations)) await this.redo(group);
    }
  }

  /** The new chunks of these conversations, written to the new generation. */
  private async redo(conversations: Conversation[]): Promise<void> {
    const { store, options } = this;
    if (conversations.length === 0) return;
    const ids = conversations.map((c) => c.id);
    const old = byConversation(await store.selectIn("chunks", options.from, { conversationId: ids }));
    const chunked = conversations.filter((c) => old.has(c.id));
    for (const c of chunked) this.stamps.set(c.id, stampOf(old.get(c.id)!));
    // Chunks of the revision stored now are cut again from its messages; others are carried.
    const current = chunked.filter((c) => old.get(c.id)!.every((chunk) => chunk.id === chunkId(c, chunk.chunkIndex)));
    const messages = await readMessages({ store }, current);
    const tokenizer = await loadTokenizer();
    const rows: ChunkRow[] = [];
    for (const c of chunked) {
      const json = messages.get(c.id);
      const before = old.get(c.id)!;
      if (json === undefined) rows.push(...before);
      else {
        const drafts = chunkConversation(JSON.parse(json) as StoredMessage[], tokenizer, { maxTokens: options.maxTokens });
        rows.push(...drafts.map((draft) => chunkRow(c, before[0]!.active, draft, new Float32Array(0))));
      }
    }
    await store.addIn("chunks", options.to, await this.withVectors(rows, [...old.values()].flat()));
  }

  /** The rows with their vectors: an old chunk's, when the embedder is the same and the text unchanged; else embedded. */
  private async withVectors(rows: ChunkRow[], old: ChunkRow[]): Promise<ChunkRow[]> {
    const known = new Map(this.options.sameEmbedder ? old.map((chunk) => [chunk.text, chunk.vector]) : []);
    const fresh = [...new Set(rows.map((row) => row.text).filter((text) => !known.has(text)))];
    const vectors = await this.options.embedder.embedDocuments(fresh);
    fresh.forEach((text, i) => known.set(text, vectors[i]!));
    return rows.map((row) => ({ ...row, vector: known.get(row.text)! }));
  }
}

/** Consecutive groups of conversations of at most PAGE_TOKENS tokens together (a larger one alone). */
function byTokens(conversations: Conversation[]): Conversation[][] {
  const groups: Conversation[][] = [];
  let tokens = Infinity;
  for (const conversation of conversations) {
    if (tokens + conversation.tokenCount > PAGE_TOKENS) {
      groups.push([]);
      tokens = 0;
    }
    groups[groups.length - 1]!.push(conversation);
    tokens += conversation.tokenCount;
  }
  return groups;
}

function byConversation<C extends Pick<ChunkRow, "conversationId">>(chunks: C[]): Map<string, C[]> {
  const groups = new Map<string, C[]>();
  for (const chunk of chunks) {
    const group = groups.get(chunk.conversationId);
    if (group) group.push(chunk);
    else groups.set(chunk.conversationId, [chunk]);
  }
  return groups;
}

/** What catch-up compares: a conversation's chunk ids (which name its revision) and whether each is active. */
function stampOf(chunks: Pick<ChunkRow, "id" | "active">[]): string {
  return chunks
    .map((chunk) => `${chunk.id}@${chunk.active}`)
    .sort()
    .join(" ");
}

function stampsOf(chunks: Pick<ChunkRow, "id" | "conversationId" | "active">[]): Map<string, string> {
  return new Map([...byConversation(chunks)].map(([id, group]) => [id, stampOf(group)]));
}
