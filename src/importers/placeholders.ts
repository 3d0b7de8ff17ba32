// What stands in a message for what is not text (the conventions of importers/index.ts): a file by
// its name, a tool the assistant called by its name, an image written into the text as `[image]`, the
// text a user wrote as the model's instructions.
import type { UploadMessage } from "../schemas/chat-history.js";
import { nonEmptyString } from "./json-values.js";
import { cutText } from "../text/cut-text.js";

/** `[file: name]`, or `[file]` without a name. */
export function filePlaceholder(name: unknown): string {
  const named = nonEmptyString(name)?.trim();
  return named === undefined ? "[file]" : `[file: ${named}]`;
}

/** `[tool: name]`: a tool the assistant called; what it returned is not kept (the model read it, not the user). */
export function toolPlaceholder(name: unknown): string {
  const named = nonEmptyString(name)?.trim();
  return named === undefined ? "[tool]" : `[tool: ${named}]`;
}

/** Pieces of a message's text that are not blank, one paragraph each, images written into the text as `[image]`. */
export function joinPieces(pieces: readonly (string | undefined)[]): string {
  return pieces
    .filter((piece): piece is string => piece !== undefined && piece.trim() !== "")
    .map((piece) => withoutInlineImages(piece.trim()))
    .join("\n\n");
}

/**
 * The text with each image whose bytes are in it (`data:` URLs: a generated image, a paste) written
 * as `[image]`: base64 is no text to search, and one image is megabytes. A Markdown image
 * (`![alt](data:…)`) or an HTML one (`<img … src="data:…" …>`), found from each `data:` with a look
 * back and a search ahead, so a text of thousands of unclosed `<img` or `![` costs one pass, where a
 * regex tried from each of them scanned the rest of the text again (40,000 tags, 200 KB: 2.6 s).
 */
function withoutInlineImages(text: string): string {
  const next = nextFinder(text);
  let out = "";
  let from = 0;
  for (let at = text.indexOf("data:"); at !== -1; ) {
    const image = markdownImageAt(text, at, from, next) ?? htmlImageAt(text, at, from, next);
    if (image === undefined) {
      at = text.indexOf("data:", at + 5);
      continue;
    }
    out += `${text.slice(from, image.start)}[image]`;
    from = image.end;
    at = text.indexOf("data:", from);
  }
  return from === 0 ? text : out + text.slice(from);
}

interface Span {
  start: number;
  end: number;
}

/** The index of a character at or after a position, remembered: a character the text no longer holds is not looked for again. */
type Next = (char: string, at: number) => number;

function nextFinder(text: string): Next {
  const known = new Map<string, { from: number; found: number }>();
  return (char, at) => {
    const last = known.get(char);
    if (last !== undefined && at >= last.from && (last.found === -1 || at <= last.found)) return last.found;
    const found = text.indexOf(char, at);
    known.set(char, { from: at, found });
    return found;
  };
}

/** The most a Markdown image's alt text, or an <img> tag before its src, is looked back through. */
const MAX_LOOK_BACK = 1000;

/** The last `char` before `before`, not past `stop` and at most MAX_LOOK_BACK back, nor past a character of `barriers`. */
function lastBefore(text: string, char: string, before: number, stop: number, barriers: string): number {
  for (let i = before - 1; i >= Math.max(stop, before - MAX_LOOK_BACK); i--) {
    if (text[i] === char) return i;
    if (barriers.includes(text[i]!)) return -1;
  }
  return -1;
}

/** `![alt](data:…)` around the `data:` at `at` (alt on one line, without `]`), not before `from`. */
function markdownImageAt(text: string, at: number, from: number, next: Next): Span | undefined {
  let open = at - 1;
  while (open > from && at - open < MAX_LOOK_BACK && /\s/.test(text[open]!)) open--;
  if (text[open] !== "(" || text[open - 1] !== "]") return undefined;
  const bracket = lastBefore(text, "[", open - 1, from + 1, "]\n");
  if (bracket === -1 || text[bracket - 1] !== "!") return undefined;
  const close = next(")", at);
  return close === -1 ? undefined : { start: bracket - 1, end: close + 1 };
}

