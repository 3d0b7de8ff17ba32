/** One tokenizer for every count: tokenCount, maxTokens budgets and the 100k conversation limit. */
export interface Tokenizer {
  count(text: string): number;
  /** True when `text` has at most `limit` tokens. */
  within(text: string, limit: number): boolean;
}

/**
 * BPE is quadratic in the length of one pre-token, so a run of thousands of characters without a
 * space (a pasted blob, "aaaa…") would take minutes. Such runs are counted in slices of this many
 * characters: exact for ordinary text, a close estimate for the blob.
 */
const SLICE = 256;

let loading: Promise<Tokenizer> | undefined;

/** gpt-tokenizer (o200k_base) is loaded on first use: it costs ~120 ms that most commands never need. */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import("gpt-tokenizer").then(({ countTokens }) => {
    const count = (text: string): number =>
      hasLongRun(text) ? pieces(text).reduce((sum, piece) => sum + countTokens(piece), 0) : countTokens(text);
    // A token is at least one byte of UTF-8, so a text of at most `limit` bytes needs no count. Not
    // characters: an emoji or a rare script's character can take two or three tokens.
    return { count, within: (text, limit) => Buffer.byteLength(text) <= limit || count(text) <= limit };
  });
  return loading;
}

/** `text` with every run of non-space characters cut into slices that a tokenizer or model can take. */
export function breakLongRuns(text: string): string {
  return hasLongRun(text) ? pieces(text).join(" ").replace(/ (\s)/g, "$1") : text;
}

/**
 * Whether `text` has a run of more than SLICE non-space characters. A scan of char codes: the regex
 * /\S{257}/ restarts at every character and cost more than counting the tokens of short messages.
 */
function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) run = 0;
    else if (++run > SLICE) return true;
  }
  return false;
}

/** Exactly the code units regex `\s` matches. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Ordinary stretches of `text` whole, long runs of non-space in SLICE-character slices. A linear scan:
 * a regex over a run of millions of characters would overflow the stack. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let stretchStart = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const space = i === text.length || isSpace(text.charCodeAt(i));
    if (!space) continue;
    if (i - runStart > SLICE) {
      if (runStart > stretchStart) out.push(text.slice(stretchStart, runStart));
      for (let at = runStart; at < i; at += SLICE) out.push(text.slice(at, Math.min(i, at + SLICE)));
      stretchStart = i;
    }
    runStart = i + 1;
  }
  if (stretchStart < text.length) out.push(text.slice(stretchStart));
  return out;
}
