// The lines that start a message in a Markdown transcript: a heading or a bold label naming the
// speaker. The shapes are those exporters write (each seen in their source):
// - `#### You:` / `#### ChatGPT:` / `#### Plugin (name):` (pionxzh/chatgpt-exporter, src/exporter/markdown.ts);
// - `## User` / `## Assistant` / `## System`, with an emoji before (`## 👤 User`) or a time or model
//   after (`## You — 2025-…`, `## User _(…)_`, `## ChatGPT (gpt-4o)`), as chat apps' own "export as
//   Markdown" write them; `## 👤 Human` / `## 🤖 Assistant` (converters of Claude's export);
// - `## Prompt:` / `## Response:` (browser extensions that save a chat as Markdown);
// - `**User:** text`, `**Assistant:**` (transcripts written or pasted by hand);
// - lines that are only "You said:" / "ChatGPT said:", the labels a ChatGPT page copied as text holds.
// A label must be the whole heading (or the whole bold text): "## User Guide" is not a speaker.
import { isoTimeIn, timeOf } from "./times.js";

export type Speaker = "human" | "assistant" | "system" | "tool";

/** A line that starts a message. */
export interface Marker {
  /** The line's index in the text. */
  line: number;
  /** How it is written: a heading of its level ("h2"), a bold label ("bold"), a line "… said:" ("said"). */
  style: string;
  speaker: Speaker;
  /** The speaker as written ("ChatGPT", "You", "Plugin (browser)"). */
  name: string;
  /** The heading's text, or the bold label, as written (after the #s, or inside the **). */
  label: string;
  /** A time the label gives ("## User (2025-06-01 10:00)"), as ISO 8601 UTC. */
  time?: string | undefined;
  /** What follows a bold label on its line: the start of the message. */
  rest: string;
}

const NAMES: Record<Speaker, readonly string[]> = {
  human: ["user", "you", "me", "human", "prompt", "用户"], // 用户: DeepChat's export (markdown/deepchat.ts)
  assistant: [
    "assistant",
    "chatgpt",
    "chat gpt",
    "gpt",
    "claude",
    "gemini",
    "bard",
    "copilot",
    "ai",
    "bot",
    "chatbot",
    "response",
    "model",
    "llm",
    "deepseek",
    "grok",
    "llama",
    "mistral",
    "le chat",
    "perplexity",
    "助手",
  ],
  system: ["system", "system prompt"],
  tool: ["tool", "tool result", "tool output", "plugin", "function"],
};

const SPEAKER_BY_NAME = new Map(Object.entries(NAMES).flatMap(([speaker, names]) => names.map((name) => [name, speaker as Speaker])));
/** Longest names first, so "chat gpt" is tried before "chat". */
const NAME_PATTERN = [...SPEAKER_BY_NAME.keys()]
  .sort((a, b) => b.length - a.length)
  .map((name) => name.replace(/ /g, "\\s+"))
  .join("|");
const LABEL = new RegExp(`^(${NAME_PATTERN})(?:\\s+said)?(?![\\p{L}\\p{N}])(.*)$`, "iu");

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const BOLD = /^ {0,3}(?:\*\*|__)([^*_\n]{1,80}?)(?:\*\*|__)(.*)$/;
/** A line that is only "You said:", as a ChatGPT page copied as text has it before each message. */
const SAID = new RegExp(`^ {0,3}((?:${NAME_PATTERN})\\s+said:)\\s*$`, "iu");

/** A speaker's line is short: longer lines are not matched at all (their patterns would cost more). */
const MAX_MARKER_CHARS = 200;

/** The marker this line is, or undefined. */
export function markerOf(text: string, line: number): Marker | undefined {
  if (text.length > MAX_MARKER_CHARS) return undefined;
  const said = SAID.exec(text);
  if (said) return { line, style: "said", label: said[1]!.trim(), rest: "", ...labelled(said[1]!)! };
  const heading = HEADING.exec(text);
  if (heading) {
    const found = labelled(heading[2]!.replace(/\*\*|__/g, ""));
    return found && { line, style: `h${heading[1]!.length}`, label: heading[2]!, rest: "", ...found };
  }
  const bold = BOLD.exec(text);
  if (!bold) return undefined;
  // A bold label names its speaker with a colon, inside or just after it: "**User:**", "**User**:".
  const inside = bold[1]!.trim();
  const after = bold[2]!;
  const colonInside = inside.endsWith(":");
  if (!colonInside && !after.startsWith(":")) return undefined;
  const found = labelled(colonInside ? inside : `${inside}:`);
  return found && { line, style: "bold", label: inside, rest: (colonInside ? after : after.slice(1)).trim(), ...found };
}

/** The speaker a label names, and a time it gives; undefined when the label is anything more. */
function labelled(raw: string): { speaker: Speaker; name: string; time?: string | undefined } | undefined {
  const text = raw.replace(/^[^\p{L}\p{N}]+/u, "").trim(); // an emoji or symbol before the name
  const match = LABEL.exec(text);
  if (!match) return undefined;
  const suffix = suffixOf(match[2]!);
  if (suffix === undefined) return undefined;
  const name = `${match[1]!}${suffix.name}`;
  const speaker = SPEAKER_BY_NAME.get(match[1]!.toLowerCase().replace(/\s+/g, " "))!;
  return { speaker, name, time: suffix.time };
}

/**
 * What may follow a speaker's name in its label: nothing or a colon; a time or a model in
 * parentheses or after a dash; a model's version ("GPT-4o", "Claude 3.5 Sonnet").
 */
function suffixOf(rest: string): { name: string; time?: string | undefined } | undefined {
  const text = rest.trim().replace(/:$/, "").trim();
  if (text === "") return { name: "" };
  if (text.length > 60) return undefined;
  const aside = /^(?:_?\((.+)\)_?|[-–—|·•,]\s*(.+))$/.exec(text);
  if (aside) {
    const inner = (aside[1] ?? aside[2]!).replace(/^[*_]+|[*_]+$/g, "");
    const time = timeOf(inner) ?? isoTimeIn(inner);
    return time ? { name: "", time } : { name: aside[1] !== undefined ? ` (${inner})` : "" };
  }
  // A version: "-4o" of GPT-4o, "3.5 Sonnet" of Claude 3.5 Sonnet.
  if (/^[-\s]?[\w.]*\d[\w.-]*(?:\s+[\p{L}\p{N}.-]+){0,3}$/u.test(text)) return { name: rest.replace(/:$/, "").trimEnd() };
  return undefined;
}
