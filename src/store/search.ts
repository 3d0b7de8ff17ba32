import { fromArrowRow } from "./convert.js";
import type { TableRows } from "./rows.js";
import type { VectorTableKey } from "./schema.js";
import type { Store } from "./store.js";

export type SearchMode = "hybrid" | "vector" | "bm25";

export interface HybridQuery {
  vector: Float32Array;
  text: string;
  /** Prefilter applied to both legs (user scope, provider, active…). */
  where: string;
  limit: number;
  /** Candidates fetched per leg before fusion. */
  candidates?: number;
  mode?: SearchMode;
  /** Weight of the BM25 leg in the fusion (the vector leg weighs 1). */
  textWeight?: number;
  /** RRF's k: larger flattens the difference between ranks. */
  rrfK?: number;
  /** Also return each row's vector (for a second-stage comparison). */
  withVectors?: boolean;
}

export interface Hit<R> {
  row: Omit<R, "vector">;
  /** Fused relevance in [0, 1]: 1 is the top of every leg that ran. */
  score: number;
  /** Cosine similarity to the query, when the vector leg found the row. */
  similarity: number | undefined;
  /** Whether the full-text leg found it (it shares a term with the query). */
  textMatched: boolean;
  /** The row's vector, with `withVectors`. */
  vector: Float32Array | undefined;
}

/**
 * Fusion defaults, tuned on LoCoMo (README, Performance): a smaller k than the customary 60 lets
 * a leg's top ranks count, and BM25 weighs twice the vector leg — names, places and dates carry
 * chat-history questions. The semantic memory tests hold at these values too.
 */
const DEFAULT_RRF_K = 20;
const DEFAULT_TEXT_WEIGHT = 2;

/**
 * Vector and full-text (BM25) search run side by side on the same prefilter and are fused with
 * Reciprocal Rank Fusion. Running the legs ourselves (rather than LanceDB's hybrid query) lets us
 * weight them and run either alone, which the retrieval benchmark compares.
 */
export async function hybridSearch<K extends VectorTableKey>(
  store: Store,
  key: K,
  query: HybridQuery,
): Promise<Hit<TableRows[K]>[]> {
  const mode = query.mode ?? "hybrid";
  const candidates = Math.max(query.candidates ?? query.limit * 3, query.limit);
  const table = await store.table(key);
  const columns = [...(await store.columns(key)), ...(query.withVectors ? ["vector"] : [])];
  // Asking for the score columns by name keeps Lance from warning that it adds them on its own.
  const runVector = mode !== "bm25";
  const runText = mode !== "vector" && query.text.trim().length > 0;

  const [vectorRows, textRows] = await Promise.all([
    !runVector
      ? []
      : table.vectorSearch(query.vector).distanceType("cosine").where(query.where).select([...columns, "_distance"]).limit(candidates).toArray(),
    !runText
      ? []
      : table.search(query.text, "fts").where(query.where).select([...columns, "_score"]).limit(candidates).toArray(),
  ]);

  const textWeight = mode === "bm25" ? 1 : (query.textWeight ?? DEFAULT_TEXT_WEIGHT);
  const k = query.rrfK ?? DEFAULT_RRF_K;
  const fused = new Map<string, { row: Record<string, unknown>; rrf: number; similarity: number | undefined; textMatched: boolean }>();
  vectorRows.forEach((raw, rank) => {
    const row = fromArrowRow(raw);
    const distance = Number(row["_distance"]);
    fused.set(String(row["id"]), { row, rrf: 1 / (k + rank + 1), similarity: 1 - distance, textMatched: false });
  });
  // Rows the text index does not cover yet come back in storage order: rank by score ourselves.
  textRows.sort((a, b) => Number(b["_score"]) - Number(a["_score"]));
  textRows.forEach((raw, rank) => {
    const row = fromArrowRow(raw);
    const id = String(row["id"]);
    const contribution = textWeight / (k + rank + 1);
    const existing = fused.get(id);
    if (existing) {
      existing.rrf += contribution;
      existing.textMatched = true;
    } else {
      fused.set(id, { row, rrf: contribution, similarity: undefined, textMatched: true });
    }
  });

  // The best fused score possible from the legs that found anything: a top hit of every such leg scores 1.
  const best = ((vectorRows.length > 0 ? 1 : 0) + (textRows.length > 0 ? textWeight : 0)) / (k + 1);
  return [...fused.values()]
    .sort((a, b) => b.rrf - a.rrf)
    .slice(0, query.limit)
    .map(({ row, rrf, similarity, textMatched }) => {
      const { _distance, _score, vector, ...rest } = row;
      return {
        row: rest as Omit<TableRows[K], "vector">,
        score: Math.min(1, rrf / best),
        similarity,
        textMatched,
        vector: vector instanceof Float32Array ? vector : undefined,
      };
    });
}
