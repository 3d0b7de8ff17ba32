import * as lancedb from "@lancedb/lancedb";
import { fromArrowTable } from "./convert.js";
import type { TableRows } from "./rows.js";
import type { VectorTableKey } from "./schema.js";
import { TEXT_INDEX } from "./migrations.js";
import { sqlString } from "./sql.js";
import type { Store } from "./store.js";
import { queryCoverage, relevance } from "../text/relevance.js";
import { unspacedTerms } from "../text/unspaced-terms.js";

export type SearchMode = "hybrid" | "vector" | "bm25";

/** The columns of a vector table a search can return (the vector comes with `withVectors`). */
export type HitColumn<K extends VectorTableKey> = Exclude<keyof TableRows[K], "vector"> & string;

export interface HybridQuery<C extends string = string> {
  vector: Float32Array;
  text: string;
  /** Prefilter applied to both legs (user scope, provider, active…). */
  where: string;
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
 * Fusion settings, tuned on LoCoMo (test/bench/README.md). RRF: a smaller k than the customary 60
 * lets a leg's top ranks count, and BM25 weighs twice the vector leg — names, places and dates
 * carry chat-history questions. Scores: the vector leg's share of the sum.
 */
const RRF_K = 20;
const RRF_TEXT_WEIGHT = 2;
const SCORES_VECTOR_SHARE = 0.3;

type LegRow = Record<string, unknown>;

interface Candidate {
  /** The row's address in the table version the leg searched. */
  rowId: bigint;
  score: number;
  similarity: number | undefined;
  textMatched: boolean;
}

/**
 * The fewest candidates a leg fetches. Fusion ranks what the legs found, so the depth shapes the
 * order: at three per hit, the top 5 of 95 in 100 queries (10k memories) differed between limit 5
 * and limit 10, and pages of one query repeated or skipped hits. At a fixed depth they agree (0 in
 * 100), at no measurable cost (50 candidates cost what 15 did).
 */
export const MIN_CANDIDATES = 60;

/** How often a search runs again when a commit moved its hits' rows before they were read. */
const ATTEMPTS = 2;

/**
 * Vector and full-text (BM25) search run side by side on the same prefilter and are fused (see
 * `fusion`). Running the legs ourselves (rather than LanceDB's hybrid query) lets us weight them
 * and run either alone, which the retrieval benchmark compares. The legs return row addresses
 * only, which LanceDB gives without reading the table (reading even the id column for every
 * candidate took a third of a leg's CPU); the columns are read for the fused top `limit` alone.
 */
export async function hybridSearch<K extends VectorTableKey, C extends HitColumn<K> = HitColumn<K>>(
  store: Store,
  key: K,
  query: HybridQuery<C>,
): Promise<Hit<Pick<TableRows[K], C>>[]> {
  return store.guard(key, async () => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt === ATTEMPTS;
      const { hits, complete } = await searchOnce(store, key, query, last);
      if (complete || last) return hits;
    }
  });
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
  query: HybridQuery<C>,
  last: boolean,
): Promise<{ hits: Hit<Pick<TableRows[K], C>>[]; complete: boolean }> {
  const mode = query.mode ?? "hybrid";
  const candidates = Math.max(query.candidates ?? Math.max(query.limit * 3, MIN_CANDIDATES), query.limit);
  const table = await store.table(key);
  const runVector = mode !== "bm25";
  const runText = mode !== "vector" && query.text.trim().length > 0;

  const words = runText ? unspacedTerms(query.text) : [];
  const [vectorRows, indexedRows, substringRows] = await Promise.all([
    !runVector ? [] : vectorLeg(table, query, candidates),
    !runText ? [] : textLeg(table, query, candidates),
    substringLeg(table, query.where, words, candidates),
  ]);
  const textRows = withSubstringRows(indexedRows, substringRows, words.length).slice(0, candidates);

  const columns = [...(query.columns ?? (await store.columns(key))), ...(query.withVectors ? ["vector"] : [])];
  const read = (rowIds: bigint[], names: string[]) =>
    readRows(store, key, rowIds, names).catch((error: unknown) => {
      if (last) throw error;
      return new Map<bigint, Record<string, unknown>>();
    });
  let top: Candidate[];
  let rows: Map<bigint, Record<string, unknown>>;
  let missing = false;
  if (query.fusion === "relevance") {
    // Every candidate's text is read to score it; its other columns come along (a few short ones).
    const candidates = merge(
      vectorRows,
      textRows,
      () => 0,
      () => 0,
    );
    rows = await read(
      candidates.map((candidate) => candidate.rowId),
      [...new Set([...columns, "text"])],
    );
    missing = candidates.some((candidate) => !rows.has(candidate.rowId));
    top = fuseRelevance(candidates, rows, query).slice(0, query.limit);
  } else {
    top = (query.fusion === "scores" ? fuseScores : fuseRanks)(vectorRows, textRows).slice(0, query.limit);
    rows = await read(
      top.map((hit) => hit.rowId),
      columns,
    );
  }
  const hits = top.flatMap(({ rowId, score, similarity, textMatched }) => {
    const row = rows.get(rowId);
    if (!row) return [];
    const { vector, ...rest } = row;
    if (!columns.includes("text")) delete rest["text"];
    return [
      {
        row: rest as Pick<TableRows[K], C>,
        score,
        similarity,
        textMatched,
        vector: vector instanceof Float32Array ? vector : undefined,
      },
    ];
  });
  return { hits, complete: !missing && hits.length === top.length };
}

