import type { TableRows } from "../../store/rows.js";
import type { VectorTableKey } from "../../store/schema.js";
import { readRows, searchLegs, type HitColumn, type SearchMode } from "../../store/search.js";
import type { Store } from "../../store/store.js";
import type { Filter } from "../../store/where.js";
import { fuseRanks, fuseScores, type Candidate } from "./fusion.js";
import { MIN_CANDIDATES, rankedLegs } from "./legs.js";

export type { HitColumn, SearchMode };
export { MIN_CANDIDATES };

export interface HybridQuery<C extends string = string, K extends VectorTableKey = VectorTableKey> {
  vector: Float32Array;
  text: string;
  /** Prefilter applied to both legs (user scope, provider, active…). */
  where: Filter<K>;
  limit: number;
  /** Candidates fetched per leg before fusion; by default three per hit, and at least MIN_CANDIDATES. */
  candidates?: number;
  mode?: SearchMode;
  /**
   * How the legs are fused: "rrf" (by rank, the default), or "scores", a weighted sum of each
   * leg's own scores, which keeps how far ahead the best hits are rather than only their order.
   * (Memories are scored on an absolute scale instead: core/memories/memory-search.ts.)
   */
  fusion?: "rrf" | "scores";
  /** Exact similarities for every hit, worked out from its vector. */
  exact?: boolean;
  /** Also return each row's vector (for a second-stage comparison). */
  withVectors?: boolean;
  /**
   * The columns read for the hits; all but the vector by default. Name only those the caller
   * uses: LanceDB reads each column of each hit on its own (5 memories at 10k: 2 columns cost
   * 0.55 ms of CPU, all 11 1.4 ms).
   */
  columns?: readonly C[];
}

export interface Hit<Row> {
  row: Row;
  /** In [0, 1], the best hit 1. */
  score: number;
  /** Cosine similarity to the query, when the vector leg found the row. */
  similarity: number | undefined;
  /** Whether the full-text leg found it (it shares a term with the query). */
  textMatched: boolean;
  /** The row's vector, with `withVectors`. */
  vector: Float32Array | undefined;
}

/**
 * The candidates with their exact similarity, from their vectors: the vector leg's index keeps the
 * order but not the value (0.11 for a cosine of 0.55), and the text leg's rows have none. A row
 * that could not be read keeps what it had.
 */
function withSimilarities(top: Candidate[], query: Float32Array, rows: Map<bigint, Record<string, unknown>>): Candidate[] {
  return top.map((hit) => {
    const vector = rows.get(hit.key)?.["vector"];
    return vector instanceof Float32Array ? { ...hit, similarity: cosine(query, vector) } : hit;
  });
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return dot / (Math.sqrt(normA * normB) || 1);
}

/** How often a search runs again when a commit moved its hits' rows before they were read. */
const ATTEMPTS = 2;

/**
 * The store's two legs (store/search.ts) fused (see `fusion`); the columns are read for the fused
 * top `limit` alone.
 */
export async function hybridSearch<K extends VectorTableKey, C extends HitColumn<K> = HitColumn<K>>(
  store: Store,
  key: K,
  query: HybridQuery<C, K>,
): Promise<Hit<Pick<TableRows[K], C>>[]> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt === ATTEMPTS;
    const { hits, complete } = await searchOnce(store, key, query, last);
    if (complete || last) return hits;
  }
}

/**
 * One search. `complete` is false when a hit's row could not be read: a compaction (which moves
 * rows to new addresses) or a delete committed between the legs and the read, so a new search
 * sees the table as it is now. Until the `last` attempt, a failed read (the files of the version
 * searched already cleaned up) counts as such too.
 */
async function searchOnce<K extends VectorTableKey, C extends HitColumn<K>>(
  store: Store,
  key: K,
  query: HybridQuery<C, K>,
  last: boolean,
): Promise<{ hits: Hit<Pick<TableRows[K], C>>[]; complete: boolean }> {
  const candidates = Math.max(query.candidates ?? Math.max(query.limit * 3, MIN_CANDIDATES), query.limit);
  const results = await searchLegs(store, key, {
    vector: query.vector,
    text: query.text,
    where: query.where,
    candidates,
    mode: query.mode ?? "hybrid",
  });
  const legs = rankedLegs(results, candidates);
  const columns = [...(query.columns ?? (await store.columns(key))), ...(query.withVectors ? ["vector"] : [])];
  let top = (query.fusion === "scores" ? fuseScores : fuseRanks)(legs).slice(0, query.limit);
  const rows = await readRows(
    store,
    key,
    top.map((hit) => hit.key),
    query.exact && !columns.includes("vector") ? [...columns, "vector"] : columns,
  ).catch((error: unknown) => {
    if (last) throw error;
    return new Map<bigint, Record<string, unknown>>();
  });
  if (query.exact) top = withSimilarities(top, query.vector, rows);
  const hits = top.flatMap(({ key: rowId, score, similarity, textMatched }) => {
    const row = rows.get(rowId);
    if (!row) return [];
    const { vector, ...rest } = row;
    const withVector = query.withVectors && vector instanceof Float32Array;
    return [
      {
        row: rest as Pick<TableRows[K], C>,
        score,
        similarity,
        textMatched,
        vector: withVector ? vector : undefined,
      },
    ];
  });
  return { hits, complete: hits.length === top.length };
}
