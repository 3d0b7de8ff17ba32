// A text's words as message ranking (core/retrieval/passage-ranking.ts) and highlighting compare them.
const STOP = new Set(
  "a an and are as at be but by did do does for from had has have he her him his how i if in into is it its me my of on or our she so than that the their them then there these they this those to was we were what when where which who whom why will with would you your".split(
    " ",
  ),
);

/** A text's words for ranking messages and highlighting: lower case, no common words, lightly stemmed. */
export function terms(text: string): string[] {
  return lowerCaseWords(text)
    .filter((word) => word.length > 1 && !STOP.has(word))
    .map(stem);
}

/**
 * A text's runs of letters and digits, lower case, accents composed: "café" typed as e and U+0301
 * (macOS, some keyboards) is the same word as the composed one, not "cafe".
 */
export function lowerCaseWords(text: string): string[] {
  return (
    text
      .normalize("NFC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A light English stemmer: enough for "painted" to meet "painting" and "paint". */
function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/(ations?|ings?|edly|ed|ies|es|s|ly)$/, "") || word;
}
