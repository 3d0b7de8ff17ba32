import { parseInput } from "../../schemas/parse.js";
import { StoreMemoryRequest, type SimilarMemory, type StoreMemoryResponse } from "../../schemas/memories.js";
import { hybridSearch } from "../retrieval/hybrid-search.js";
import { contentWords } from "../../text/content-words.js";
import type { CoreContext } from "../context.js";
import { storeMemoryBatched } from "./memory-batcher.js";
import { besideMemoryJournal } from "./pending-memories.js";

/**
 * Two memories say nearly the same when they share at least this share of their content words
 * (the larger one's, the date prefix left out) and their vectors at least this cosine. Measured on
 * fixtures/memories (test/bench/memory-duplicates.mjs, figures in test/bench/README.md): 30
 * memories stored again in other words share ≥ 0.75 of their words and ≥ 0.847 of cosine; 30
 * other facts on the same topics share ≤ 0.43 (cosine up to 0.892: the bundled model alone
 * cannot tell "in bed by 11 pm on weeknights" from "wake up around 9 am on weekends"); no two of
 * the 30 memories share more than 0.17. Among LoCoMo's 1.8 M pairs of turns, the 42 above both
 * are greetings and thanks said twice, no fact.
 */
export const SIMILAR_WORDS = 0.75;
export const SIMILAR_COSINE = 0.84;
/** Nearest memories whose words are compared. */
const CANDIDATES = 5;

/** The date a memory starts with (the spec asks callers to prefix one): the same fact told again has another. */
const DATE_PREFIX = /^\s*\d{4}-\d{2}-\d{2}\b[\s:,-]*/;

/** The share of content words two texts have in common, of the larger one's. */
export function sharedWords(a: string, b: string): number {
  const wordsA = new Set(contentWords(a.replace(DATE_PREFIX, "")));
  const wordsB = new Set(contentWords(b.replace(DATE_PREFIX, "")));
  const larger = Math.max(wordsA.size, wordsB.size);
  if (larger === 0) return a.replace(DATE_PREFIX, "").trim() === b.replace(DATE_PREFIX, "").trim() ? 1 : 0;
  let shared = 0;
  for (const word of wordsA) if (wordsB.has(word)) shared++;
  return shared / larger;
}

export const nearlySame = (words: number, cosine: number): boolean => words >= SIMILAR_WORDS && cosine >= SIMILAR_COSINE;

/** The user's memory that says nearly what `text` says, if one does (the most similar of those that do). */
export async function findSimilarMemory(
  ctx: CoreContext,
  userId: string,
  text: string,
  vector?: Float32Array,
): Promise<(SimilarMemory & { memoryId: string }) | undefined> {
  const query = vector ?? (await ctx.embedder.embedDocuments([text]))[0]!;
  // The memories still in the journal too: the same fact stored twice in a row is caught.
  const hits = await besideMemoryJournal(ctx, userId, (pending) =>
    hybridSearch(ctx.store, "memories", {
      vector: query,
      text,
      where: { userId },
      limit: CANDIDATES,
      candidates: CANDIDATES,
      mode: "vector",
      // "relevance" reads exact similarities (an HNSW_SQ index keeps the order, not the value).
      fusion: "relevance",
      columns: ["id", "text", "bucketId", "createdAt"],
      pending,
    }),
  );
  const [similar] = hits
    .filter((hit) => hit.similarity !== undefined && nearlySame(sharedWords(text, hit.row.text), hit.similarity))
    .sort((a, b) => b.similarity! - a.similarity!);
  if (!similar) return undefined;
  const { id, text: existing, bucketId, createdAt } = similar.row;
  return { memoryId: id, text: existing, bucketId, createdAt, similarity: similar.similarity! };
}

/**
 * POST /api/memory: stores the memory, or with `ifSimilar: "skip"` answers with the memory that
 * already says nearly the same and stores nothing (a client then updates that one instead).
 */
export async function storeMemory(ctx: CoreContext, userId: string, input: StoreMemoryRequest): Promise<StoreMemoryResponse> {
  const request = parseInput(StoreMemoryRequest, input);
  if (request.ifSimilar === "skip") {
    // Embedded once, for the check and the memory.
    const [vector] = await ctx.embedder.embedDocuments([request.text], { urgent: true });
    const found = await findSimilarMemory(ctx, userId, request.text, vector);
    if (found) {
      const { memoryId, ...similar } = found;
      return { done: "exists", memoryId, similar };
    }
    return storeMemoryBatched(ctx, userId, request, vector);
  }
  return storeMemoryBatched(ctx, userId, request);
}
