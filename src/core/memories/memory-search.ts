import type { MemoryRow } from "../../store/rows.js";
import { nearestIds, unindexedVectors, type SearchMode } from "../../store/search.js";
import { contentWords } from "../../text/content-words.js";
import { UNSPACED_SCRIPT, unspacedTerms } from "../../text/unspaced-terms.js";
import type { CoreContext } from "../context.js";
import { fuseRanks, fuseRelevance, fuseScores, merge, type Candidate } from "../retrieval/fusion.js";
import { cosine } from "../retrieval/hybrid-search.js";
import { MIN_CANDIDATES, type LegCandidates } from "../retrieval/legs.js";
import { readByModel } from "../retrieval/read-by-model.js";
import { queryCoverage } from "../retrieval/relevance.js";
import { unrelatedSimilarity } from "../retrieval/unrelated-similarity.js";
import { filterTest, filterWhere, type MemoryFilter } from "./memory-filter.js";
import { memoryIndex, type MemoryIndex } from "./memory-index.js";

// Memory search. LanceDB finds the memories nearest the query's meaning (its vector index); the
// rest is answered from the memory index this process keeps of the user's memories (memory-index.ts):
// the memories holding the query's words, ranked by BM25, and every candidate's row and vector. A
// search was four LanceDB queries beside its embedding (both legs, the text index's statistics,
// the rows by address), each with a fixed cost of ~0.5–1 ms; it is one now (src/README.md).

export type MemoryColumn = Exclude<keyof MemoryRow, "vector">;

export interface MemorySearch<C extends MemoryColumn> {
  query: string;
  filter: MemoryFilter;
  limit: number;
  /** Candidates each leg gives fusion; by default three per hit, and at least MIN_CANDIDATES. */
  candidates?: number;
  columns: readonly C[];
  /** The query's vector when the caller has it (the near-duplicate check compares a memory's). */
  vector?: Float32Array;
  /** One leg alone (the near-duplicate check's nearest by meaning; the benchmark). */
  mode?: SearchMode;
  /** The benchmark's other fusions (core/retrieval/fusion.ts); "relevance" is the default. */
  fusion?: "rrf" | "scores" | "relevance";
  /** Memories still in the journal that `filter` covers, with their vectors (besideMemoryJournal). */
  pending?: readonly MemoryRow[];
}

export interface MemoryHit<C extends MemoryColumn> {
  row: Pick<MemoryRow, C>;
  /** In [0, 1]: how relevant the memory is (fuseRelevance); with "rrf" and "scores" the best hit is 1. */
  score: number;
  /** Cosine similarity to the query, when the vector leg found the memory. */
  similarity: number | undefined;
  vector: Float32Array;
}

/**
 * What the vector leg costs, in µs of one core: comparing a memory in memory (the index's scan);
 * LanceDB's query on its vector index, and each row the index does not cover yet, which LanceDB
 * compares one by one (a table has no index below VECTOR_INDEX_MIN_ROWS, and rows written since
 * the last maintenance are outside it). Measured at 3.9k and 10k memories (test/bench/README.md,
 * "Memory search from the memory index"). The cheaper one runs.
 */
const SCAN_US_PER_MEMORY = 0.3;
const LANCEDB_QUERY_US = 1_350;
const LANCEDB_US_PER_UNINDEXED_ROW = 1.2;

async function scanInMemory(ctx: CoreContext, index: MemoryIndex): Promise<boolean> {
  const scan = SCAN_US_PER_MEMORY * index.size;
  if (scan < LANCEDB_QUERY_US) return true;
  return scan < LANCEDB_QUERY_US + LANCEDB_US_PER_UNINDEXED_ROW * (await unindexedVectors(ctx.store, "memories"));
}

/** How often a search runs again when the table changed while LanceDB's leg ran (the legs saw two versions). */
const ATTEMPTS = 2;

type Nearest = { memory: MemoryRow; similarity: number };

/**
 * Memories ranked by relevance to a query, each with a score that says how relevant it is (in
 * [0, 1]; under PROBABLY_UNRELATED, core/retrieval/relevance.ts, it is probably unrelated): the words of the
 * query it holds, or how clearly its meaning stands out from the user's other memories
 * (core/retrieval/fusion.ts, fuseRelevance). Weighted RRF ranked a memory that shared one common word
 * ("use") above one that meant what was asked.
 */
