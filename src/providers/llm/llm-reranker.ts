import { AppError } from "../../shared/errors.js";
import { loadTokenizer, type Tokenizer } from "../../text/tokens.js";
import { createChatCompletions, oneLine, type ChatCompletionsOptions, type ChatMessage } from "./chat-completions.js";
import type { Reranker } from "../reranker.js";

/**
 * Passage tokens per request: with the rules and the query, a prompt of ~2,000 tokens. Passages are
 * chunks, so how many go in a request follows from the chunk size the store was made with.
 */
const PASSAGE_TOKENS = 1_900;
/** Passages per request, at most: a longer list of ratings is answered less reliably. */
const BATCH = 10;
/** Room for one "n: rating" line per passage, and a little slack. */
const TOKENS_PER_RATING = 8;
const MAX_RATING = 10;

const FALLBACK = "search without reranking (`--no-rerank`, or skipRerank: true), or set reranker: none";

/**
 * A reranker that asks an OpenAI-compatible chat model (the `llm` settings) to rate every candidate
 * against the query. Slower than a cross-encoder and paid per token, but it needs no local model and
 * can judge a passage that shares no word with the query. Candidates go in batches, side by side,
 * filled up to PASSAGE_TOKENS so that each prompt stays short (~2,000 tokens): a local server's
 * default context (Ollama's 2,048 or 4,096 tokens) would otherwise cut the first passages off
 * without saying so.
 */
export function createLlmReranker(options: ChatCompletionsOptions): Reranker {
  const client = createChatCompletions(options, FALLBACK);

  async function rateBatch(query: string, passages: string[]): Promise<number[]> {
    const { content } = await client.complete(ratingMessages(query, passages), {
      maxTokens: TOKENS_PER_RATING * passages.length + 16,
      temperature: 0,
    });
    const ratings = parseRatings(content, passages.length);
    if (ratings.size === 0) {
      throw new AppError("unavailable", `The LLM endpoint at ${options.baseUrl} rated none of the passages: ${oneLine(content, 200)}`, {
        suggestion: `Try a model that follows instructions more closely (llm.model), or ${FALLBACK}`,
        details: { endpoint: options.baseUrl },
      });
    }
    // A passage the model left out counts as unrelated; equal scores keep the fused order.
    return passages.map((_, i) => (ratings.get(i + 1) ?? 0) / MAX_RATING);
  }

  return {
    id: `llm:${options.model}`,
    async rerank(query: string, passages: string[]): Promise<number[]> {
      const batches = inBatches(passages, await loadTokenizer());
      return (await Promise.all(batches.map((batch) => rateBatch(query, batch)))).flat();
    },
    close: async () => {},
  };
}

/** The request: the rules, then the query and the numbered passages. Pure, so it can be tested on its own. */
export function ratingMessages(query: string, passages: string[]): ChatMessage[] {
  const system = [
    "You rate how relevant passages from the user's past conversations with AI assistants are to a search query.",
    `Give every passage a whole-number rating from 0 (unrelated) to ${MAX_RATING} (answers the query directly).`,
    "A passage is relevant when it holds what the query asks about, even in other words.",
    "Reply with one line per passage, in the passages' order, exactly in the form `n: rating`, and nothing else.",
  ].join("\n");
  const lines = [`Query: ${query.trim()}`, "", "Passages:"];
  passages.forEach((text, i) => lines.push(`[${i + 1}] ${oneLine(text)}`));
  return [
    { role: "system", content: system },
    { role: "user", content: lines.join("\n") },
  ];
}

/**
 * Consecutive passages in requests of at most BATCH passages and PASSAGE_TOKENS tokens. A passage
 * longer than a whole request (no chunk is) is cut to fit one: its start is what the model rates.
 */
export function inBatches(passages: string[], tokenizer: Tokenizer): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let tokens = 0;
  for (const passage of passages) {
    const count = tokenizer.count(passage);
    const text = count > PASSAGE_TOKENS ? `${passage.slice(0, Math.floor((passage.length * PASSAGE_TOKENS) / count))}…` : passage;
    const cost = Math.min(count, PASSAGE_TOKENS);
    if (batch.length === BATCH || (batch.length > 0 && tokens + cost > PASSAGE_TOKENS)) {
      batches.push(batch);
      batch = [];
      tokens = 0;
    }
    batch.push(text);
    tokens += cost;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * The ratings in a reply, by passage number: `3: 7`, `[3] 7`, `Passage 3 - 7/10`, one per line or
 * separated by commas (`{"3": 7, "4": 2}` too).
 * Numbers outside the passages and ratings outside 0–10 are ignored; a repeated number keeps its first rating.
 */
export function parseRatings(reply: string, count: number): Map<number, number> {
  const ratings = new Map<number, number>();
  const rating = /(?:^|[,;{])[\s*-]*"?(?:passage\s*)?\[?(\d{1,4})\]?"?(?:\s*[:=.)–-]\s*|\s+)(\d{1,2}(?:\.\d+)?)(?:\s*\/\s*10)?\b/gim;
  for (const match of reply.matchAll(rating)) {
    const n = Number(match[1]);
    const value = Number(match[2]);
    if (n >= 1 && n <= count && value <= MAX_RATING && !ratings.has(n)) ratings.set(n, value);
  }
  return ratings;
}
