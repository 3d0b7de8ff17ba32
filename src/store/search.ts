import * as lancedb from "@lancedb/lancedb";
import { fromArrowTable } from "./convert.js";
import type { TableRows } from "./rows.js";
import type { VectorTableKey } from "./schema.js";
import { TEXT_INDEX } from "./migrations.js";
import { sqlString } from "./sql.js";
import { type Filter, predicate } from "./where.js";
import type { Store } from "./store.js";
import { unspacedTerms } from "../text/unspaced-terms.js";

// The store's half of search: each leg's candidates with their raw scores, and the rows at given
// addresses. How candidates are fused, scored and ranked is core/retrieval's (hybrid-search.ts).

export type SearchMode = "hybrid" | "vector" | "bm25";

/** The columns of a vector table a search can return (the vector comes with `withVectors`). */
export type HitColumn<K extends VectorTableKey> = Exclude<keyof TableRows[K], "vector"> & string;

export interface LegQuery<K extends VectorTableKey> {
  vector: Float32Array;
  text: string;
  /** Prefilter applied to both legs (user scope, provider, active…). */
  where: Filter<K>;
  /** Candidates each leg returns at most. */
  candidates: number;
  mode: SearchMode;
  /**
   * Exact similarities: the index's quantised distances keep the order but not the value (0.11
   * for a cosine of 0.55), so a caller that reads the value asks for them (+0.7 ms at 60).
   */
  exact: boolean;
}

/** A row a leg found, by its address in the table version the leg searched. */
export interface VectorCandidate {
  rowId: bigint;
  /** Cosine similarity to the query vector. */
  similarity: number;
}
export interface TextCandidate {
  rowId: bigint;
  /** BM25 (its scale moves with the text index's statistics: rank by it, never compare it across searches). */
  score: number;
}
export interface LegCandidates {
  /** Most similar first. */
  vector: VectorCandidate[];
  /** Best BM25 first. */
  text: TextCandidate[];
}

/**
 * The fewest candidates a leg fetches. Fusion ranks what the legs found, so the depth shapes the
 * order: at three per hit, the top 5 of 95 in 100 queries (10k memories) differed between limit 5
 * and limit 10, and pages of one query repeated or skipped hits. At a fixed depth they agree (0 in
 * 100), at no measurable cost (50 candidates cost what 15 did).
 */
export const MIN_CANDIDATES = 60;

/**
 * Vector and full-text (BM25) search run side by side on the same prefilter. The legs return row
 * addresses only, which LanceDB gives without reading the table (reading even the id column for
 * every candidate took a third of a leg's CPU); readRows reads the columns of the rows kept.
 * Running the legs ourselves (rather than LanceDB's hybrid query) lets the core weight them and
 * run either alone, which the retrieval benchmark compares.
 */
export async function searchLegs<K extends VectorTableKey>(store: Store, key: K, legQuery: LegQuery<K>): Promise<LegCandidates> {
  const query = { ...legQuery, where: predicate(legQuery.where) };
  return store.guard(key, async (table) => {
    const runVector = query.mode !== "bm25";
    const runText = query.mode !== "vector" && query.text.trim().length > 0;
    const words = runText ? unspacedTerms(query.text) : [];
    const [vectorRows, indexedRows, substringRows] = await Promise.all([
      !runVector ? [] : vectorLeg(table, query),
      !runText ? [] : textLeg(table, query),
      substringLeg(table, query.where, words, query.candidates),
    ]);
    return {
      vector: vectorRows.map((row) => ({ rowId: rowIdOf(row), similarity: 1 - Number(row["_distance"]) })),
      text: withSubstringRows(indexedRows, substringRows, words.length)
        .slice(0, query.candidates)
        .map((row) => ({ rowId: rowIdOf(row), score: Number(row["_score"]) })),
    };
  });
}

type LegRow = Record<string, unknown>;
type PredicateQuery = Omit<LegQuery<VectorTableKey>, "where"> & { where: string };

