import { parseInput } from "../../schemas/parse.js";
import { SearchRequest, type SearchResponse, type SearchResult } from "../../schemas/recall.js";
import type { ChunkRow } from "../../store/rows.js";
import { hybridSearch, type Hit, type SearchMode } from "./hybrid-search.js";
import { PASSAGE_THRESHOLD, passageRelevance, queryEvidence } from "./passage-relevance.js";
import { readByModel } from "./read-by-model.js";
import { unrelatedSimilarity } from "./unrelated-similarity.js";
import { textWords } from "../../text/word-rarity.js";
import { messagesOf, type ChunkMessage } from "../chat-history/chunking.js";
import type { CoreContext } from "../context.js";
import { isAppError } from "../../shared/errors.js";
import { checkProvider } from "../chat-history/provider.js";
import { rankByQuery } from "./passage-ranking.js";
import { chunksWithin, periodOf, type Period } from "./period.js";

/** What search and recall read of a chunk (a search reads each column of each hit on its own). */
const CHUNK_COLUMNS = [
  "id",
  "conversationId",
  "chunkIndex",
  "text",
  "sender",
  "timestamp",
  "messageIds",
  "messageOffsets",
  "messageTimes",
  "messageSenders",
] as const satisfies readonly (keyof ChunkRow)[];

export type ChunkSummary = Pick<ChunkRow, (typeof CHUNK_COLUMNS)[number]>;

export interface ChunkHit {
  chunk: ChunkSummary;
  /** How relevant it is, in [0, 1], on passage-relevance.ts's one scale (under PASSAGE_THRESHOLD: probably unrelated). */
  score: number;
  /** Cosine similarity to the query vector. */
  similarity: number;
  /** The legs' fused score (this query's own scale, best 1): an order, where relevance saturates. */
  fused: number;
  vector: Float32Array | undefined;
}

export interface SearchTimings {
  embeddingMs: number;
  storeMs: number;
  rerankMs: number;
}

export interface ChunkQuery {
  query: string;
  /** The query vector, when the caller already has it (recall blends in the conversation context). */
  vector?: Float32Array;
  limit: number;
  provider: string;
  /** Only chunks said within it. */
  period?: Period | undefined;
  rerank: boolean;
  mode?: SearchMode;
  withVectors?: boolean;
  /** Keep the fused order when the reranker fails (and say why in `rerankFailure`) instead of failing. */
  keepOrderIfRerankFails?: boolean;
}

export interface ChunkSearch {
  /** Most relevant first (in the reranker's order when one ran). */
  hits: ChunkHit[];
  timings: SearchTimings;
  /** Why the reranker did not run, with `keepOrderIfRerankFails`: e.g. its endpoint could not be reached. */
  rerankFailure?: { reranker: string; reason: string };
  /** The title and start of each hit's conversation (read to score the hits, which count a title's words). */
  titles: Map<string, TitleRow>;
}

/** How many fused candidates a reranker gets to reorder. */
const RERANK_CANDIDATES = 50;
/**
 * The fused candidates every search scores, whatever its limit: the query's evidence (the words
 * and names found in the store, passage-relevance.ts) comes from them, so a hit scores the same
 * in a search for 1 as in a search for 100.
 */
const SCORED_CANDIDATES = 20;

/**
 * Hybrid (vector + BM25) search over the user's active chunks: the legs fused on their scores
 * pick the candidates, each scored by how relevant it is (passage-relevance.ts) and ranked by that
 * score; optionally reranked.
 */
