import { fromArrowTable } from "./convert.js";
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
  /**
   * How the legs are fused: "rrf" (by rank, the default) or "scores", a weighted sum of each
   * leg's own scores, which keeps how far ahead the best hits are rather than only their order.
   */
  fusion?: "rrf" | "scores";
  /** Also return each row's vector (for a second-stage comparison). */
  withVectors?: boolean;
}

export interface Hit<R> {
  row: Omit<R, "vector">;
  /** Fused relevance in [0, 1]: 1 is the best hit. */
  score: number;
  /** Cosine similarity to the query, when the vector leg found the row. */
  similarity: number | undefined;
  /** Whether the full-text leg found it (it shares a term with the query). */
  textMatched: boolean;
  /** The row's vector, with `withVectors`. */
  vector: Float32Array | undefined;
}

/**
 * Fusion settings, tuned on LoCoMo (README, Performance). RRF: a smaller k than the customary 60
 * lets a leg's top ranks count, and BM25 weighs twice the vector leg — names, places and dates
 * carry chat-history questions. Scores: the vector leg's share of the sum.
 */
const RRF_K = 20;
const RRF_TEXT_WEIGHT = 2;
const SCORES_VECTOR_SHARE = 0.3;

type LegRow = Record<string, unknown>;

interface Candidate {
  id: string;
  rowId: bigint;
  score: number;
  similarity: number | undefined;
  textMatched: boolean;
}

/**
 * Vector and full-text (BM25) search run side by side on the same prefilter and are fused (see
 * `fusion`). Running the legs ourselves (rather than LanceDB's hybrid query) lets us weight them
 * and run either alone, which the retrieval benchmark compares. The legs return ids only; the
 * columns are read for the fused top `limit` alone (a fifth less store time than reading them for
 * every candidate of both legs).
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
      : table.vectorSearch(query.vector).distanceType("cosine").where(query.where).select(["id", "_distance"]).withRowId().limit(candidates).toArrow().then(fromArrowTable),
    !runText ? [] : table.search(query.text, "fts").where(query.where).select(["id", "_score"]).withRowId().limit(candidates).toArrow().then(fromArrowTable),
  ]);
  // Rows the text index does not cover yet come back in storage order: rank by score ourselves.
  textRows.sort((a, b) => Number(b["_score"]) - Number(a["_score"]));

  const fuse = query.fusion === "scores" ? fuseScores : fuseRanks;
  const top = fuse(vectorRows, textRows).slice(0, query.limit);
  const rows = await readRows(store, key, top, query);
  return top.flatMap(({ id, score, similarity, textMatched }) => {
    const row = rows.get(id);
    if (!row) return []; // deleted between the search and the read
    const { vector, ...rest } = row;
    return [
      {
        row: rest as Omit<TableRows[K], "vector">,
        score,
        similarity,
        textMatched,
        vector: vector instanceof Float32Array ? vector : undefined,
      },
    ];
  });
}

/** Cosine similarity of a vector-leg row (the leg returns cosine distance). */
const similarityOf = (row: LegRow) => 1 - Number(row["_distance"]);

type LegScore = (row: LegRow, rank: number) => number;

/** The legs' rows as candidates: each leg scores its own rows, and a row both legs found adds up. */
function merge(vectorRows: LegRow[], textRows: LegRow[], vectorScore: LegScore, textScore: LegScore): Candidate[] {
  const fused = new Map<string, Candidate>();
  vectorRows.forEach((row, rank) => {
    const id = String(row["id"]);
    fused.set(id, { id, rowId: row["_rowid"] as bigint, score: vectorScore(row, rank), similarity: similarityOf(row), textMatched: false });
  });
  textRows.forEach((row, rank) => {
    const id = String(row["id"]);
    const existing = fused.get(id);
    if (existing) {
      existing.score += textScore(row, rank);
      existing.textMatched = true;
    } else {
      fused.set(id, { id, rowId: row["_rowid"] as bigint, score: textScore(row, rank), similarity: undefined, textMatched: true });
    }
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/** Reciprocal Rank Fusion, scored so that the top of every leg that found anything is 1. */
function fuseRanks(vectorRows: LegRow[], textRows: LegRow[]): Candidate[] {
  const textWeight = vectorRows.length > 0 ? RRF_TEXT_WEIGHT : 1;
  const ranked = merge(vectorRows, textRows, (_, rank) => 1 / (RRF_K + rank + 1), (_, rank) => textWeight / (RRF_K + rank + 1));
  const best = ((vectorRows.length > 0 ? 1 : 0) + (textRows.length > 0 ? textWeight : 0)) / (RRF_K + 1);
  return ranked.map((hit) => ({ ...hit, score: Math.min(1, hit.score / best) }));
}

/**
 * A weighted sum of the legs' own scores: cosine similarity scaled to [0, 1] over the vector leg's
 * candidates, BM25 over the text leg's best. A leg that found nothing leaves its share to the
 * other; the best hit scores 1.
 */
function fuseScores(vectorRows: LegRow[], textRows: LegRow[]): Candidate[] {
  const both = vectorRows.length > 0 && textRows.length > 0;
  const vectorWeight = both ? SCORES_VECTOR_SHARE : 1;
  const textWeight = both ? 1 - SCORES_VECTOR_SHARE : 1;
  const similarities = vectorRows.map(similarityOf);
  const low = Math.min(...similarities);
  const range = Math.max(...similarities) - low;
  const bestText = Number(textRows[0]?.["_score"]) || 1;
  const ranked = merge(
    vectorRows,
    textRows,
    (row) => vectorWeight * (range > 0 ? (similarityOf(row) - low) / range : 1),
    (row) => (textWeight * Number(row["_score"])) / bestText,
  );
  const best = ranked[0]?.score || 1;
  return ranked.map((hit) => ({ ...hit, score: hit.score / best }));
}

/**
 * The hits' rows by id. Reading by row id is the fast path; a commit in between (a compaction
 * moves rows) can make a row id point elsewhere, which the id check catches, and then the rows
 * are read by id instead.
 */
export async function readRows(
  store: Store,
  key: VectorTableKey,
  hits: Pick<Candidate, "id" | "rowId">[],
  query: Pick<HybridQuery, "where" | "withVectors">,
): Promise<Map<string, Record<string, unknown>>> {
  if (hits.length === 0) return new Map();
  const columns = [...(await store.columns(key)), ...(query.withVectors ? ["vector"] : [])];
  const table = await store.table(key);
  const taken = await table
    .takeRowIds(hits.map((hit) => hit.rowId))
    .select(columns)
    .toArrow()
    .catch(() => undefined); // a row id into a fragment that a compaction removed
  const byId = new Map((taken ? fromArrowTable(taken) : []).map((row) => [String(row["id"]), row]));
  if (hits.every((hit) => byId.has(hit.id))) return byId;
  const rows = await store.select(key, sqlAnd(query.where, sqlIn("id", hits.map((hit) => hit.id))), { columns });
  return new Map(rows.map((row): [string, Record<string, unknown>] => [row.id, { ...row }]));
}
