/** The brand survives translation: "Gemini Apps", "Gemini アプリ", "Εφαρμογές Gemini", "Bard". */
const GEMINI_NAME = /\b(?:gemini|bard)\b/i;
export const GEMINI_HOST = /^(?:gemini|bard)\.google\.com$/i;

/** Whether a product name (a record's `header` or one of its `products`) is Gemini's, in any language. */
export function namesGeminiProduct(name: string): boolean {
  return GEMINI_NAME.test(name);
}
