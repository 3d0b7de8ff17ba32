import { fromArrowRow } from "./convert.js";
import { sqlAnd, sqlIn } from "./sql.js";
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
 * weight them and run either alone, which the retrieval benchmark compares. The legs return ids
 * only; the columns are read for the fused top `limit` alone (a fifth less store time than reading
 * them for every candidate of both legs).
 */
export async function hybridSearch<K extends VectorTableKey>(
  store: Store,
  key: K,
  query: HybridQuery,
): Promise<Hit<TableRows[K]>[]> {
  const mode = query.mode ?? "hybrid";
  const candidates = Math.max(query.candidates ?? query.limit * 3, query.limit);
  const table = await store.table(key);
  const runVector = mode !== "bm25";
  const runText = mode !== "vector" && query.text.trim().length > 0;

  // Asking for the score columns by name keeps Lance from warning that it adds them on its own.
  const [vectorRows, textRows] = await Promise.all([
    !runVector
      ? []
      : table.vectorSearch(query.vector).distanceType("cosine").where(query.where).select(["id", "_distance"]).withRowId().limit(candidates).toArray(),
    !runText ? [] : table.search(query.text, "fts").where(query.where).select(["id", "_score"]).withRowId().limit(candidates).toArray(),
  ]);

  const textWeight = mode === "bm25" ? 1 : (query.textWeight ?? DEFAULT_TEXT_WEIGHT);
  const k = query.rrfK ?? DEFAULT_RRF_K;
  const fused = new Map<string, Candidate>();
  vectorRows.forEach((row, rank) => {
    const id = String(row["id"]);
    fused.set(id, { id, rowId: row["_rowid"] as bigint, rrf: 1 / (k + rank + 1), similarity: 1 - Number(row["_distance"]), textMatched: false });
  });
  // Rows the text index does not cover yet come back in storage order: rank by score ourselves.
  textRows.sort((a, b) => Number(b["_score"]) - Number(a["_score"]));
  textRows.forEach((row, rank) => {
    const id = String(row["id"]);
    const contribution = textWeight / (k + rank + 1);
    const existing = fused.get(id);
    if (existing) {
      existing.rrf += contribution;
      existing.textMatched = true;
    } else {
      fused.set(id, { id, rowId: row["_rowid"] as bigint, rrf: contribution, similarity: undefined, textMatched: true });
    }
  });

  // The best fused score possible from the legs that found anything: a top hit of every such leg scores 1.
  const best = ((vectorRows.length > 0 ? 1 : 0) + (textRows.length > 0 ? textWeight : 0)) / (k + 1);
  const top = [...fused.values()].sort((a, b) => b.rrf - a.rrf).slice(0, query.limit);
  const rows = await readRows(store, key, top, query);
  return top.flatMap(({ id, rrf, similarity, textMatched }) => {
    const row = rows.get(id);
    if (!row) return []; // deleted between the search and the read
    const { vector, ...rest } = row;
    return [
      {
        row: rest as Omit<TableRows[K], "vector">,
        score: Math.min(1, rrf / best),
        similarity,
        textMatched,
        vector: vector instanceof Float32Array ? vector : undefined,
      },
    ];
  });
}

interface Candidate {
  id: string;
  rowId: bigint;
  rrf: number;
  similarity: number | undefined;
  textMatched: boolean;
}

/**
 * The hits' rows by id. Reading by row id is the fast path; a commit in between (a compaction
 * moves rows) can make a row id point elsewhere, which the id check catches, and then the rows
 * are read by id instead.
 */
export async function readRows(store: Store, key: VectorTableKey, hits: Candidate[], query: HybridQuery): Promise<Map<string, Record<string, unknown>>> {
  if (hits.length === 0) return new Map();
  const columns = [...(await store.columns(key)), ...(query.withVectors ? ["vector"] : [])];
  const table = await store.table(key);
  const taken = await table
    .takeRowIds(hits.map((hit) => hit.rowId))
    .select(columns)
    .toArray()
    .catch(() => []); // a row id into a fragment that a compaction removed
  const byId = new Map(taken.map((raw) => fromArrowRow(raw)).map((row) => [String(row["id"]), row]));
  if (hits.every((hit) => byId.has(hit.id))) return byId;
  const rows = await store.select(key, sqlAnd(query.where, sqlIn("id", hits.map((hit) => hit.id))), { columns });
  return new Map(rows.map((row): [string, Record<string, unknown>] => [row.id, { ...row }]));
}
