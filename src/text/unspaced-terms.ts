/** Scripts written without spaces between words. */
export const UNSPACED_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}]/u;
const HAN = /^\p{sc=Han}$/u;
const HIRAGANA_ONLY = /^\p{sc=Hiragana}+$/u;

/**
 * The words of a query in scripts written without spaces (Japanese, Chinese, Thai…), by the
 * runtime's word segmenter: "私は学生です" → 私, 学生. The full-text index splits text on spaces
 * and punctuation only, so in such text a whole run is one term and none of these words is found
 * by it. Words of hiragana alone are particles and endings (は, です, ました) that nearly every
 * Japanese text holds: they count only when the query has no other word. A single character of
 * another script is kept only when it is Han (猫).
 */
export function unspacedTerms(query: string): string[] {
  if (!UNSPACED_SCRIPT.test(query)) return [];
  const words = [...new Intl.Segmenter("ja", { granularity: "word" }).segment(query)]
    .filter((part) => part.isWordLike && UNSPACED_SCRIPT.test(part.segment))
    .map((part) => part.segment)
    .filter((word) => word.length >= 2 || HAN.test(word));
  const content = words.filter((word) => !HIRAGANA_ONLY.test(word));
  return [...new Set(content.length > 0 ? content : words)];
}