export async function searchMemories<C extends MemoryColumn>(ctx: CoreContext, search: MemorySearch<C>): Promise<MemoryHit<C>[]> {
  const { userId } = search.filter;
  const [vector, unrelated] = await Promise.all([
    search.vector ?? ctx.embedder.embedQuery(search.query),
    search.fusion === undefined || search.fusion === "relevance" ? unrelatedSimilarity(ctx.embedder) : undefined,
    memoryIndex(ctx, userId), // brought up to date while the query is embedded
  ]);
  const candidates = Math.max(search.candidates ?? Math.max(search.limit * 3, MIN_CANDIDATES), search.limit);
  for (let attempt = 1; ; attempt++) {
    const index = await memoryIndex(ctx, userId);
    const pending = (search.pending ?? []).filter((row) => index.get(row.id) === undefined); // else the table's
    const searched = nearestMemories(ctx, index, vector, search, candidates, attempt === ATTEMPTS);
    const text = textLeg(index, search, pending, candidates); // while LanceDB looks for the nearest
    const nearest = await searched;
    if (!nearest) continue;
    const similar = vectorLeg(nearest, pending, vector, search, candidates);
    const rows = new Map([...nearest.map(({ memory }) => memory), ...pending, ...text.rows].map((row) => [row.id, row]));
    return fuse({ vector: similar, text: text.leg }, rows, search, unrelated, readByModel(ctx.embedder.id))
      .slice(0, search.limit)
      .map(({ key, score, similarity }) => {
        const row = rows.get(key)!;
        return { row: pick(row, search.columns), score, similarity, vector: row.vector };
      });
  }
}

/**
 * The table's memories nearest to the query vector, with their exact similarity, by the index
 * (in memory) or LanceDB's vector index; undefined when the table changed while LanceDB searched
 * it, unless this is the `last` attempt (then those it found that the index holds).
 */
async function nearestMemories(
  ctx: CoreContext,
  index: MemoryIndex,
  vector: Float32Array,
  search: MemorySearch<MemoryColumn>,
  candidates: number,
  last: boolean,
): Promise<Nearest[] | undefined> {
  if (search.mode === "bm25") return [];
  if (await scanInMemory(ctx, index)) return index.nearest(vector, filterTest(search.filter), candidates);
  const stamp = index.stamp;
  const ids = await nearestIds(ctx.store, "memories", { vector, where: filterWhere(search.filter), limit: candidates });
  const now = await memoryIndex(ctx, search.filter.userId);
  if ((now !== index || now.stamp !== stamp) && !last) return undefined;
  return ids.flatMap((id) => {
    const memory = index.get(id);
    return memory ? [{ memory, similarity: cosine(vector, memory.vector) }] : [];
  });
}

/** The vector leg: the table's nearest and the journal's memories, the `candidates` most similar. */
function vectorLeg(
  nearest: Nearest[],
  pending: MemoryRow[],
  vector: Float32Array,
  search: MemorySearch<MemoryColumn>,
  candidates: number,
): LegCandidates<string>["vector"] {
  if (search.mode === "bm25") return [];
  return [...nearest, ...pending.map((memory) => ({ memory, similarity: cosine(vector, memory.vector) }))]
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, candidates)
    .map(({ memory, similarity }) => ({ key: memory.id, similarity }));
}

/** The text leg: the index's best by BM25, then the journal's memories holding a word of the query; with their rows. */
function textLeg(index: MemoryIndex, search: MemorySearch<MemoryColumn>, pending: MemoryRow[], candidates: number) {
  if (search.mode === "vector" || search.query.trim() === "") return { leg: [], rows: [] };
  const stems = contentWords(search.query).filter((word) => !UNSPACED_SCRIPT.test(word));
  const found = index.ranked(stems, unspacedTerms(search.query), filterTest(search.filter), candidates);
  const coverage = queryCoverage(
    search.query,
    pending.map((row) => row.text),
  );
  const holding = pending.filter((_, i) => coverage[i]! > 0);
  return {
    leg: [...found.map(({ memory, score }) => ({ key: memory.id, score })), ...holding.map((row) => ({ key: row.id, score: 0 }))],
    rows: found.map(({ memory }) => memory),
  };
}

function fuse(
  legs: LegCandidates<string>,
  rows: Map<string, MemoryRow>,
  search: MemorySearch<MemoryColumn>,
  unrelated: number | undefined,
  reads: (text: string) => boolean,
): Candidate<string>[] {
  if (search.fusion === "rrf") return fuseRanks(legs);
  if (search.fusion === "scores") return fuseScores(legs);
  const candidates = merge(legs);
  const texts = candidates.map((candidate) => rows.get(candidate.key)!.text);
  return fuseRelevance(candidates, texts, search.query, unrelated, reads);
}

function pick<C extends MemoryColumn>(row: MemoryRow, columns: readonly C[]): Pick<MemoryRow, C> {
  return Object.fromEntries(columns.map((column) => [column, row[column]])) as Pick<MemoryRow, C>;
}
