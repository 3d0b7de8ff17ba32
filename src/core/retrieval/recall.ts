import { createExtractiveSynthesizer, EXTRACTIVE_ID } from "../../providers/synthesis/extractive.js";
import type { ChatPlatform, Passage, SynthesisRequest, Synthesizer } from "../../providers/synthesis/synthesizer.js";
import { parseInput } from "../../schemas/parse.js";
import { RecallRequest, type RecallResponse, type RecallSource } from "../../schemas/recall.js";
import { messagesOf } from "../chat-history/chunking.js";
import { applyCitations, mergeCited, type Cited } from "../../providers/synthesis/citations.js";
import type { CoreContext } from "../context.js";
import { isAppError } from "../../shared/errors.js";
import { findChunks, type ChunkHit, type ChunkSearch, type SearchTimings } from "./search.js";
import { PASSAGE_THRESHOLD } from "./passage-relevance.js";
import { unrelatedSimilarity } from "./unrelated-similarity.js";
import { rankByQuery } from "./passage-ranking.js";
import { loadTokenizer } from "../../text/tokens.js";
import type { SearchMode } from "./hybrid-search.js";
import { periodOf, type Period } from "./period.js";
import { nothingRecalled } from "../../shared/time.js";

/** Chunks retrieved per query before filtering. */
const CANDIDATES = 40;
/** How much resemblance to the current conversation (cosine, 0–1) adds to a hit's score. */
const CONTEXT_BONUS = 0.5;
/** Share of a message's rank that comes from its own match with the query (the rest from its chunk's). */
const LEXICAL_WEIGHT = 0.4;
/** At most this many messages from one conversation before the others get a turn. */
const PER_CONVERSATION = 10;
/** Weight of the conversation context in the query vector (the query itself weighs 1). */
const CONTEXT_WEIGHT = 0.35;

/** For the benchmark: one search leg alone, another conversation margin. */
export interface RecallTuning {
  mode?: SearchMode;
  conversationMargin?: number;
}

export interface RecallTimings extends SearchTimings {
  synthesisMs: number;
}

interface MessagePassage extends Passage {
  messageId: string;
  /** Its chunk's relevance on the one scale (`score` ranks it). */
  relevance: number;
  /** Its chunk's vector, when recall has a conversation context to compare with. */
  vector: Float32Array | undefined;
}

/**
 * POST /api/chat-history/inject (and the recall_chat_history tool): hybrid search → filter (only
 * passages above PASSAGE_THRESHOLD; none: NOTHING_FOUND, and no synthesizer runs) → rank → synthesize
 * within `maxTokens`, with [n] citations that map one to one onto `sources`, numbered from the most
 * relevant conversation.
 */
export async function recall(
  ctx: CoreContext,
  userId: string,
  input: RecallRequest,
  tuning: RecallTuning = {},
): Promise<RecallResponse & { timings: RecallTimings }> {
  const started = performance.now();
  const request = parseInput(RecallRequest, input);
  const context = contextText(request.conversationContext, request.conversationHistory);
  const questions = request.queries ?? [{ query: request.query!, maxTokens: request.maxTokens }];
  const period = periodOf(request.dateFrom, request.dateTo);
  const nothing = nothingRecalled(request.dateFrom, request.dateTo);
  const answers = await Promise.all(
    questions.map((q) =>
      recallOne(
        ctx,
        userId,
        { query: q.query, maxTokens: q.maxTokens ?? request.maxTokens, platform: request.platform, context, period, nothing },
        tuning,
      ),
    ),
  );
  const tokenizer = await loadTokenizer();
  const timings = sumTimings(answers.map((a) => a.timings));
  const model = modelOf(answers);
  const processingTime = `${Math.round(performance.now() - started)}ms`;
  if (!request.queries) {
    const [only] = answers;
    return { content: only!.content, sources: only!.sources, tokenCount: only!.tokenCount, processingTime, model, timings };
  }
  const merged = mergeCited(
    answers.map((a, i) => ({ heading: questions[i]!.query, ...a })),
    request.platform === "chatgpt" || request.platform === "claude",
  );
  return {
    content: merged.content,
    sources: merged.sources,
    tokenCount: tokenizer.count(merged.content),
    processingTime,
    model,
    results: answers.map((a, i) => ({
      query: questions[i]!.query,
      content: a.content,
      sources: a.sources,
      tokenCount: a.tokenCount,
      model: a.model,
    })),
    timings,
  };
}

