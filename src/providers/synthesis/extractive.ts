import { brackets, cite, plain } from "./citations.js";
import { loadTokenizer, type Tokenizer } from "../../text/tokens.js";
import { directionClosed } from "../../text/visible.js";
import type { ChatPlatform, Passage, Synthesis, SynthesisRequest, Synthesizer } from "./synthesizer.js";

export const EXTRACTIVE_ID = "extractive";

/**
 * A passage longer than this share of the budget is cut down to its most relevant sentences. The
 * first passage, the most relevant, may take the whole budget, so a small one still gets an answer.
 */
const LONG_PASSAGE_SHARE = 0.3;

/**
 * The offline synthesizer: deterministic, no model. It takes the most relevant passages whole
 * (the most relevant sentences of a long one) while they fit in the budget, then writes them in
 * their numbered order, grouped by conversation, each cited as [n].
 */
export function createExtractiveSynthesizer(): Synthesizer {
  return {
    id: EXTRACTIVE_ID,
    async synthesize(request: SynthesisRequest): Promise<Synthesis> {
      const tokenizer = await loadTokenizer();
      const chosen = choose(request, tokenizer);
      return { content: render(chosen, request.platform), model: EXTRACTIVE_ID };
    },
  };
}

interface Chosen {
  passage: Passage;
  text: string;
}

function choose(request: SynthesisRequest, tokenizer: Tokenizer): Chosen[] {
  const terms = queryTerms(request.query);
  const chosen: Chosen[] = [];
  const headers = new Set<string>();
  let used = 0;
  for (const passage of request.passages) {
    const header = groupKey(passage);
    const headerCost = headers.has(header) ? 0 : tokenizer.count(renderHeader(passage, request.platform)) + 1;
    const room = request.maxTokens - used - headerCost;
    const share = chosen.length === 0 ? room : Math.floor(request.maxTokens * LONG_PASSAGE_SHARE);
    const lineCost = tokenizer.count(brackets(renderLine({ passage, text: "" }, request.platform))) + 1;
    // biome-ignore lint/suspicious/noFocusedTests: fit() fits a passage into its share of tokens; not a test
    const text = fit(passage.text, terms, Math.min(room, share) - lineCost, tokenizer, chosen.length === 0 ? 1 : MIN_CLIPPED_WORDS);
    // A passage of nothing but markup (an empty code fence) would be a line with no words.
    if (text === undefined || flat(text) === "") continue;
    const cost = tokenizer.count(brackets(renderLine({ passage, text }, request.platform))) + 1;
    if (cost > room) continue;
    chosen.push({ passage, text });
    headers.add(header);
    used += cost + headerCost;
  }
  // The estimate above is close; the rendered text is what counts.
  while (chosen.length > 0 && tokenizer.count(brackets(render(chosen, request.platform))) > request.maxTokens) chosen.pop();
  return chosen;
}

/** A passage after the first that only this few of its words fit into is left out: "And is …" answers nothing. */
const MIN_CLIPPED_WORDS = 4;

/**
 * The passage whole when it fits in `limit` tokens, else its most relevant sentences that do, in
 * their order; the first words (at least `minWords`) of its most relevant sentence when that one does not fit.
 */
