import { AppError } from "../../shared/errors.js";
import { createChatCompletions, oneLine, type ChatCompletionsOptions, type ChatMessage } from "./chat-completions.js";
import type { Reranker } from "../reranker.js";

/** A chunk holds up to 192 tokens (~800 characters); the rest of a longer text adds cost, not judgement. */
const PASSAGE_CHARS = 800;
/** Room for one "n: rating" line per passage, and a little slack. */
const TOKENS_PER_RATING = 8;
const MAX_RATING = 10;
/** Passages per request. */
const BATCH = 10;

const FALLBACK = "search without reranking (`--no-rerank`, or skipRerank: true), or set reranker: none";

/**
 * A reranker that asks an OpenAI-compatible chat model (the `llm` settings) to rate every candidate
 * against the query. Slower than a cross-encoder and paid per token, but it needs no local model and
 * can judge a passage that shares no word with the query. Candidates go in batches, side by side,
 * so that each prompt stays short (~2,000 tokens): a local server's default context (Ollama's
 * 2,048 or 4,096 tokens) would otherwise cut the first passages off without saying so.
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
      const batches: string[][] = [];
      for (let start = 0; start < passages.length; start += BATCH) batches.push(passages.slice(start, start + BATCH));
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
  passages.forEach((text, i) => lines.push(`[${i + 1}] ${oneLine(text, PASSAGE_CHARS)}`));
  return [
    { role: "system", content: system },
    { role: "user", content: lines.join("\n") },
  ];
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
