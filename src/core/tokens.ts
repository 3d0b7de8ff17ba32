/** One tokenizer for every count: tokenCount, maxTokens budgets and the 100k conversation limit. */
export interface Tokenizer {
  count(text: string): number;
  /** True when `text` has at most `limit` tokens (stops counting early). */
  within(text: string, limit: number): boolean;
}

let loading: Promise<Tokenizer> | undefined;

/** gpt-tokenizer (o200k_base) is loaded on first use: it costs ~120 ms that most commands never need. */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import("gpt-tokenizer").then(({ countTokens, isWithinTokenLimit }) => ({
    count: (text: string) => countTokens(text),
    within: (text: string, limit: number) => isWithinTokenLimit(text, limit) !== false,
  }));
  return loading;
}