function fit(text: string, terms: Set<string>, limit: number, tokenizer: Tokenizer, minWords: number): string | undefined {
  if (limit <= 0) return undefined;
  if (tokenizer.within(text, limit)) return text;
  const sentences = [...new Intl.Segmenter("en", { granularity: "sentence" }).segment(text)].map((s) => s.segment.trim()).filter(Boolean);
  const ranked = sentences
    .map((sentence, index) => ({ sentence, index, score: overlap(sentence, terms) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  if (ranked.length === 0) return undefined;
  const kept: typeof ranked = [];
  let tokens = 0;
  for (const item of ranked) {
    const cost = tokenizer.count(item.sentence) + 2;
    if (tokens + cost > limit) continue;
    kept.push(item);
    tokens += cost;
  }
  // The most relevant sentence did not fit, and nothing as relevant did: its first words say more.
  if (kept.length === 0 || kept[0]!.score < ranked[0]!.score) {
    const clipped = clip(ranked[0]!.sentence, limit, tokenizer, minWords);
    if (clipped !== undefined || kept.length === 0) return clipped;
  }
  return kept
    .sort((a, b) => a.index - b.index)
    .map((item) => item.sentence)
    .join(" … ");
}

/** The most words from the start of `text` that fit in `limit` tokens with the mark of the cut, if at least `minWords`. */
function clip(text: string, limit: number, tokenizer: Tokenizer, minWords: number): string | undefined {
  const words = text.split(/\s+/).filter(Boolean);
  const cut = (n: number) => `${words.slice(0, n).join(" ")} …`;
  let low = 0;
  let high = words.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (tokenizer.within(cut(mid), limit)) low = mid;
    else high = mid - 1;
  }
  return low < minWords ? undefined : cut(low);
}

const STOP = new Set(
  "the a an and or but of to in on at for with about what when where which who whom how why did does do is are was were be been my your our their i you we they me it this that these those have has had from by as".split(
    " ",
  ),
);

function stem(word: string): string {
  return word.replace(/(ing|ed|es|s)$/, "");
}

function queryTerms(query: string): Set<string> {
  return new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 2 && !STOP.has(w)).map(stem));
}

function overlap(sentence: string, terms: Set<string>): number {
  const words = new Set((sentence.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
  let score = 0;
  for (const term of terms) if (words.has(term)) score++;
  return score;
}

const day = (passage: Passage) => passage.date?.slice(0, 10) ?? "undated";
const groupKey = (passage: Passage) => `${passage.conversationId}\u0000${day(passage)}`;
const markdown = (platform: ChatPlatform | undefined) => platform === "chatgpt" || platform === "claude";

function renderHeader(passage: Passage, platform: ChatPlatform | undefined): string {
  const title = directionClosed(plain(passage.conversationTitle)) || "Untitled conversation";
  return markdown(platform) ? `**${title}** (${day(passage)})` : `${title} (${day(passage)}):`;
}

function renderLine({ passage, text }: Chosen, platform: ChatPlatform | undefined): string {
  const who = passage.sender === "human" ? "You" : "Assistant";
  if (markdown(platform)) return `- **${who}:** ${flat(text)} ${cite(passage.n)}`;
  // TypingMind shows text as it is: a bullet marker would be a stray "-".
  return `${platform === "typingmind" ? "" : "- "}${who}: ${flat(text)} ${cite(passage.n)}`;
}

/**
 * A passage's text on one line. It holds no code block: its fences (one may be left unclosed by a cut)
 * would only show as ```; nor the tools an agent ran (`[tool: shell]`), which say nothing of what was
 * discussed, so a message of tool calls alone is no line of the summary.
 */
function flat(text: string): string {
  return directionClosed(
    plain(text)
      .replace(/```[\w+#.-]*/g, " ")
      .replace(/\[tool(?:: [^\]\n]*)?\]/g, " ")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

/**
 * In the passages' numbered order (the most relevant conversation first, time order within one:
 * recall numbers them so), under a header per conversation and day.
 */
function render(chosen: Chosen[], platform: ChatPlatform | undefined): string {
  const groups: Chosen[][] = [];
  for (const item of [...chosen].sort((a, b) => a.passage.n - b.passage.n)) {
    const last = groups.at(-1);
    if (last && groupKey(last[0]!.passage) === groupKey(item.passage)) last.push(item);
    else groups.push([item]);
  }
  return groups
    .map((items) => [renderHeader(items[0]!.passage, platform), ...items.map((item) => renderLine(item, platform))].join("\n"))
    .join("\n\n");
}
