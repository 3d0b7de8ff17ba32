import type { TableRows } from "../../store/rows.js";
import type { VectorTableKey } from "../../store/schema.js";
import { readRows, searchLegs, type HitColumn, type SearchMode } from "../../store/search.js";
import type { Store } from "../../store/store.js";
import type { Filter } from "../../store/where.js";
import { fuseRanks, fuseRelevance, fuseScores, merge, type Candidate } from "./fusion.js";
import { type LegCandidates, MIN_CANDIDATES, rankedLegs } from "./legs.js";
import { queryCoverage } from "./relevance.js";

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
   * How the legs are fused: "rrf" (by rank, the default); "scores", a weighted sum of each leg's
   * own scores, which keeps how far ahead the best hits are rather than only their order; or
   * "relevance", an absolute score from the candidates' text and exact similarity (see
   * fuseRelevance), which reads the text of every candidate.
   */
  fusion?: "rrf" | "scores" | "relevance";
  /**
   * With "relevance": the cosine similarity that this embedder gives unrelated texts (a high one);
   * a row must be more similar than this for its meaning to count.
   */
  unrelatedSimilarity?: number;
  /** Exact similarities for every hit, worked out from its vector (always so with "relevance"). */
  exact?: boolean;
  /** Also return each row's vector (for a second-stage comparison). */
  withVectors?: boolean;
  /**
   * The columns read for the hits; all but the vector by default. Name only those the caller
   * uses: LanceDB reads each column of each hit on its own (5 memories at 10k: 2 columns cost
   * 0.55 ms of CPU, all 11 1.4 ms).
   */
  columns?: readonly C[];
  /**
   * Rows not in the table yet (the store's journal's), already filtered as `where` filters: searched
   * beside the table, in memory (withPending). A row also found in the table is the table's.
   */
  pending?: readonly PendingRow[];
}

/** A row searched beside the table: its id, text and vector, and the columns a hit shows. */
interface PendingRow {
  id: string;
  text: string;
  vector: Float32Array;
}

export interface Hit<Row> {
  row: Row;
  /** In [0, 1]. "rrf" and "scores": the best hit is 1; "relevance": how relevant the row is (see fuseRelevance). */
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
    const vector = rows.get(hit.rowId)?.["vector"];
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

/**
 * The legs' candidates with the pending rows among them, as the legs would have found them in the
 * table: the vector leg keeps the `candidates` most similar of both (a pending row's similarity is
 * exact), the text leg takes every pending row holding a word of the query, after its own (BM25
 * has no score for them; "relevance" fusion reads none). A pending row's address is negative.
 */
function withPending(
  legs: LegCandidates,
  pending: readonly PendingRow[],
  query: HybridQuery,
  mode: SearchMode,
  candidates: number,
): { legs: LegCandidates; pendingRows: Map<bigint, PendingRow> } {
  const pendingRows = new Map(pending.map((row, i) => [-BigInt(i + 1), row]));
  if (pendingRows.size === 0) return { legs, pendingRows };
  const addresses = [...pendingRows.keys()];
  const vector =
    mode === "bm25"
      ? legs.vector
      : [...legs.vector, ...addresses.map((rowId) => ({ rowId, similarity: cosine(query.vector, pendingRows.get(rowId)!.vector) }))]
          .sort((a, b) => b.similarity - a.similarity)
          .slice(0, candidates);
  const runText = mode !== "vector" && query.text.trim().length > 0;
  const coverage = runText
    ? queryCoverage(
        query.text,
        pending.map((row) => row.text),
      )
    : [];
  const text = [...legs.text, ...addresses.filter((_, i) => coverage[i]! > 0).map((rowId) => ({ rowId, score: 0 }))];
  return { legs: { vector, text }, pendingRows };
}

/**
 * The rows read from the table, and the pending ones asked for (their columns `names`). A pending
 * row whose memory the table holds too (absorbed while the search ran) is left out, and noted in
 * `shadowed`: the table's counts.
 */
function withPendingRows(
  rows: Map<bigint, Record<string, unknown>>,
  pendingRows: Map<bigint, PendingRow>,
  rowIds: bigint[],
  names: string[],
  shadowed: Set<bigint>,
): Map<bigint, Record<string, unknown>> {
  if (pendingRows.size === 0) return rows;
  const stored = new Set([...rows.values()].map((row) => row["id"]));
  for (const rowId of rowIds) {
    const row = pendingRows.get(rowId);
    if (!row) continue;
    if (stored.has(row.id)) shadowed.add(rowId);
    else rows.set(rowId, Object.fromEntries(names.map((name) => [name, (row as unknown as Record<string, unknown>)[name] ?? null])));
  }
  return rows;
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
  const mode = query.mode ?? "hybrid";
  const results = await searchLegs(store, key, {
    vector: query.vector,
    text: query.text,
    where: query.where,
    candidates,
    mode,
    // "relevance" reads every candidate's similarity; otherwise the top hits' are worked out from
    // their vectors, read with them (cheaper than refining all the leg's candidates).
    exact: query.fusion === "relevance",
  });
  const stored = rankedLegs(results, candidates);
  const { legs, pendingRows } = withPending(stored, query.pending ?? [], query, mode, candidates);
  const columns = [...(query.columns ?? (await store.columns(key))), ...(query.withVectors ? ["vector"] : [])];
  const read = async (rowIds: bigint[], names: string[]) => {
    const rows = await readRows(
      store,
      key,
      rowIds.filter((rowId) => !pendingRows.has(rowId)),
      pendingRows.size > 0 && !names.includes("id") ? [...names, "id"] : names,
    ).catch((error: unknown) => {
      if (last) throw error;
      return new Map<bigint, Record<string, unknown>>();
    });
    return withPendingRows(rows, pendingRows, rowIds, names, shadowed);
  };
  /** Pending rows the table holds too (absorbed while the search ran): not missing, only the table's. */
  const shadowed = new Set<bigint>();
  let top: Candidate[];
  let rows: Map<bigint, Record<string, unknown>>;
  let missing = false;
  if (query.fusion === "relevance") {
    // Every candidate's text is read to score it; its other columns come along (a few short ones).
    const candidates = merge(legs);
    rows = await read(
      candidates.map((candidate) => candidate.rowId),
      [...new Set([...columns, "text"])],
    );
    const present = candidates.filter((candidate) => rows.has(candidate.rowId));
    missing = present.length + shadowed.size < candidates.length;
    const texts = present.map((candidate) => String(rows.get(candidate.rowId)!["text"] ?? ""));
    top = fuseRelevance(present, texts, query.text, query.unrelatedSimilarity).slice(0, query.limit);
  } else {
    top = (query.fusion === "scores" ? fuseScores : fuseRanks)(legs).slice(0, query.limit);
    rows = await read(
      top.map((hit) => hit.rowId),
      query.exact && !columns.includes("vector") ? [...columns, "vector"] : columns,
    );
    if (query.exact) top = withSimilarities(top, query.vector, rows);
    top = top.filter((hit) => !shadowed.has(hit.rowId));
  }
  const hits = top.flatMap(({ rowId, score, similarity, textMatched }) => {
    const row = rows.get(rowId);
    if (!row) return [];
    const { vector, ...rest } = row;
    if (!columns.includes("text")) delete rest["text"];
    if (!columns.includes("id")) delete rest["id"];
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
  return { hits, complete: !missing && hits.length === top.length };
}