export async function findChunks(ctx: CoreContext, userId: string, query: ChunkQuery): Promise<ChunkSearch> {
  const timings: SearchTimings = { embeddingMs: 0, storeMs: 0, rerankMs: 0 };
  let started = performance.now();
  const [vector, , reranker, unrelated, excluded, within] = await Promise.all([
    query.vector ?? ctx.embedder.embedQuery(query.query),
    checkProvider(ctx, userId, query.provider),
    query.rerank ? ctx.reranker() : undefined,
    unrelatedSimilarity(ctx.embedder),
    hasExcluded(ctx, userId),
    query.period ? chunksWithin(ctx, userId, query.period) : {},
  ]);
  timings.embeddingMs = performance.now() - started;

  started = performance.now();
  const fetch = Math.max(query.limit, SCORED_CANDIDATES, reranker ? RERANK_CANDIDATES : 0);
  const found = await hybridSearch(ctx.store, "chunks", {
    vector,
    text: query.query,
    where: {
      userId,
      active: excluded ? true : undefined,
      platform: query.provider === "all" ? undefined : query.provider,
      ...within,
    },
    limit: fetch,
    // LoCoMo, all questions: R@5 0.61 → 0.66 over RRF, and more evidence in recall's budget.
    fusion: "scores",
    exact: true,
    ...(query.mode ? { mode: query.mode } : {}),
    ...(query.withVectors ? { withVectors: true } : {}),
    columns: CHUNK_COLUMNS,
  });
  const titles = await conversationTitles(
    ctx,
    found.map((hit) => hit.row.conversationId),
  );
  timings.storeMs = performance.now() - started;
  let hits = scoreHits(query.query, found, titles, unrelated, readByModel(ctx.embedder.id));
  if (!reranker || hits.length < 2) return { hits: hits.slice(0, query.limit), timings, titles };

  started = performance.now();
  let rerankFailure: ChunkSearch["rerankFailure"];
  try {
    const scores = await reranker.rerank(
      query.query,
      hits.map((hit) => hit.chunk.text),
    );
    // The reranker orders; the score stays on the one scale, which its own does not share.
    hits = hits
      .map((hit, i) => ({ hit, order: scores[i]! }))
      .sort((a, b) => b.order - a.order)
      .map(({ hit }) => hit);
  } catch (error) {
    if (!query.keepOrderIfRerankFails || !isAppError(error)) throw error;
    rerankFailure = { reranker: reranker.id, reason: error.message };
  }
  timings.rerankMs = performance.now() - started;
  return { hits: hits.slice(0, query.limit), timings, titles, ...(rerankFailure ? { rerankFailure } : {}) };
}

/**
 * The fused hits scored on the one scale, most relevant first; hits within a hundredth of each
 * other keep the fused order, which tells strong hits apart where a probability near 1 does not. A
 * passage's words include its conversation's title, which names what the whole conversation is
 * about: "My rye starter went quiet" is about a sourdough starter when its title says so.
 */
function scoreHits(
  query: string,
  found: Hit<ChunkSummary>[],
  titles: Map<string, TitleRow>,
  unrelated: number,
  readByModel: (text: string) => boolean,
): ChunkHit[] {
  const words = found.map((hit) => textWords(`${titles.get(hit.row.conversationId)?.title ?? ""}\n${hit.row.text}`));
  const evidence = queryEvidence(query, words.slice(0, SCORED_CANDIDATES));
  const queryRead = readByModel(query);
  // A hit whose vector could not be read (it moved), or whose text the model cannot read, counts as unrelated in meaning.
  const meant = (hit: Hit<ChunkSummary>) => (queryRead && readByModel(hit.row.text) ? (hit.similarity ?? unrelated) : unrelated);
  return found
    .map((hit, i) => {
      const similarity = meant(hit);
      const score = passageRelevance(evidence, words[i]!, similarity, unrelated);
      return { chunk: hit.row, fused: hit.score, similarity, score, vector: hit.vector };
    })
    .sort((a, b) => Math.round(b.score * 100) - Math.round(a.score * 100));
}

/** Whether the user has excluded any conversation: the `active` filter costs a few ms at 100k chunks. */
function hasExcluded(ctx: CoreContext, userId: string): Promise<boolean> {
  return ctx.store.memo(
    `excluded:${userId}`,
    ["conversations"],
    async () => (await ctx.store.count("conversations", { userId, excluded: true })) > 0,
  );
}

