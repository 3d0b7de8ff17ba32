import { parseInput } from "../../schemas/parse.js";
import { StoreMemoryRequest, type SimilarMemory, type StoreMemoryResponse } from "../../schemas/memories.js";
import { cosine, hybridSearch } from "../retrieval/hybrid-search.js";
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
/** Memories whose words are compared: those that share the most words with the text (BM25). */
const CANDIDATES = 10;

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

/**
 * The user's memory that says nearly what `text` says, if one does (the most similar of those that
 * do). Words first: a memory shares ≥ 0.75 of its content words only with the few that BM25 ranks
 * first, and the vector is read for those alone, while the text embeds. A nearest-neighbour search
 * made the check 8.6 ms of a store's ~14 (test/bench/README.md). A text without content words is
 * the same only as itself, which the nearest by meaning finds.
 */
export async function findSimilarMemory(
  ctx: CoreContext,
  userId: string,
  text: string,
  /** The text's vector, or its embedding under way: the words are looked up meanwhile. */
  vector?: Float32Array | Promise<Float32Array>,
): Promise<(SimilarMemory & { memoryId: string }) | undefined> {
  const embedding = vector ? Promise.resolve(vector) : ctx.embedder.embedDocuments([text]).then(([embedded]) => embedded!);
  const byWords = contentWords(text.replace(DATE_PREFIX, "")).length > 0;
  const [query, hits] = await Promise.all([
    embedding,
    // The memories still in the journal too: the same fact stored twice in a row is caught.
    besideMemoryJournal(ctx, userId, async (pending) =>
      hybridSearch(ctx.store, "memories", {
        vector: byWords ? NO_VECTOR : await embedding,
        text,
        where: { userId },
        limit: CANDIDATES,
        candidates: CANDIDATES,
        mode: byWords ? "bm25" : "vector",
        columns: ["id", "text", "bucketId", "createdAt"],
        withVectors: true,
        pending,
      }),
    ),
  ]);
  const [similar] = hits
    .map(({ row, vector: stored }) => ({ row, similarity: stored ? cosine(query, stored) : -1 }))
    .filter(({ row, similarity }) => nearlySame(sharedWords(text, row.text), similarity))
    .sort((a, b) => b.similarity - a.similarity);
  if (!similar) return undefined;
  const { id, text: existing, bucketId, createdAt } = similar.row;
  return { memoryId: id, text: existing, bucketId, createdAt, similarity: similar.similarity };
}

/** The text leg alone reads no query vector. */
const NO_VECTOR = new Float32Array(0);

/**
 * POST /api/memory: stores the memory, or with `ifSimilar: "skip"` answers with the memory that
 * already says nearly the same and stores nothing (a client then updates that one instead).
 */
export async function storeMemory(ctx: CoreContext, userId: string, input: StoreMemoryRequest): Promise<StoreMemoryResponse> {
  const request = parseInput(StoreMemoryRequest, input);
  if (request.ifSimilar === "skip") {
    // Embedded once, for the check and the memory, while the check looks up the words.
    const embedding = ctx.embedder.embedDocuments([request.text], { urgent: true }).then(([vector]) => vector!);
    const found = await findSimilarMemory(ctx, userId, request.text, embedding);
    const vector = await embedding;
    if (found) {
      const { memoryId, ...similar } = found;
      return { done: "exists", memoryId, similar };
    }
    return storeMemoryBatched(ctx, userId, request, vector);
  }
  return storeMemoryBatched(ctx, userId, request);
}
