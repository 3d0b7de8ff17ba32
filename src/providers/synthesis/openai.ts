import { markModelCitations } from "./citations.js";
import { createChatCompletions, type ChatCompletionsOptions, type ChatMessage } from "../llm/chat-completions.js";
import type { ChatPlatform, Passage, SynthesisRequest, Synthesizer } from "./synthesizer.js";

export type OpenAiSynthesizerOptions = ChatCompletionsOptions;

const TEMPERATURE = 0.2;

/**
 * A synthesizer backed by any OpenAI-compatible chat-completions endpoint. Citations in the answer
 * are not checked here: the caller does it.
 */
export function createOpenAiSynthesizer(options: OpenAiSynthesizerOptions): Synthesizer {
  const client = createChatCompletions(options, "use the extractive synthesizer (synthesizer: extractive)");
  return {
    id: `openai:${options.model}`,
    async synthesize(request: SynthesisRequest) {
      const { content, servedModel } = await client.complete(buildMessages(request), {
        maxTokens: request.maxTokens,
        temperature: TEMPERATURE,
      });
      return { content: markModelCitations(content), model: `openai:${servedModel}` };
    },
  };
}

/**
 * The chat messages for a synthesis request: a system message with the rules (cite only the
 * given numbers, invent nothing, length, format for the platform) and a user message listing the
 * numbered passages and the query. Pure, so the prompt can be tested on its own.
 */
export function buildMessages(request: SynthesisRequest): ChatMessage[] {
  const numbers = request.passages.map((passage) => passage.n);
  const allowed = numbers.length > 0 ? numbers.join(", ") : "none";
  const words = Math.max(20, Math.round(request.maxTokens * 0.7));
  const system = [
    "You write a concise, factual narrative that answers the user's query from numbered passages taken from the user's own past conversations with AI assistants.",
    "",
    "Rules:",
    "- Use only what the passages say. Do not invent facts, names, dates or numbers, and do not add outside knowledge. If the passages do not answer the query, say so in one sentence.",
    "- Cite every claim with the number of each passage it comes from, in square brackets right after the claim: [n], or [n][m] for several.",
    `- Cite ONLY these passage numbers: ${allowed}. Never cite a number that is not in that list.`,
    '- Passages marked "user" are what the user said; passages marked "assistant" are what an assistant told them. Address the user as "you".',
    "- When passages disagree, say so, cite both, and say which is more recent when their dates show it.",
    `- Stay under about ${request.maxTokens} tokens (about ${words} words).`,
    `- ${formatRule(request.platform)}`,
    "- Write only the narrative: no preamble, no closing remarks, no list of sources.",
  ].join("\n");

  const lines = ["Passages:"];
  if (request.passages.length === 0) lines.push("(none)");
  // In their numbered order: the most relevant conversation first, as the answer should read.
  for (const passage of [...request.passages].sort((a, b) => a.n - b.n)) lines.push(formatPassage(passage));
  lines.push("");
  const context = request.conversationContext?.trim();
  if (context) {
    lines.push(`The user is currently discussing: ${context}`, "(Use this only to decide what the query means; do not answer it.)", "");
  }
  lines.push(`Query: ${request.query.trim()}`);

  return [
    { role: "system", content: system },
    { role: "user", content: lines.join("\n") },
  ];
}

function formatRule(platform: ChatPlatform | undefined): string {
  switch (platform) {
    case "chatgpt":
    case "claude":
      return "Format: Markdown is allowed. Use short paragraphs or a few bullet points; no headings, tables or code fences.";
    case "typingmind":
      return "Format: plain text only, no Markdown: no asterisks, underscores, # headings, bullet markers or code fences. Use short paragraphs.";
    default:
      return "Format: plain prose in one or a few short paragraphs, without Markdown.";
  }
}

function formatPassage(passage: Passage): string {
  const title = passage.conversationTitle.trim() || "untitled";
  const sender = passage.sender === "human" ? "user" : "assistant";
  return `[${passage.n}] (${title}, ${formatDate(passage.date)}, ${sender}): ${passage.text.trim()}`;
}

function formatDate(date: string | null): string {
  if (!date) return "undated";
  if (/^\d{4}-\d{2}-\d{2}/.test(date)) return date.slice(0, 10);
  const time = Date.parse(date);
  return Number.isNaN(time) ? "undated" : new Date(time).toISOString().slice(0, 10);
}