/** The vector leg: the nearest rows' addresses and cosine distances. */
async function vectorLeg(table: lancedb.Table, query: HybridQuery, candidates: number): Promise<LegRow[]> {
  const nearest = table.vectorSearch(query.vector).distanceType("cosine");
  // The index's quantised distances keep the order but not the value (0.11 for a cosine of 0.55):
  // "relevance" reads the similarity itself, so its candidates are measured exactly (+0.7 ms).
  const search = query.fusion === "relevance" ? nearest.refineFactor(1) : nearest;
  // Asking for the score columns by name keeps Lance from warning that it adds them on its own.
  return fromArrowTable(await search.where(query.where).select(["_distance"]).withRowId().limit(candidates).toArrow());
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
async function textLeg(table: lancedb.Table, query: HybridQuery, candidates: number): Promise<LegRow[]> {
  const unindexed = (await table.indexStats(TEXT_INDEX))?.numUnindexedRows ?? 0;
  const limit = candidates + Math.min(unindexed, UNINDEXED_TEXT_ROWS);
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

/** Cosine similarity of a vector-leg row (the leg returns cosine distance). */
const similarityOf = (row: LegRow) => 1 - Number(row["_distance"]);

type LegScore = (row: LegRow, rank: number) => number;

/** The legs' rows as candidates: each leg scores its own rows, and a row both legs found adds up. */
function merge(vectorRows: LegRow[], textRows: LegRow[], vectorScore: LegScore, textScore: LegScore): Candidate[] {
  const fused = new Map<bigint, Candidate>();
  vectorRows.forEach((row, rank) => {
    const rowId = rowIdOf(row);
    fused.set(rowId, { rowId, score: vectorScore(row, rank), similarity: similarityOf(row), textMatched: false });
  });
  textRows.forEach((row, rank) => {
    const rowId = rowIdOf(row);
    const existing = fused.get(rowId);
    if (existing) {
      existing.score += textScore(row, rank);
      existing.textMatched = true;
    } else {
      fused.set(rowId, { rowId, score: textScore(row, rank), similarity: undefined, textMatched: true });
    }
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/** Reciprocal Rank Fusion, scored so that the top of every leg that found anything is 1. */
function fuseRanks(vectorRows: LegRow[], textRows: LegRow[]): Candidate[] {
  const textWeight = vectorRows.length > 0 ? RRF_TEXT_WEIGHT : 1;
  const ranked = merge(
    vectorRows,
    textRows,
    (_, rank) => 1 / (RRF_K + rank + 1),
    (_, rank) => textWeight / (RRF_K + rank + 1),
  );
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

/** The candidate whose similarity is the reference: what an ordinary memory scores for this query. */
const REFERENCE_RANK = 5;

/**
 * An absolute relevance in [0, 1], from two readings of each candidate: how much of the query's
 * words it holds, and how far its meaning stands out from the user's other rows: its similarity
 * above a reference, the sixth-best similarity or the embedder's unrelated level when that is
 * higher. The stronger of the two counts (text/relevance.ts, relevance). So one shared common word
 * (0.2) does not beat a memory that clearly means what was asked (0.8), and a query about nothing
 * stored scores low whatever its rank. Measured on LoCoMo and on paraphrased questions
 * (test/bench/README.md).
 */
function fuseRelevance(candidates: Candidate[], rows: Map<bigint, Record<string, unknown>>, query: HybridQuery): Candidate[] {
  const present = candidates.filter((candidate) => rows.has(candidate.rowId));
  const words = queryCoverage(
    query.text,
    present.map((candidate) => String(rows.get(candidate.rowId)!["text"] ?? "")),
  );
  const similarities = present.flatMap((candidate) => (candidate.similarity === undefined ? [] : [candidate.similarity]));
  similarities.sort((a, b) => b - a);
  const reference = Math.max(
    similarities[Math.min(REFERENCE_RANK, similarities.length - 1)] ?? 1,
    query.unrelatedSimilarity ?? Number.NEGATIVE_INFINITY,
  );
  const scored = present.map((candidate, i) => ({ ...candidate, score: relevance(words[i]!, candidate.similarity, reference) }));
  // Ties (often 0) keep the legs' order: the vector leg's first.
  return scored.sort((a, b) => b.score - a.score);
}

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
  const table = await store.table(key);
  const taken = await table.takeRowIds(rowIds).select(columns).withRowId().toArrow();
  return new Map(fromArrowTable(taken).map(({ _rowid, ...row }) => [BigInt(_rowid as bigint | number), row]));
}