/**
 * POST /api/chat-history/search: ranked chunks with their conversation title and neighbouring
 * chunks; those probably unrelated (under PASSAGE_THRESHOLD) are counted and left out unless asked
 * for, and a hit that a better one shows as context is not repeated.
 */
export async function searchChats(
  ctx: CoreContext,
  userId: string,
  input: SearchRequest,
): Promise<SearchResponse & { timings: SearchTimings }> {
  const started = performance.now();
  const request = parseInput(SearchRequest, input);
  const found = await findChunks(ctx, userId, {
    query: request.query,
    limit: Math.max(request.limit, SCORED_CANDIDATES),
    provider: request.provider,
    period: periodOf(request.dateFrom, request.dateTo),
    rerank: !request.skipRerank,
  });
  const { timings } = found;
  // Counted among the hits includeUnrelated shows, so "N left out" is what showing them shows: a
  // passage a better one shows as its context is not one more (20 had been said left out, 6 shown).
  const all = apartFromShown(found.hits, request.contextChunks).slice(0, request.limit);
  const unrelated = all.filter((hit) => hit.score < PASSAGE_THRESHOLD).length;
  const hits = request.includeUnrelated
    ? all
    : apartFromShown(
        found.hits.filter((hit) => hit.score >= PASSAGE_THRESHOLD),
        request.contextChunks,
      ).slice(0, request.limit);
  const { titles } = found;
  const context = await neighbours(
    ctx,
    hits.map((hit) => hit.chunk),
    request.contextChunks,
  );
  const results: SearchResult[] = hits.map(({ chunk, score }) => {
    const conversation = titles.get(chunk.conversationId);
    const when = (timestamp: string | null) => timestamp ?? conversation?.createdAt ?? new Date(0).toISOString();
    const lead = bestMessage(request.query, chunk);
    const parts = messagesOf(chunk).map((message) => ({ text: message.text, sender: message.sender, timestamp: when(message.timestamp) }));
    return {
      conversationId: chunk.conversationId,
      messageId: lead.id,
      title: conversation?.title ?? "",
      text: chunk.text,
      // To the hundredth: hits that close are in the fused order (scoreHits).
      score: Math.round(score * 100) / 100,
      probablyUnrelated: score < PASSAGE_THRESHOLD,
      timestamp: when(lead.timestamp),
      sender: lead.sender,
      parts,
      context: contextMessages(chunk, context.get(chunk.id) ?? []).map((near) => ({
        text: near.text,
        sender: near.sender,
        timestamp: when(near.timestamp),
        position: near.position,
      })),
    };
  });
  return {
    results,
    totalResults: results.length,
    unrelatedResults: unrelated,
    query: request.query,
    provider: request.provider,
    processingTime: Math.round(performance.now() - started),
    timings,
  };
}

/**
 * The hits without those a better hit already shows as its context (the `contextChunks` chunks on
 * each side of it): two neighbouring chunks that both match would otherwise print the same messages
 * twice, which costs an assistant's context window and tells the reader nothing more. Taken from
 * more candidates than the limit, so that a search for 2 still gives 2 when there are.
 */
function apartFromShown(hits: ChunkHit[], contextChunks: number): ChunkHit[] {
  const kept: ChunkHit[] = [];
  const shows = (shown: ChunkSummary, chunk: ChunkSummary) =>
    shown.conversationId === chunk.conversationId && Math.abs(shown.chunkIndex - chunk.chunkIndex) <= contextChunks;
  for (const hit of hits) if (!kept.some((better) => shows(better.chunk, hit.chunk))) kept.push(hit);
  return kept;
}

/**
 * The message of a chunk that a hit's `sender` and `timestamp` describe: the one that matches the
 * query's words best, or the first when none does (a hit on meaning alone).
 */
function bestMessage(query: string, chunk: ChunkSummary): ChunkMessage {
  const messages = messagesOf(chunk).map((message) => ({ ...message, score: 0 }));
  return rankByQuery(query, messages, 1)[0]!;
}

type ContextMessage = ChunkMessage & { position: "before" | "after" };

