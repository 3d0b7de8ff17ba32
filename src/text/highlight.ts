import { terms } from "./terms.js";
import { UNSPACED_SCRIPT as UNSPACED, unspacedTerms } from "./unspaced-terms.js";
import { escapeRegExp } from "./regexp.js";

/** A piece of a text, and whether it matches the query (a search face shows it marked). */
export interface Segment {
  text: string;
  marked: boolean;
}

/** Lower case without accents, so "BELEM" and "pasteis" mark "Belém" and "pastéis". */
function fold(text: string): string {
  return ASCII.test(text) ? text.toLowerCase() : text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}
const ASCII = /^[\x20-\x7e]*$/;

/**
 * Splits `text` into the words the query's words begin (stemmed, without stop words: "painted"
 * marks "painting", "for" marks nothing, and never the middle of "comfortable"), folding case and
 * accents, and the rest; in text without spaces, the query's words in it (see unspacedTerms)
 * wherever they occur. The segments put together are the text.
 */
export function highlightSegments(query: string): (text: string) => Segment[] {
  const spaced = terms(fold(query)).filter((term) => !UNSPACED.test(term));
  const unspaced = unspacedTerms(query);
  const runs = unspaced.length === 0 ? undefined : new RegExp(unspaced.map(escapeRegExp).join("|"), "gu");
  if (spaced.length === 0 && !runs) return (text) => [{ text, marked: false }];
  return (text) => {
    const segments: Segment[] = [];
    const push = (piece: string, marked: boolean) => {
      if (piece === "") return;
      const last = segments[segments.length - 1];
      if (last && last.marked === marked) last.text += piece;
      else segments.push({ text: piece, marked });
    };
    let at = 0;
    for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = match[0];
      push(text.slice(at, match.index), false);
      at = match.index + word.length;
      if (UNSPACED.test(word)) splitRuns(word, runs, push);
      else {
        const folded = fold(word);
        push(
          word,
          spaced.some((term) => folded.startsWith(term)),
        );
      }
    }
    push(text.slice(at), false);
    return segments;
  };
}

/** The same as one string, each matching piece passed through `mark` (a terminal's colour, say). */
export function highlighter(query: string, mark: (word: string) => string): (text: string) => string {
  const split = highlightSegments(query);
  return (text) =>
    split(text)
      .map((segment) => (segment.marked ? mark(segment.text) : segment.text))
      .join("");
}

function splitRuns(word: string, runs: RegExp | undefined, push: (piece: string, marked: boolean) => void): void {
  if (!runs) return push(word, false);
  let at = 0;
  for (const match of word.matchAll(runs)) {
    push(word.slice(at, match.index), false);
    push(match[0], true);
    at = match.index + match[0].length;
  }
  push(word.slice(at), false);
}