interface OneQuery {
  query: string;
  maxTokens: number;
  platform: ChatPlatform | undefined;
  context: string;
  period: Period | undefined;
  /** The answer when nothing is relevant. */
  nothing: string;
}

async function recallOne(
  ctx: CoreContext,
  userId: string,
  q: OneQuery,
  tuning: RecallTuning,
): Promise<Cited & { model: string; timings: RecallTimings }> {
  const embedding = performance.now();
  const { vector, context } = await queryVectors(ctx, q.query, q.context);
  const embeddingMs = performance.now() - embedding;
  const found = await findChunks(ctx, userId, {
    query: q.query,
    vector,
    limit: CANDIDATES,
    provider: "all",
    period: q.period,
    rerank: true,
    // Like the synthesizer, a reranker that fails leaves recall to do without it, and `model` says so.
    keepOrderIfRerankFails: true,
    withVectors: context !== undefined,
    ...(tuning.mode ? { mode: tuning.mode } : {}),
  });
  const relevant = nearTheBest(
    found.hits.filter((hit) => hit.score >= PASSAGE_THRESHOLD),
    tuning.conversationMargin ?? CONVERSATION_MARGIN,
    await unrelatedSimilarity(ctx.embedder),
  );
  const timings = { ...found.timings, embeddingMs };
  if (relevant.length === 0) return { ...(await nothingFound(q.nothing, q.maxTokens)), timings: { ...timings, synthesisMs: 0 } };
  const resemblance = resemblanceTo(context);
  const ranked = diversify(
    rankByQuery(q.query, toPassages(relevant, found.titles), LEXICAL_WEIGHT, (p) => CONTEXT_BONUS * resemblance(p.vector)),
  );
  const passages = numberInReadingOrder(ranked, relevant);
  const started = performance.now();
  const cited = await citedSynthesis(ctx.synthesizer, {
    query: q.query,
    passages,
    maxTokens: q.maxTokens,
    platform: q.platform,
    conversationContext: q.context || undefined,
  });
  const failure = found.rerankFailure;
  const model = failure ? `${cited.model}, without reranking (${failure.reranker} failed: ${failure.reason})` : cited.model;
  return { ...cited, model, timings: { ...timings, synthesisMs: performance.now() - started } };
}

/**
 * The synthesis with its citations checked. A model's answer that cites none of the passages
 * (every number invented, or none written) cannot be checked against them: the extractive answer
 * replaces it, and `model` says so.
 */
async function citedSynthesis(
  synthesizer: Synthesizer,
  request: SynthesisRequest & { passages: MessagePassage[] },
): Promise<Cited & { model: string }> {
  const tokenizer = await loadTokenizer();
  const { content, model } = await synthesize(synthesizer, request);
  const cited = applyCitations(content, request.passages, request.maxTokens, tokenizer, toSource);
  if (cited.sources.length > 0 || request.passages.length === 0 || model.startsWith(EXTRACTIVE_ID)) return { ...cited, model };
  const fallback = await createExtractiveSynthesizer().synthesize(request);
  return {
    ...applyCitations(fallback.content, request.passages, request.maxTokens, tokenizer, toSource),
    model: `${EXTRACTIVE_ID} (fallback: ${model} cited none of the passages within ${request.maxTokens} tokens)`,
  };
}

/** The query's vector nudged toward what the user is talking about now, and the context's own vector. */
async function queryVectors(ctx: CoreContext, query: string, context: string): Promise<{ vector: Float32Array; context?: Float32Array }> {
  if (!context) return { vector: await ctx.embedder.embedQuery(query) };
  const [q, c] = await ctx.embedder.embedDocuments([query, context], { urgent: true });
  const blended = q!.map((value, i) => value + CONTEXT_WEIGHT * c![i]!);
  const norm = Math.hypot(...blended) || 1;
  return { vector: blended.map((value) => value / norm), context: c! };
}

/** How much a passage's chunk resembles the current conversation (cosine, 0–1): "python" next to talk of terrariums means the snake. */
function resemblanceTo(context: Float32Array | undefined): (vector: Float32Array | undefined) => number {
  return (vector) => {
    if (!context || !vector) return 0;
    let sum = 0;
    for (let i = 0; i < vector.length; i++) sum += vector[i]! * context[i]!;
    return Math.max(0, sum);
  };
}