/**
 * The messages of the chunks around a hit, in order, each with its own sender and time: a chunk
 * labelled with its first message's sender had shown the user's words as the assistant's. A long
 * message whose pieces lie in two neighbouring chunks is one item.
 */
function contextMessages(hit: ChunkSummary, near: NeighbourChunk[]): ContextMessage[] {
  const items: ContextMessage[] = [];
  for (const chunk of near) {
    const position = chunk.chunkIndex < hit.chunkIndex ? "before" : "after";
    for (const message of messagesOf(chunk)) {
      const previous = items.at(-1);
      if (previous?.id === message.id && previous.position === position) previous.text = `${previous.text} ${message.text}`;
      else items.push({ ...message, position });
    }
  }
  return items;
}

type TitleRow = { title: string; createdAt: string };

/** Most conversation titles kept between searches (a few MB at most); past it the cache starts again. */
const TITLES_KEPT = 20_000;

/**
 * The title and start of each conversation, from a cache kept until the conversations table next
 * changes: the query cost ~2 of a chat search's ~30 ms of CPU (10k chunks), and a user's searches
 * keep landing in the same conversations.
 */
async function conversationTitles(ctx: CoreContext, ids: string[]): Promise<Map<string, TitleRow>> {
  if (ids.length === 0) return new Map();
  const known = await ctx.store.memo("conversation-titles", ["conversations"], async () => new Map<string, TitleRow>());
  const found = new Map(ids.flatMap((id) => (known.has(id) ? [[id, known.get(id)!]] : [])));
  const missing = [...new Set(ids)].filter((id) => !found.has(id));
  if (missing.length === 0) return found;
  const rows = await ctx.store.select("conversations", { id: missing }, { columns: ["id", "title", "createdAt"] });
  if (known.size + rows.length > TITLES_KEPT) known.clear();
  for (const row of rows) {
    const title = { title: row.title, createdAt: row.createdAt };
    known.set(row.id, title);
    found.set(row.id, title);
  }
  return found;
}

/** What a hit's neighbours show: all but their id (each column read costs; ~0.4 of the query's ~5.5 ms of CPU). */
const NEIGHBOUR_COLUMNS = CHUNK_COLUMNS.filter((column) => column !== "id");
type NeighbourChunk = Omit<ChunkSummary, "id">;

/**
 * For each chunk, up to `count` chunks around it in its conversation, in order: half before, half
 * after, and where one side runs out (a conversation's first or last chunk) the other makes up for it.
 */
export async function neighbours(ctx: CoreContext, chunks: ChunkSummary[], count: number): Promise<Map<string, NeighbourChunk[]>> {
  const result = new Map<string, NeighbourChunk[]>();
  if (count === 0 || chunks.length === 0) return result;
  const ranges = chunks.map((chunk) => ({
    conversationId: chunk.conversationId,
    chunkIndex: { from: chunk.chunkIndex - count, to: chunk.chunkIndex + count },
  }));
  // The conversations go first so that LanceDB narrows the rows through the conversationId index
  // before it tests the ranges (a scan of every chunk otherwise: 100k chunks, ~20 → ~8 ms).
  const conversationId = [...new Set(chunks.map((chunk) => chunk.conversationId))];
  const rows = await ctx.store.select("chunks", { conversationId, anyOf: ranges }, { columns: [...NEIGHBOUR_COLUMNS] });
  for (const chunk of chunks) {
    const own = rows.filter((row) => row.conversationId === chunk.conversationId);
    const before = own.filter((row) => row.chunkIndex < chunk.chunkIndex).sort((a, b) => b.chunkIndex - a.chunkIndex);
    const after = own.filter((row) => row.chunkIndex > chunk.chunkIndex).sort((a, b) => a.chunkIndex - b.chunkIndex);
    const afterTaken = Math.min(after.length, count - Math.min(before.length, Math.floor(count / 2)));
    const beforeTaken = Math.min(before.length, count - afterTaken);
    result.set(chunk.id, [...before.slice(0, beforeTaken).reverse(), ...after.slice(0, afterTaken)]);
  }
  return result;
}
