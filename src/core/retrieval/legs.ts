import type { LegResults } from "../../store/search.js";

// The store's raw candidates (store/search.ts) as the two ranked legs that fusion.ts combines.

/** A row the vector leg found: by its address in the table version the leg searched, or (memories) by its id. */
export interface VectorCandidate<Key = bigint> {
  key: Key;
  /** Cosine similarity to the query vector. */
  similarity: number;
}
export interface TextCandidate<Key = bigint> {
  key: Key;
  /** BM25, or a substring hit's share of the best BM25 (an order for this query only). */
  score: number;
}
export interface LegCandidates<Key = bigint> {
  /** Most similar first. */
  vector: VectorCandidate<Key>[];
  /** Best first. */
  text: TextCandidate<Key>[];
}

/**
 * The fewest candidates a leg fetches. Fusion ranks what the legs found, so the depth shapes the
 * order: at three per hit, the top 5 of 95 in 100 queries (10k memories) differed between limit 5
 * and limit 10, and pages of one query repeated or skipped hits. At a fixed depth they agree (0 in
 * 100), at no measurable cost (50 candidates cost what 15 did).
 */
export const MIN_CANDIDATES = 60;

/**
 * The legs as fusion ranks them, `candidates` each: similarities from the vector leg's distances;
 * the text leg's rows and the substring scan's rows it missed, ranked by score, the scan's on the
 * index's scale (all the words found scores as the best BM25 hit).
 */
export function rankedLegs(results: LegResults, candidates: number): LegCandidates {
  const known = new Set(results.text.map((row) => row.rowId));
  const best = Math.max(0, ...results.text.map((row) => row.score)) || 1;
  const missed = results.substring
    .filter((row) => !known.has(row.rowId))
    .map((row) => ({ rowId: row.rowId, score: (best * row.found) / results.substringWords }));
  return {
    vector: results.vector.map((row) => ({ key: row.rowId, similarity: 1 - row.distance })),
    text: [...results.text, ...missed]
      .sort((a, b) => b.score - a.score)
      .slice(0, candidates)
      .map((row) => ({ key: row.rowId, score: row.score })),
  };
}