function contextText(conversationContext: string | undefined, history: { content: string }[] | undefined): string {
  const recent = (history ?? []).slice(-3).map((turn) => turn.content);
  return [conversationContext ?? "", ...recent].join("\n").trim().slice(0, 2000);
}

/**
 * How far below the best conversation another may be to be cited, in log-odds of relevance, unless
 * its meaning is close on its own (its best cosine MEANING_FLOOR above the embedder's unrelated
 * level): a conversation that only shares the question's words, far less likely to answer than the
 * best, fills the budget without answering. On a store with generated word salad mentioning
 * "lisbon" (cosine 0.02–0.07 above the unrelated level) "what did we plan for Lisbon?" then cites
 * the Lisbon conversation alone. On LoCoMo (offline, fitted weights) the threshold alone kept 0.97
 * of the evidence chunks, a margin of 2 alone 0.87, the margin or the meaning 0.95
 * (test/bench/README.md has recall's figures).
 */
const CONVERSATION_MARGIN = 2;
const MEANING_FLOOR = 0.1;

/** The hits of conversations near the best one's log-odds, or close in meaning on their own. */
function nearTheBest(hits: ChunkHit[], margin: number, unrelated: number): ChunkHit[] {
  const logOdds = (score: number) => Math.log(score / (1 - score || Number.MIN_VALUE));
  const best = new Map<string, { score: number; similarity: number }>();
  for (const hit of hits) {
    const known = best.get(hit.chunk.conversationId);
    best.set(hit.chunk.conversationId, {
      score: Math.max(known?.score ?? 0, hit.score),
      similarity: Math.max(known?.similarity ?? -1, hit.similarity),
    });
  }
  const top = logOdds(Math.max(0, ...[...best.values()].map((conversation) => conversation.score)));
  return hits.filter((hit) => {
    const conversation = best.get(hit.chunk.conversationId)!;
    return logOdds(conversation.score) >= top - margin || conversation.similarity >= unrelated + MEANING_FLOOR;
  });
}

/** The answer when nothing is relevant: no source, no synthesizer called. */
async function nothingFound(text: string, maxTokens: number): Promise<Cited & { model: string }> {
  const tokenizer = await loadTokenizer();
  const content = tokenizer.within(text, maxTokens) ? text : "";
  return { content, marked: content, sources: [], tokenCount: tokenizer.count(content), model: NO_MODEL };
}

/** `model` when no answer needed one. */
const NO_MODEL = "none";

/**
 * The passages, most relevant first, numbered as a reader meets them: conversations in the order
 * of their most relevant hit (search's order, so the first cited conversation is search's first),
 * and within one its passages in time order. The synthesizers cite by these numbers, so [1] is in
 * the conversation that answers best.
 */
function numberInReadingOrder(ranked: MessagePassage[], hits: ChunkHit[]): MessagePassage[] {
  const conversations = [...new Set(hits.map((hit) => hit.chunk.conversationId))];
  const reading = [...ranked].sort(
    (a, b) =>
      conversations.indexOf(a.conversationId) - conversations.indexOf(b.conversationId) ||
      (a.date ?? "").localeCompare(b.date ?? "") ||
      (a.order ?? 0) - (b.order ?? 0),
  );
  const numbers = new Map(reading.map((passage, i) => [passage, i + 1]));
  return ranked.map((passage) => ({ ...passage, n: numbers.get(passage)! }));
}

/** Rank order, but no conversation takes more than PER_CONVERSATION places before every other has had its turn. */
function diversify<P extends { conversationId: string }>(passages: P[]): P[] {
  const taken = new Map<string, number>();
  const first: P[] = [];
  const later: P[] = [];
  for (const passage of passages) {
    const count = taken.get(passage.conversationId) ?? 0;
    taken.set(passage.conversationId, count + 1);
    (count < PER_CONVERSATION ? first : later).push(passage);
  }
  return [...first, ...later];
}

/** A long text that differs from another only in its numbers is a repeat (a step list, a log pasted again). */
const REPEAT_CHARS = 200;

/**
 * What tells one text from another: case and spacing aside, and, in a long one, its numbers: a
 * conversation that went through step 13, 15, 27… of the same plan filled a recall's budget with
 * the same paragraph a dozen times. A short one keeps them: "the flight is at 9:15" is not "at 10:40".
 */
function sameTextKey(text: string): string {
  const key = text.toLowerCase().replace(/\s+/g, " ");
  return key.length >= REPEAT_CHARS ? key.replace(/\d+/g, "0") : key;
}

