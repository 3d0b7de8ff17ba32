// How much of a query a text holds, as an absolute share in [0, 1]: the query's content words
// (stop words out, Porter-stemmed, as the full-text index stems them), each weighted by how rare it
// is among the texts compared, and the share of that weight a text contains. Words of scripts
// written without spaces count when the text contains them. Memory search scores with it
// (fusion.ts): unlike BM25 it is comparable across queries, so 0.2 means "one minor word of
// the query", whatever the store holds.
import { contentWords } from "../../text/content-words.js";
import { UNSPACED_SCRIPT, unspacedTerms } from "../../text/unspaced-terms.js";
import { textWords, type TextWords } from "../../text/word-rarity.js";

/**
 * Memory scores below this mean "probably unrelated" (README; test/bench/README.md has the
 * measurement). A memory search returns the best `count` memories whatever they score, so a small
 * store answers "tea" with "My dog is called Biscuit" at 0.00: the faces say so.
 */
export const PROBABLY_UNRELATED = 0.3;

export const probablyUnrelated = (score: number | undefined): boolean => score !== undefined && score < PROBABLY_UNRELATED;

/**
 * How far a memory's similarity must rise above the reference (what an ordinary memory scores for
 * the query) for its meaning to count fully. Chosen on the bundled model and the memory bench: less
 * lets LoCoMo's vague likenesses outrank word matches, more lets a shared word outrank a paraphrase
 * (test/bench/README.md, "Memory search quality").
 */
export const MEANING_RANGE = 0.4;

/**
 * A memory's relevance in [0, 1] from its two signs: `words`, the share of the query it holds
 * (queryCoverage), and its meaning, how far its `similarity` to the query stands above `reference`
 * (undefined: not measured, no sign). The stronger sign counts, and two weak ones do not add up to
 * a strong one: with this model a memory vaguely like the query and sharing one common word
 * (0.3 and 0.3) is seldom the answer, and "either of them" (1 − (1 − words)(1 − meaning) = 0.51)
 * ranked it above one holding more of the query's words (0.4).
 */
export function relevance(words: number, similarity: number | undefined, reference: number): number {
  const meaning = similarity === undefined ? 0 : Math.min(1, Math.max(0, (similarity - reference) / MEANING_RANGE));
  return Math.max(words, meaning);
}

/**
 * Rarity is damped (the square root of BM25's idf): a name every memory holds still counts for
 * something, and one rare word does not make the rest of the query irrelevant. LoCoMo memories:
 * R@5 0.444 with idf as it is, 0.458 damped (test/bench/README.md).
 */
const RARITY_DAMPING = 0.5;

/** For each text, the weighted share of the query's words it holds (0 when the query has none). */
export function queryCoverage(query: string, texts: readonly string[]): number[] {
  return queryCoverageOf(query, texts.map(textWords));
}

/** queryCoverage of texts whose words the caller has already read (textWords), for its own use too. */
export function queryCoverageOf(query: string, texts: readonly TextWords[]): number[] {
  // A run of an unspaced script is one "word" here; its own words come from unspacedTerms.
  const spaced = [...new Set(contentWords(query))].filter((word) => !UNSPACED_SCRIPT.test(word));
  const unspaced = unspacedTerms(query);
  if (spaced.length + unspaced.length === 0) return texts.map(() => 0);
  const holds = texts.map(({ stems, text }) => [...spaced.map((word) => stems.has(word)), ...unspaced.map((word) => text.includes(word))]);
  const weights = [...spaced, ...unspaced].map((_, i) => {
    const containing = holds.filter((held) => held[i]).length;
    return Math.log(1 + (texts.length - containing + 0.5) / (containing + 0.5)) ** RARITY_DAMPING;
  });
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return holds.map((held) => held.reduce((sum, has, i) => sum + (has ? weights[i]! : 0), 0) / total);
}
