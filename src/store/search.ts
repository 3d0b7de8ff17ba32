import * as lancedb from "@lancedb/lancedb";
import { fromArrowTable } from "./convert.js";
import type { TableRows } from "./rows.js";
import type { VectorTableKey } from "./schema.js";
import { indexOn } from "./maintenance.js";
import { TEXT_INDEX } from "./migrations.js";
import { sqlString } from "./sql.js";
import { type Filter, predicate } from "./where.js";
import type { Store } from "./store.js";
import { unspacedTerms } from "../text/unspaced-terms.js";

// The store's half of search: each leg's candidates with their raw scores, and the rows at given
// addresses. How candidates are fused, scored and ranked is core/retrieval's (legs.ts, fusion.ts).

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
}

/** A row a leg found, by its address in the table version the leg searched. */
export interface VectorCandidate {
  rowId: bigint;
  /** Cosine distance to the query vector. */
  distance: number;
}
export interface TextCandidate {
  rowId: bigint;
  /** BM25 (its scale moves with the text index's statistics: rank by it, never compare it across searches). */
  score: number;
}
export interface SubstringCandidate {
  rowId: bigint;
  /** How many of the query's unspaced-script words its text holds. */
  found: number;
}
export interface LegResults {
  /** Nearest first, `candidates` at most. */
  vector: VectorCandidate[];
  /** The candidates by BM25, and the rows the text index does not cover yet (the core ranks them). */
  text: TextCandidate[];
  /** The substring scan's rows, most words found first, `candidates` at most. */
  substring: SubstringCandidate[];
  /** The unspaced-script words the substring scan looked for (none: it did not run). */
  substringWords: number;
}

/**
 * Vector and full-text (BM25) search run side by side on the same prefilter. The legs return row
 * addresses only, which LanceDB gives without reading the table (reading even the id column for
 * every candidate took a third of a leg's CPU); readRows reads the columns of the rows kept.
 * Running the legs ourselves (rather than LanceDB's hybrid query) lets the core weight them and
 * run either alone, which the retrieval benchmark compares.
 */
export async function searchLegs<K extends VectorTableKey>(store: Store, key: K, legQuery: LegQuery<K>): Promise<LegResults> {
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
      vector: vectorRows.map((row) => ({ rowId: rowIdOf(row), distance: Number(row["_distance"]) })),
      text: indexedRows.map((row) => ({ rowId: rowIdOf(row), score: Number(row["_score"]) })),
      substring: substringRows.map((row) => ({ rowId: rowIdOf(row), found: Number(row["_score"]) })),
      substringWords: words.length,
    };
  });
}

type LegRow = Record<string, unknown>;
type PredicateQuery = Omit<LegQuery<VectorTableKey>, "where"> & { where: string };

/**
 * The vector leg: the nearest rows' addresses and cosine distances. The index's quantised
 * distances keep the order but not the value (0.11 for a cosine of 0.55): a caller that reads the
 * value works it out from the rows' vectors.
 */
async function vectorLeg(table: lancedb.Table, query: PredicateQuery): Promise<LegRow[]> {
  const nearest = nearestTo(table, query.vector, query.where);
  // Asking for the score columns by name keeps Lance from warning that it adds them on its own.
  return fromArrowTable(await nearest.select(["_distance"]).withRowId().limit(query.candidates).toArrow());
}

/**
 * How many of a table's rows its vector index does not cover (every row, without one): LanceDB
 * compares each of those with the query. Read again when the table changes.
 */
export async function unindexedVectors(store: Store, key: VectorTableKey): Promise<number> {
  return store.memo(`unindexed-vectors:${key}`, [key], () =>
    store.guard(key, async (table) => {
      const index = await indexOn(table, "vector");
      const stats = index && (await table.indexStats(index.name));
      return stats ? stats.numUnindexedRows : await table.countRows();
    }),
  );
}

/**
 * The ids of the rows nearest to a vector, nearest first, `limit` at most (the vector leg alone,
 * for a caller that holds the rows themselves: the memory search, core/memories/memory-search.ts).
 */
export async function nearestIds<K extends VectorTableKey>(
  store: Store,
  key: K,
  query: { vector: Float32Array; where: Filter<K>; limit: number },
): Promise<string[]> {
  return store.guard(key, async (table) => {
    const nearest = nearestTo(table, query.vector, predicate(query.where));
    const rows = fromArrowTable(await nearest.select(["id", "_distance"]).limit(query.limit).toArrow());
    return rows.map((row) => String(row["id"]));
  });
}

/** The rows `where` takes, nearest to `vector` by cosine distance first. */
function nearestTo(table: lancedb.Table, vector: Float32Array, where: string) {
  return table.vectorSearch(vector).distanceType("cosine").where(where);
}

/** Most rows the full-text leg reads beyond its candidates to rank the rows its index does not cover yet. */
const UNINDEXED_TEXT_ROWS = 20_000;

/**
 * The full-text (BM25) leg. LanceDB searches the rows its index does not cover yet (those written
 * since the last maintenance) one by one and cuts them to the limit in storage order before it
 * ranks them: with a limit of 3, a new row that holds every word of the query lost to three older
 * ones that hold one. So the leg asks for its candidates plus those rows (the core ranks them).
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
