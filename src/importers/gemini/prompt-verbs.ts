// The words Takeout puts before each Gemini prompt in a record's title, in the account's language:
// "Prompted how do I…", "送信したメッセージ: こんにちは". The ones below were seen in real exports or in
// parsers that read them (a Korean Takeout writes its prompts without one); for the other languages
// (French, Italian, Portuguese and Chinese among them) the exact words are not known to us, so none
// are guessed: the verb is learned from the file instead, as the words that open nearly every title.
import { UNSPACED_SCRIPT } from "../../text/unspaced-terms.js";

export interface PromptVerb {
  /** The title's opening words, separator included, that are not the prompt. */
  prefix: string;
}

/** Longest first, so "Asked: " wins over "Asked ". */
const KNOWN_PREFIXES = [
  // English (current; "Asked" in older exports, "Asked: " older still, and what other readers strip)
  "Prompted ",
  "Asked: ",
  "Asked ",
  "Said ",
  "Submitted query ",
  "Query submitted ",
  "Branched ",
  "Answered ",
  // a chat continued from a shared link (2026; read as a prompt by every public reader of real Takeouts)
  "Added chat from link: ",
  // Japanese
  "送信したメッセージ: ",
  "送信したメッセージ：",
  "プロンプト: ",
  // Korean: a turn from before a branch point ("Branched "); other prompts have no verb in a Korean
  // Takeout (mposition/Tomverse's measured export)
  "분기된 ",
  // German
  "Eingegebener Prompt: ",
  // Greek
  "Υποβλήθηκε το ερώτημα ",
  // Spanish
  "Has dicho: ",
  "Hiciste la petición ",
  "Preguntado: ",
].sort((a, b) => b.length - a.length);

/** A file's verb is learned from at least this many titles… */
export const MIN_VERB_TITLES = 5;
/** …when this share of them opens with the same words… */
const MIN_SHARE = 0.8;
/** …and what follows those words differs (a file of "Used Gemini Apps" has no prompts). */
const MIN_DISTINCT_REST = 0.5;
/** How far into a title its verb may reach. */
const MAX_PREFIX_CHARS = 48;

export function knownPromptVerb(title: string): PromptVerb | undefined {
  const prefix = KNOWN_PREFIXES.find((known) => title.startsWith(known));
  return prefix === undefined ? undefined : { prefix };
}

/**
 * The words that open nearly every title of a file (at least MIN_SHARE of them), ending at a space
 * or a colon, or anywhere in a script written without spaces; undefined when the titles do not show
 * one, or when most of them open with a verb we know.
 */
export function learnedPromptVerb(titles: string[]): PromptVerb | undefined {
  if (titles.length < MIN_VERB_TITLES) return undefined;
  if (titles.filter((title) => knownPromptVerb(title) !== undefined).length >= titles.length / 2) return undefined;
  const counts = new Map<string, number>();
  for (const title of titles) for (const prefix of openings(title)) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  const frequent = [...counts.entries()]
    .filter(([prefix, count]) => count >= MIN_SHARE * titles.length && /\p{L}/u.test(prefix) && variedRest(prefix, titles))
    .sort(([a], [b]) => b.length - a.length);
  const prefix = frequent[0]?.[0];
  return prefix === undefined ? undefined : { prefix };
}

/** The title's possible verbs: its openings that end at a separator (each counted once). */
function openings(title: string): Set<string> {
  const found = new Set<string>();
  const unspaced = UNSPACED_SCRIPT.test(title.slice(0, 1));
  const end = Math.min(title.length - 1, MAX_PREFIX_CHARS);
  for (let i = 0; i < end; i++) {
    const char = title[i]!;
    if (char === " " || char === "：" || (char === ":" && title[i + 1] !== " ") || unspaced) found.add(title.slice(0, i + 1));
  }
  return found;
}

function variedRest(prefix: string, titles: string[]): boolean {
  const rests = titles.filter((title) => title.startsWith(prefix)).map((title) => title.slice(prefix.length).trim());
  return new Set(rests).size >= MIN_DISTINCT_REST * rests.length;
}
