/** Scripts written without spaces between words. */
export const UNSPACED_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}]/u;
const HAN = /^\p{sc=Han}$/u;
const HIRAGANA_ONLY = /^\p{sc=Hiragana}+$/u;

/**
 * The most frequent characters of written Chinese (the first fifty of Jun Da's list) and its
 * question words: a word made of these alone (我的, 什么, 这个) is a function word.
 */
const COMMON_HAN = new Set(
  "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里什么吗呢吧怎哪谁她它很都还没把被给让".split(
    "",
  ),
);

/**
 * The words of a query in scripts written without spaces (Japanese, Chinese, Thai…), by the
 * runtime's word segmenter: "私は学生です" → 私, 学生. The full-text index splits text on spaces
 * and punctuation only, so in such text a whole run is one term and none of these words is found
 * by it. Words of hiragana alone are particles and endings (は, です, ました), and Chinese words
 * of common characters alone function words (我的, 什么): they count only when the query has no
 * other word. A single character of another script is kept only when it is Han (猫).
 */
export function unspacedTerms(query: string): string[] {
  if (!UNSPACED_SCRIPT.test(query)) return [];
  const words = [...new Intl.Segmenter("ja", { granularity: "word" }).segment(query)]
    .filter((part) => part.isWordLike && UNSPACED_SCRIPT.test(part.segment))
    .map((part) => part.segment)
    .filter((word) => word.length >= 2 || HAN.test(word));
  const content = words.filter((word) => !HIRAGANA_ONLY.test(word) && !commonHan(word));
  return [...new Set(content.length > 0 ? content.flatMap(withHanCharacters) : words)];
}

const commonHan = (word: string): boolean => [...word].every((character) => COMMON_HAN.has(character));

/**
 * A Han word and its uncommon characters, as Chinese retrieval indexes single characters beside
 * words: the segmenter's dictionary joins "猫叫" in "我的猫叫什么名字", which "我养了一只猫" does not
 * hold; its 猫 it does.
 */
function withHanCharacters(word: string): string[] {
  const characters = [...word];
  if (characters.length < 2) return [word];
  return [word, ...characters.filter((character) => HAN.test(character) && !COMMON_HAN.has(character))];
}
