import type { LegCandidates, TextCandidate, VectorCandidate } from "./legs.js";
import { queryCoverageOf, relevance } from "./relevance.js";
import { holds, queryTerms, textWords, weightedShare, type QueryTerm } from "../../text/word-rarity.js";

// How the legs' candidates become one ranking (chat search: hybrid-search.ts; memories:
// core/memories/memory-search.ts). Each returns the candidates best first, with a score in [0, 1].

export interface Candidate<Key = bigint> {
  /** The row's address in the table version the legs searched, or (memories) its id. */
  key: Key;
  score: number;
  /** Cosine similarity to the query, when the vector leg found the row. */
  similarity: number | undefined;
  /** Whether the full-text leg found it (it shares a term with the query). */
  textMatched: boolean;
}

/**
 * Fusion settings, tuned on LoCoMo (test/bench/README.md). RRF: a smaller k than the customary 60
 * lets a leg's top ranks count, and BM25 weighs twice the vector leg — names, places and dates
 * carry chat-history questions. Scores: the vector leg's share of the sum.
 */
const RRF_K = 20;
const RRF_TEXT_WEIGHT = 2;
const SCORES_VECTOR_SHARE = 0.3;

type LegScore<R> = (row: R, rank: number) => number;

/** The legs' rows as candidates: each leg scores its own rows, and a row both legs found adds up. */
export function merge<Key>(
  legs: LegCandidates<Key>,
  vectorScore: LegScore<VectorCandidate<Key>> = () => 0,
  textScore: LegScore<TextCandidate<Key>> = () => 0,
): Candidate<Key>[] {
  const fused = new Map<Key, Candidate<Key>>();
  legs.vector.forEach((row, rank) => {
    fused.set(row.key, { key: row.key, score: vectorScore(row, rank), similarity: row.similarity, textMatched: false });
  });
  legs.text.forEach((row, rank) => {
    const existing = fused.get(row.key);
    if (existing) {
      existing.score += textScore(row, rank);
      existing.textMatched = true;
    } else {
      fused.set(row.key, { key: row.key, score: textScore(row, rank), similarity: undefined, textMatched: true });
    }
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/** Reciprocal Rank Fusion, scored so that the top of every leg that found anything is 1. */
export function fuseRanks<Key>(legs: LegCandidates<Key>): Candidate<Key>[] {
  const textWeight = legs.vector.length > 0 ? RRF_TEXT_WEIGHT : 1;
  const ranked = merge(
    legs,
    (_, rank) => 1 / (RRF_K + rank + 1),
    (_, rank) => textWeight / (RRF_K + rank + 1),
  );
  const best = ((legs.vector.length > 0 ? 1 : 0) + (legs.text.length > 0 ? textWeight : 0)) / (RRF_K + 1);
  return ranked.map((hit) => ({ ...hit, score: Math.min(1, hit.score / best) }));
}

/**
 * A weighted sum of the legs' own scores: cosine similarity scaled to [0, 1] over the vector leg's
 * candidates, BM25 over the text leg's best. A leg that found nothing leaves its share to the
 * other; the best hit scores 1. The order only: the scale is this query's own.
 */
export function fuseScores<Key>(legs: LegCandidates<Key>): Candidate<Key>[] {
  const both = legs.vector.length > 0 && legs.text.length > 0;
  const vectorWeight = both ? SCORES_VECTOR_SHARE : 1;
  const textWeight = both ? 1 - SCORES_VECTOR_SHARE : 1;
  const similarities = legs.vector.map((row) => row.similarity);
  const low = Math.min(...similarities);
  const range = Math.max(...similarities) - low;
  const bestText = legs.text[0]?.score || 1;
  const ranked = merge(
    legs,
    (row) => vectorWeight * (range > 0 ? (row.similarity - low) / range : 1),
    (row) => (textWeight * row.score) / bestText,
  );
  const best = ranked[0]?.score || 1;
  return ranked.map((hit) => ({ ...hit, score: hit.score / best }));
}

/**
 * The candidate whose similarity is the reference: what an ordinary memory scores for this query.
 * With fewer candidates than that the store is too small to say, and the embedder's unrelated
 * level alone is the reference: with two memories, the other one had been it, and "what kind of
 * pet do I have?" scored the dog 0.29 because the allergy was nearly as like the question.
 */
const REFERENCE_RANK = 5;
/**
 * A query that names someone or something (a capitalised word inside it) that no candidate holds
 * is about what the store does not have: its scores are multiplied by this. LoCoMo: questions of
 * another user's conversations name people that user never spoke of (test/bench/README.md).
 */
const ABSENT_NAME_FACTOR = 0.5;
/**
 * The share of the query's information (its words' self-information, text/word-rarity.ts) that
 * the candidates must hold between them for a shared word to count in full; below it the words'
 * sign shrinks in proportion. "how does a transistor work" against a store that never mentions a
 * transistor is not about "My work laptop…" ("work" was half the query by the store's own
 * rarity), while "what do I put on while working" still finds "I listen to jazz while I work".
 * Meaning is untouched: a paraphrase shares no word with the store by nature. A date's words do not
 * count: memories keep their time beside their text ("which state was Sam in during October 2023?").
 */
const STORE_WORDS_KNEE = 0.5;

/**
 * An absolute relevance in [0, 1], from two readings of each candidate: how much of the query's
 * words it holds, and how far its meaning stands out from the user's other rows: its similarity
 * above a reference, the sixth-best similarity or the embedder's unrelated level when that is
 * higher; no meaning where the model cannot read the query or the candidate (read-by-model.ts).
 * The stronger of the two counts (relevance.ts). So one shared common word
 * (0.2) does not beat a memory that clearly means what was asked (0.8), and a query about nothing
 * stored scores low whatever its rank. Measured on LoCoMo and on paraphrased questions
 * (test/bench/README.md).
 */
export function fuseRelevance<Key>(
  candidates: Candidate<Key>[],
  texts: string[],
  query: string,
  unrelatedSimilarity: number | undefined,
  readByModel: (text: string) => boolean,
): Candidate<Key>[] {
  const held = texts.map(textWords);
  const words = queryCoverageOf(query, held);
  const queryRead = readByModel(query);
  const meant = candidates.map((candidate, i) => (queryRead && readByModel(texts[i]!) ? candidate.similarity : undefined));
  const similarities = meant.flatMap((similarity) => (similarity === undefined ? [] : [similarity]));
  similarities.sort((a, b) => b - a);
  const reference = Math.max(
    similarities[REFERENCE_RANK] ?? (unrelatedSimilarity === undefined ? (similarities.at(-1) ?? 1) : Number.NEGATIVE_INFINITY),
    unrelatedSimilarity ?? Number.NEGATIVE_INFINITY,
  );
  const terms = queryTerms(query);
  const inStore = (term: QueryTerm) => held.some((words) => holds(words, term));
  const factor = terms.some((term) => term.name && !inStore(term)) ? ABSENT_NAME_FACTOR : 1;
  const topical = terms.filter((term) => !term.date);
  const wordsFactor = topical.length === 0 ? 1 : Math.min(1, weightedShare(topical, inStore) / STORE_WORDS_KNEE);
  const scored = candidates.map((candidate, i) => ({
    ...candidate,
    score: factor * relevance(wordsFactor * words[i]!, meant[i], reference),
  }));
  // Ties (often 0) keep the legs' order: the vector leg's first.
  return scored.sort((a, b) => b.score - a.score);
}
