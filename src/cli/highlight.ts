import { terms } from "../text/passage-ranking.js";
import { UNSPACED_SCRIPT as UNSPACED, unspacedTerms } from "../text/unspaced-terms.js";

/** Lower case without accents, so "BELEM" and "pasteis" mark "Belém" and "pastéis". */
function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * Marks the words of `text` that the query's words begin (stemmed, without stop words: "painted"
 * marks "painting", "for" marks nothing, and never the middle of "comfortable"), folding case and
 * accents; in text without spaces, the query's words in it (see unspacedTerms) wherever they occur.
 */
export function highlighter(query: string, mark: (word: string) => string): (text: string) => string {
  const spaced = terms(fold(query)).filter((term) => !UNSPACED.test(term));
  const unspaced = unspacedTerms(query);
  if (spaced.length === 0 && unspaced.length === 0) return (text) => text;
  return (text) =>
    text.replace(/[\p{L}\p{N}]+/gu, (word) => {
      if (UNSPACED.test(word)) return markRuns(word, unspaced, mark);
      const folded = fold(word);
      return spaced.some((term) => folded.startsWith(term)) ? mark(word) : word;
    });
}

function markRuns(word: string, runs: string[], mark: (run: string) => string): string {
  if (runs.length === 0) return word;
  const pattern = new RegExp(runs.map((run) => run.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gu");
  return word.replace(pattern, mark);
}
