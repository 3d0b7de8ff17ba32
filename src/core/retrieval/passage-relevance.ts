import { holds, queryTerms, textWords, weightedShare, type QueryTerm, type TextWords } from "../../text/word-rarity.js";

/**
 * How relevant a chat passage (a search hit's chunk) is to a query, in [0, 1], on one scale for
 * every query and store: the probability, fitted by logistic regression on LoCoMo, that a passage
 * scoring so holds what a question asks (test/bench/README.md, "Relevance"). Fitted on two store
 * sizes at once (each sample its own store, ~120 chunks; five samples in one, ~600): evidence
 * chunks of the questions against the top passages of other samples' questions and of questions
 * on absent topics. From four signs:
 * - its meaning: the cosine similarity to the query above what the embedder gives unrelated texts;
 * - its words: the share of the query's words it (or its conversation's title) holds, each weighted
 *   by its self-information (text/word-rarity.ts), so "stent" counts for more than "say";
 * - the store's words: the share of that weight found in any passage retrieved, which a question
 *   about something never discussed lacks whatever passage comes first;
 * - a name the query holds (a capitalised word inside it) that no passage retrieved holds.
 * BM25 is not among them: its scale moves with the text index's state (recall-signals.md). A
 * passage close enough in meaning alone counts too (MEANING_ALONE).
 */
export const PASSAGE_WEIGHTS = {
  similarity: 5.18,
  words: 6.8,
  storeWords: 2.44,
  absentName: -4.01,
  bias: -4.75,
  /** The unrelated similarity of the bundled model, which the fit saw: other embedders are shifted onto it. */
  fittedUnrelated: 0.215,
} as const;

/**
 * A passage whose meaning alone is close enough counts without the query's words: "why is my
 * snake not eating?" shares none with "My ball python Monty has not eaten" (cosine 0.49 with the
 * bundled model, 0.28 above its unrelated level). LoCoMo's questions share words with their
 * evidence, so the fit above gives meaning little say, and it cannot find a paraphrase: this path
 * is set by hand above every hand-written absent-topic question's best passage (at most 0.26 above
 * the unrelated level on LoCoMo's stores), steep, and held back like the fit by an absent name.
 */
export const MEANING_ALONE = { margin: 0.27, slope: 20 } as const;

/**
 * Under this a search hit or a recall passage is probably unrelated: recall leaves it out, search
 * leaves it out unless asked for everything, and the faces say "nothing found" when none is above.
 */
export const PASSAGE_THRESHOLD = 0.5;

export interface ScoredPassage {
  text: string;
  /** Cosine similarity of its chunk to the query. */
  similarity: number;
}

/** The query's terms and what the retrieved passages hold of them: what every passage's score shares. */
export interface QueryEvidence {
  terms: QueryTerm[];
  storeWords: number;
  absentName: boolean;
}

/** What the retrieved passages say about the query as a whole (the store's words, absent names). */
export function queryEvidence(query: string, passages: readonly TextWords[]): QueryEvidence {
  const terms = queryTerms(query);
  const found = (term: QueryTerm) => passages.some((words) => holds(words, term));
  return {
    terms,
    storeWords: weightedShare(terms, found),
    absentName: terms.some((term) => term.name && !found(term)),
  };
}

/** One passage's relevance, given the query's evidence and the embedder's unrelated similarity. */
export function passageRelevance(evidence: QueryEvidence, words: TextWords, similarity: number, unrelatedSimilarity: number): number {
  const w = PASSAGE_WEIGHTS;
  const meaning = similarity - unrelatedSimilarity + w.fittedUnrelated;
  const share = weightedShare(evidence.terms, (term) => holds(words, term));
  const name = evidence.absentName ? w.absentName : 0;
  const fitted = w.similarity * meaning + w.words * share + w.storeWords * evidence.storeWords + name + w.bias;
  const alone = MEANING_ALONE.slope * (similarity - unrelatedSimilarity - MEANING_ALONE.margin) + name;
  return 1 / (1 + Math.exp(-Math.max(fitted, alone)));
}

/** Each passage's relevance, in their order. */
export function scorePassages(query: string, passages: readonly ScoredPassage[], unrelatedSimilarity: number): number[] {
  const words = passages.map((passage) => textWords(passage.text));
  const evidence = queryEvidence(query, words);
  return passages.map((passage, i) => passageRelevance(evidence, words[i]!, passage.similarity, unrelatedSimilarity));
}