/** `<img … src="data:…" …>` around the `data:` at `at`, not before `from`. */
function htmlImageAt(text: string, at: number, from: number, next: Next): Span | undefined {
  const quote = text[at - 1];
  if ((quote !== '"' && quote !== "'") || !/\bsrc\s*=\s*$/i.test(text.slice(Math.max(from, at - 41), at - 1))) return undefined;
  const tag = lastBefore(text, "<", at, from, ">");
  if (tag === -1 || !/^<img\b/i.test(text.slice(tag, tag + 5))) return undefined;
  const ends = [next('"', at), next("'", at)].filter((end) => end !== -1);
  const urlEnd = Math.min(...ends);
  if (ends.length === 0 || text[urlEnd] !== quote) return undefined;
  const end = next(">", urlEnd + 1);
  return end === -1 ? undefined : { start: tag, end: end + 1 };
}

/** A reasoning block a model writes at the start of its answer, which apps show folded: the model's thinking, left out. */
export const THINK_BLOCK = /^\s*<think>[\s\S]*?(?:<\/think>|$)\s*/;

/**
 * The apps' own default instructions ("You are ChatGPT, a large language model trained by OpenAI. …",
 * Chatbot UI's and TypingMind's): in every conversation alike, they would match every search.
 */
const APP_DEFAULT = /^\s*You are ChatGPT, a large language model trained by OpenAI\b/;

/**
 * The instructions a user wrote for the model in one conversation (a system prompt, AI Studio's system
 * instructions), as its first message: the user wrote them, so they are the human's, headed
 * `[system prompt]` to tell them from what was said. Undefined when blank or an app's default.
 */
const SYSTEM_PROMPT_HEADING = "[system prompt]\n";

export function systemPromptMessage(text: unknown, id = "system-prompt", createdAt?: string): UploadMessage | undefined {
  const prompt = nonEmptyString(text)?.trim();
  if (prompt === undefined || APP_DEFAULT.test(prompt)) return undefined;
  return { id, role: "human", content: `${SYSTEM_PROMPT_HEADING}${prompt}`, ...(createdAt === undefined ? {} : { createdAt }) };
}

/** A conversation's messages with its system prompt first (systemPromptMessage); none added to a conversation that has no message. */
export function withSystemPrompt(text: unknown, messages: UploadMessage[], createdAt?: string): UploadMessage[] {
  const prompt = messages.length === 0 ? undefined : systemPromptMessage(text, "system-prompt", createdAt);
  return prompt === undefined ? messages : [prompt, ...messages];
}

/** Whether a message is a system prompt systemPromptMessage made (not something said in the conversation). */
export const isSystemPrompt = (message: UploadMessage): boolean => message.content.startsWith(SYSTEM_PROMPT_HEADING);

/** How much of a code cell's output is kept (as the ChatGPT importer keeps it): a printed table can run to megabytes. */
const OUTPUT_CHARS = 2_000;

/** Code the model wrote and ran, fenced in its language. */
export function codeBlock(language: unknown, code: unknown): string | undefined {
  const text = nonEmptyString(code)?.trim();
  if (text === undefined) return undefined;
  const named = nonEmptyString(language)?.trim().toLowerCase();
  return `\`\`\`${named === undefined || named === "language_unspecified" ? "" : named}\n${text}\n\`\`\``;
}

/** What the code printed, cut to OUTPUT_CHARS, fenced after "Output:". */
export function codeOutput(output: unknown): string | undefined {
  const text = nonEmptyString(output)?.trim();
  return text === undefined ? undefined : `Output:\n\`\`\`\n${cutText(text, OUTPUT_CHARS)}\n\`\`\``;
}
