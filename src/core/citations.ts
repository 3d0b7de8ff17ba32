import type { RecallSource } from "../schemas/recall.js";
import type { Passage } from "../providers/synthesizer.js";
import type { Tokenizer } from "./tokens.js";

export interface Cited {
  content: string;
  sources: RecallSource[];
  tokenCount: number;
}

const CITATION = /\[(\d+)\]/g;

/** `[1, 2]` and `[1,2]` → `[1][2]`, so every citation is one number in brackets. */
function splitGroups(content: string): string {
  return content.replace(/\[(\d+(?:\s*,\s*\d+)+)\]/g, (_, list: string) => list.split(",").map((n) => `[${n.trim()}]`).join(""));
}

/**
 * Checks every [n] against the passages: unknown numbers are dropped, the rest are renumbered in
 * order of first appearance so that [k] is sources[k-1]. Content over `maxTokens` is cut at a
 * line or sentence boundary first.
 */
export function applyCitations<P extends Passage>(
  content: string,
  passages: P[],
  maxTokens: number,
  tokenizer: Tokenizer,
  toSource: (passage: P) => RecallSource,
): Cited {
  const byNumber = new Map(passages.map((passage) => [passage.n, passage]));
  const valid = splitGroups(content).replace(/\s?\[(\d+)\]/g, (match, n: string) => (byNumber.has(Number(n)) ? match : ""));
  const trimmed = trimToTokens(valid.trim(), maxTokens, tokenizer);
  const order: number[] = [];
  const renumbered = trimmed.replace(CITATION, (_, n: string) => {
    const number = Number(n);
    if (!order.includes(number)) order.push(number);
    return `[${order.indexOf(number) + 1}]`;
  });
  return {
    content: renumbered,
    sources: order.map((n) => toSource(byNumber.get(n)!)),
    tokenCount: tokenizer.count(renumbered),
  };
}

/** The longest prefix within `maxTokens` that ends at a line break or sentence end. */
function trimToTokens(content: string, maxTokens: number, tokenizer: Tokenizer): string {
  if (tokenizer.within(content, maxTokens)) return content;
  const cuts = [...content.matchAll(/(\n|[.!?](\s*\[\d+\])*)(?=\s)/g)].map((m) => m.index + m[0].length);
  let best = "";
  let low = 0;
  let high = cuts.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const candidate = content.slice(0, cuts[mid]).trim();
    if (tokenizer.within(candidate, maxTokens)) {
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
    const body = part.content.replace(CITATION, (_, n: string) => `[${local[Number(n) - 1]}]`);
    return `${markdown ? `### ${part.heading}` : `${part.heading}:`}\n${body || "(nothing found)"}`;
  });
  return { content: blocks.join("\n\n"), sources };
}
