import type { RecallSource } from "../../schemas/recall.js";
import type { Passage } from "./synthesizer.js";
import type { Tokenizer } from "../../text/tokens.js";
import { cutText } from "../../text/cut-text.js";

export interface Cited {
  /** The answer, citing its sources as [1]…[k]. */
  content: string;
  /** The same with its citations still as markers, for merging answers without touching their text. */
  marked: string;
  sources: RecallSource[];
  tokenCount: number;
}

// Citations travel between the synthesizer and the answer as markers made of two private-use
// characters, which no message, title or query holds (`plain` takes them out): brackets in a
// message's code (`nums[0]`, `[1, 2, 3]`) or a title ("Sprint [2] retro") are then never taken
// for a citation. They become [n] only in the answer.
const OPEN = "\uE000";
const CLOSE = "\uE001";
const MARKER_PATTERN = `${OPEN}(\\d+)${CLOSE}`;
const MARKER = new RegExp(MARKER_PATTERN, "g");
/** A marker with the space before it, which goes with it when the marker is dropped. */
const SPACED_MARKER = new RegExp(`\\s?${MARKER_PATTERN}`, "g");
/** A line break, or a sentence end with the markers that cite the sentence. */
const SENTENCE_END = new RegExp(`(\\n|[.!?](\\s*${MARKER_PATTERN})*)(?=\\s)`, "g");
const MARKER_CHARACTERS = new RegExp(`[${OPEN}${CLOSE}]`, "g");

/** The marker that cites passage `n`. */
export function cite(n: number): string {
  return `${OPEN}${n}${CLOSE}`;
}

/** Text from a message, title or model, without the characters markers are made of. */
export function plain(text: string): string {
  return text.replace(MARKER_CHARACTERS, "");
}

/**
 * A model's answer with the citations it wrote, `[n]`, `[n][m]` or `[n, m]`, as markers. Code (a
 * fenced block or an inline span) keeps its brackets: a citation is never inside code.
 */
export function markModelCitations(content: string): string {
  return plain(content)
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\[(\d+(?:\s*,\s*\d+)*)\]/g, (_, list: string) =>
            list
              .split(",")
              .map((n) => cite(Number(n)))
              .join(""),
          ),
    )
    .join("");
}

/**
 * Checks every cited passage: markers of unknown numbers are dropped, the rest are renumbered in
 * order of first appearance so that [k] is sources[k-1]. An answer over `maxTokens` is cut at a
 * line or sentence end, else between words.
 */
export function applyCitations<P extends Passage>(
  content: string,
  passages: P[],
  maxTokens: number,
  tokenizer: Tokenizer,
  toSource: (passage: P) => RecallSource,
): Cited {
  const byNumber = new Map(passages.map((passage) => [passage.n, passage]));
  const valid = content.replace(SPACED_MARKER, (match, n: string) => (byNumber.has(Number(n)) ? match : "")).trim();
  const { text: marked, order } = renumber(trimToTokens(valid, maxTokens, tokenizer));
  const answer = brackets(marked);
  return { content: answer, marked, sources: order.map((n) => toSource(byNumber.get(n)!)), tokenCount: tokenizer.count(answer) };
}

/** Markers renumbered 1…k in order of first appearance, and the old number of each new one. */
function renumber(text: string): { text: string; order: number[] } {
  const order: number[] = [];
  const renumbered = text.replace(MARKER, (_, n: string) => {
    const number = Number(n);
    if (!order.includes(number)) order.push(number);
    return cite(order.indexOf(number) + 1);
  });
  return { text: renumbered, order };
}

/** Markers as the answer shows them: [n]. */
export function brackets(text: string): string {
  return text.replace(MARKER, "[$1]");
}

/**
 * The longest prefix whose answer (renumbered, in brackets) is within `maxTokens`, cut at a line
 * break or a sentence end (with its citations), else between words: a long answer without a
 * sentence end is cut, not lost.
 */
function trimToTokens(content: string, maxTokens: number, tokenizer: Tokenizer): string {
  const fits = (text: string) => tokenizer.within(brackets(renumber(text).text), maxTokens);
  if (fits(content)) return content;
  const ends = [...content.matchAll(SENTENCE_END)].map((m) => m.index + m[0].length);
  const byEnds = longestFitting(content, ends, fits);
  if (byEnds !== "") return byEnds;
  const words = [...content.matchAll(/\s+/g)].map((m) => m.index);
  const byWords = longestFitting(content, words, (text) => fits(`${text} …`));
  return byWords === "" ? "" : `${byWords} …`;
}

/** The longest of the prefixes `content.slice(0, cut)` that `fits`, by binary search over the sorted cuts. */
function longestFitting(content: string, cuts: number[], fits: (text: string) => boolean): string {
  let best = "";
  let low = 0;
  let high = cuts.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const candidate = content.slice(0, cuts[mid]).trim();
    if (fits(candidate)) {
      best = candidate;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return best;
}

/** Several answers as one: each under its query as a heading, citations renumbered onto merged, de-duplicated sources. */
export function mergeCited(parts: (Cited & { heading: string })[], markdown: boolean): { content: string; sources: RecallSource[] } {
  const sources: RecallSource[] = [];
  const index = new Map<string, number>();
  const blocks = parts.map((part) => {
    const local = part.sources.map((source) => {
      const key = `${source.conversationId}\u0000${source.messageId}`;
      if (!index.has(key)) {
        sources.push(source);
        index.set(key, sources.length);
      }
      return index.get(key)!;
    });
    const body = brackets(part.marked.replace(MARKER, (_, n: string) => cite(local[Number(n) - 1]!)));
    const heading = headingOf(part.heading);
    return `${markdown ? `### ${heading}` : `${heading}:`}\n${body || "(nothing found within the budget)"}`;
  });
  return { content: blocks.join("\n\n"), sources };
}

/** The longest query a heading repeats whole: the caller sent it, and 15 queries of 4,000 characters made 60 KB of headings. */
const HEADING_CHARS = 200;

/** A query as its answer's heading: one line (a line break in it started a line of its own), cut. */
function headingOf(query: string): string {
  return cutText(plain(query).replace(/\s+/g, " "), HEADING_CHARS);
}
