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

/** A markdown or HTML image whose bytes are in the text (`data:` URLs: a generated image, a paste). */
const INLINE_IMAGE = /!\[[^\]\n]*\]\(\s*data:[^)]*\)|<img\b[^>]*?\bsrc\s*=\s*["']data:[^"']*["'][^>]*>/gi;

/** The text with each image written into it as `[image]`: base64 is no text to search, and one image is megabytes. */
function withoutInlineImages(text: string): string {
  return text.includes("data:") ? text.replace(INLINE_IMAGE, "[image]") : text;
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
