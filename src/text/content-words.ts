// The words a text is about, as the full-text index sees them: stop words out, Porter-stemmed.
import { stemmer } from "stemmer";
import { lowerCaseWords } from "./terms.js";

/**
 * English words that say nothing of what a text is about: the usual list of pronouns, auxiliaries,
 * articles, prepositions and question words (NLTK's, less its contractions). "am" alone matched
 * "I am allergic…" and "runs at 2 am" to "which app am I studying with".
 */
const STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its " +
    "itself they them their theirs themselves what which who whom this that these those am is are was were be been being " +
    "have has had having do does did doing a an the and but if or because as until while of at by for with about against " +
    "between into through during before after above below to from up down in out on off over under again further then " +
    "once here there when where why how all any both each few more most other some such no nor not only own same so than " +
    "too very can will just should now would could shall may might must also us"
  ).split(" "),
);

/** The words a text is searched for by: lower case, accents composed, no stop words, stemmed. */
export function contentWords(text: string): string[] {
  return lowerCaseWords(text)
    .filter((word) => (word.length > 1 || /\d/.test(word)) && !STOP_WORDS.has(word)) // "note 7" is not "note 12"
    .map(stemOf);
}

/** Stems already worked out: a query scores ~100 candidates of ~20 words, mostly the same words again. */
const stems = new Map<string, string>();
const MAX_STEMS = 50_000;

function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= MAX_STEMS) stems.clear();
    stem = stemmer(word);
    stems.set(word, stem);
  }
  return stem;
}
