/**
 * A character that shows: not a space, not a control character, and not one of the characters
 * Unicode says to render as nothing (zero-width space, joiners, direction marks, the BOM,
 * variation selectors, the Hangul filler). `trim()` removes spaces only, so "\u200b" or "\u0000"
 * passed for text that must not be empty, and was stored as a memory, a bucket name or searched for.
 */
const SHOWN = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}]/u;

export function hasVisibleText(text: string): boolean {
  return SHOWN.test(text);
}

/** The message for text that holds only such characters: it reads as empty, and is refused as such. */
export const ONLY_INVISIBLE = "must not be empty: it holds only invisible characters (such as zero-width spaces or control characters)";

const OPENS_EMBEDDING = new Set(["\u202a", "\u202b", "\u202d", "\u202e"]);
const OPENS_ISOLATE = new Set(["\u2066", "\u2067", "\u2068"]);

/**
 * Text with the direction overrides, embeddings and isolates it leaves open closed at its end (PDF
 * U+202C, PDI U+2069), for text that other text follows on its line: a title's U+202E turned the
 * date after it around in recall's summary, as a message's turned its citation. Balanced text is
 * returned as it is.
 */
export function directionClosed(text: string): string {
  const open: string[] = [];
  for (const char of text) {
    if (OPENS_EMBEDDING.has(char) || OPENS_ISOLATE.has(char)) open.push(char);
    else if (char === "\u202c" && open.length > 0 && OPENS_EMBEDDING.has(open.at(-1)!)) open.pop();
    else if (char === "\u2069" && open.some((opener) => OPENS_ISOLATE.has(opener))) {
      // A PDI closes its isolate and the embeddings opened inside it.
      while (!OPENS_ISOLATE.has(open.pop()!));
    }
  }
  return (
    text +
    open
      .reverse()
      .map((opener) => (OPENS_ISOLATE.has(opener) ? "\u2069" : "\u202c"))
      .join("")
  );
}

/**
 * What text handed to a model goes without (mcp/tool-calls.ts, resources.ts): what makes the text a
 * user reads in a transcript differ from the text the model reads.
 * - Unicode's tag characters (U+E0000–U+E007F): invisible everywhere, except as the tail of a few flag
 *   emoji, and they spell ASCII a model reads ("ASCII smuggling"): a chat page or a pasted text can
 *   carry instructions no user sees.
 * - Direction overrides, embeddings and isolates (U+202A–U+202E, U+2066–U+2069): a model reads the
 *   characters in stored order, the user sees them turned around ("Trojan Source"), so a line can
 *   show one thing and say another; they mean nothing to a model, and right-to-left scripts show
 *   right without them.
 */
const HIDDEN_FROM_A_MODEL = /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069]/gu;

export function forModel(text: string): string {
  return text.replace(HIDDEN_FROM_A_MODEL, "");
}

/** A value with every string in it (any depth) as forModel gives it; anything else as it is. */
export function deepForModel<T>(value: T): T {
  if (typeof value === "string") return forModel(value) as T;
  if (Array.isArray(value)) return value.map(deepForModel) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, deepForModel(inner)])) as T;
  }
  return value;
}
