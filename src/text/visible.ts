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