/** The vector leg: the nearest rows' addresses and cosine distances. */
async function vectorLeg(table: lancedb.Table, query: PredicateQuery): Promise<LegRow[]> {
  const nearest = table.vectorSearch(query.vector).distanceType("cosine");
  const search = query.exact ? nearest.refineFactor(1) : nearest;
  // Asking for the score columns by name keeps Lance from warning that it adds them on its own.
  return fromArrowTable(await search.where(query.where).select(["_distance"]).withRowId().limit(query.candidates).toArrow());
}

/** Most rows the full-text leg reads beyond its candidates to rank the rows its index does not cover yet. */
const UNINDEXED_TEXT_ROWS = 20_000;

/**
 * The full-text (BM25) leg. LanceDB searches the rows its index does not cover yet (those written
 * since the last maintenance) one by one and cuts them to the limit in storage order before it
 * ranks them: with a limit of 3, a new row that holds every word of the query lost to three older
 * ones that hold one. So the leg asks for its candidates plus those rows, and ranks them itself.
 *
 * The query is words, never query syntax: a plain string goes through LanceDB's query parser,
 * which reads a query in double quotes (`"tram 28"`, `""`) as a phrase and fails on an index
 * without positions. A MatchQuery tokenizes the text as the index did and matches any of its words.
 */
async function textLeg(table: lancedb.Table, query: PredicateQuery): Promise<LegRow[]> {
  const unindexed = (await table.indexStats(TEXT_INDEX))?.numUnindexedRows ?? 0;
  const limit = query.candidates + Math.min(unindexed, UNINDEXED_TEXT_ROWS);
  const words = new lancedb.MatchQuery(query.text, "text");
  return fromArrowTable(await table.search(words, "fts").where(query.where).select(["_score"]).withRowId().limit(limit).toArrow());
}

/** Rows a substring scan reads at most before it scores them: a common word must not read a whole table. */
const SUBSTRING_SCAN_ROWS = 2_000;

/**
 * The rows whose text holds a query's words in unspaced scripts (see unspacedTerms), scored by how
 * many of them: the full-text index cannot find such words. Only queries with such words run it.
 */
async function substringLeg(table: lancedb.Table, where: string, words: string[], limit: number): Promise<LegRow[]> {
  if (words.length === 0) return [];
  const any = words.map((word) => `text LIKE ${sqlString(`%${word}%`)}`).join(" OR ");
  const rows = fromArrowTable(
    await table.query().where(`(${where}) AND (${any})`).select(["text"]).withRowId().limit(SUBSTRING_SCAN_ROWS).toArrow(),
  );
  return rows
    .map((row) => ({ _rowid: row["_rowid"], _score: words.filter((word) => String(row["text"]).includes(word)).length }))
    .sort((a, b) => b._score - a._score)
    .slice(0, limit);
}

/**
 * The full-text leg's rows and the substring scan's rows it missed, ranked by score: the scan's
 * on the index's scale (all the words found scores as its best hit).
 */
function withSubstringRows(indexed: LegRow[], substring: LegRow[], words: number): LegRow[] {
  const known = new Set(indexed.map(rowIdOf));
  const best = Math.max(0, ...indexed.map((row) => Number(row["_score"]))) || 1;
  const missed = substring
    .filter((row) => !known.has(rowIdOf(row)))
    .map((row) => ({ ...row, _score: (best * Number(row["_score"])) / words }));
  return [...indexed, ...missed].sort((a, b) => Number(b["_score"]) - Number(a["_score"]));
}

const rowIdOf = (row: LegRow) => BigInt(row["_rowid"] as bigint | number);

/**
 * These columns of the rows at these addresses, by address. A row that a commit since moved
 * (compaction) or deleted is missing from the result: LanceDB skips addresses that no longer lead
 * to a live row.
 */
export async function readRows(
  store: Store,
  key: VectorTableKey,
  rowIds: bigint[],
  columns: string[],
): Promise<Map<bigint, Record<string, unknown>>> {
  if (rowIds.length === 0) return new Map();
  return store.guard(key, async (table) => {
    const taken = await table.takeRowIds(rowIds).select(columns).withRowId().toArrow();
    return new Map(fromArrowTable(taken).map(({ _rowid, ...row }) => [BigInt(_rowid as bigint | number), row]));
  });
}