/**
 * Chunks → one passage per message, numbered in rank order, without repeating a message or a text.
 * A long message split over several of the chunks is one passage of its pieces in their order;
 * a message without a letter or a digit ("👍", ".") is none: it answers nothing.
 */
function toPassages(hits: ChunkHit[], titles: ChunkSearch["titles"]): MessagePassage[] {
  const texts = new Set<string>();
  const byMessage = new Map<string, { passage: MessagePassage; pieces: Map<number, string> }>();
  for (const { chunk, score, fused, vector } of hits) {
    for (const [i, message] of messagesOf(chunk).entries()) {
      const textKey = sameTextKey(message.text);
      const idKey = `${chunk.conversationId}\u0000${message.id}`;
      if (!/[\p{L}\p{N}]/u.test(message.text) || texts.has(textKey)) continue;
      texts.add(textKey);
      const known = byMessage.get(idKey);
      if (known) {
        known.pieces.set(chunk.chunkIndex, message.text);
        continue;
      }
      const conversation = titles.get(chunk.conversationId);
      const passage: MessagePassage = {
        n: byMessage.size + 1,
        conversationId: chunk.conversationId,
        messageId: message.id,
        conversationTitle: conversation?.title ?? "",
        date: message.timestamp || conversation?.createdAt || null,
        sender: message.sender,
        // Its chunk, then its place in it: a fraction, so no chunk size is assumed.
        order: chunk.chunkIndex + i / chunk.messageIds.length,
        text: message.text,
        // Messages are ranked on the fused score, which keeps the spread between strong hits that
        // relevance (a probability, 0.99 for many) flattens; the source shows the relevance.
        score: fused,
        relevance: score,
        vector,
      };
      byMessage.set(idKey, { passage, pieces: new Map([[chunk.chunkIndex, message.text]]) });
    }
  }
  return [...byMessage.values()].map(({ passage, pieces }) => (pieces.size === 1 ? passage : { ...passage, text: joinPieces(pieces) }));
}

/** A message's pieces in their order; " … " where chunks between them were not among the hits. */
function joinPieces(pieces: Map<number, string>): string {
  const ordered = [...pieces.entries()].sort(([a], [b]) => a - b);
  return ordered.map(([index, text], k) => (k === 0 ? text : `${index === ordered[k - 1]![0] + 1 ? " " : " … "}${text}`)).join("");
}

function toSource(passage: MessagePassage): RecallSource {
  return {
    conversationId: passage.conversationId,
    conversationTitle: passage.conversationTitle,
    messageId: passage.messageId,
    date: passage.date ?? "",
    relevanceScore: Math.round(passage.relevance * 100) / 100,
    sender: passage.sender,
  };
}

/** The configured synthesizer; if it fails, the extractive one, and `model` says so. */
async function synthesize(synthesizer: Synthesizer, request: SynthesisRequest): Promise<{ content: string; model: string }> {
  if (request.passages.length === 0) return { content: "", model: synthesizer.id };
  try {
    return await synthesizer.synthesize(request);
  } catch (error) {
    if (synthesizer.id === EXTRACTIVE_ID) throw error;
    const reason = isAppError(error) ? error.message : String(error);
    const fallback = await createExtractiveSynthesizer().synthesize(request);
    return { content: fallback.content, model: `${EXTRACTIVE_ID} (fallback: ${synthesizer.id} failed: ${reason})` };
  }
}

/**
 * What wrote the answers: one name, or each distinct one, so a fallback for one of several queries
 * is not hidden behind the others' model. Answers with nothing to synthesize used no model.
 */
function modelOf(answers: { model: string; sources: unknown[] }[]): string {
  const used = new Set(answers.filter((a) => a.sources.length > 0).map((a) => a.model));
  return used.size > 0 ? [...used].join("; ") : NO_MODEL;
}

function sumTimings(all: RecallTimings[]): RecallTimings {
  return all.reduce(
    (sum, t) => ({
      embeddingMs: sum.embeddingMs + t.embeddingMs,
      storeMs: sum.storeMs + t.storeMs,
      rerankMs: sum.rerankMs + t.rerankMs,
      synthesisMs: sum.synthesisMs + t.synthesisMs,
    }),
    { embeddingMs: 0, storeMs: 0, rerankMs: 0, synthesisMs: 0 },
  );
}
