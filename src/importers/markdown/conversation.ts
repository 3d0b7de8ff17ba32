// A Markdown transcript (transcript.ts) to the upload shape. What each rule is based on:
// - The app is the one its link names (`source: https://chatgpt.com/c/<id>` in the front matter of
//   pionxzh/chatgpt-exporter's Markdown when its metadata is on; "**Link:**" in other exporters'
//   headers), whose id is then the conversation's, so the same chat from the app's own export is one
//   conversation; else the app the assistant's name names ("ChatGPT", "Claude"); else `markdown`.
// - Without a link, the id is a hash of the title and the first prompt: the same file imported
//   again, or the chat saved again after it went on, is the same conversation.
// - A message's time is the one its speaker's line gives, or the line after it when that line is
//   only a time (`<time datetime="…">` of chatgpt-exporter, `*Jun 1, 2025, 10:00 AM*`).
// - A system prompt (`#### system:`) is what the user wrote for the model: the first message,
//   `[system prompt]` (placeholders.ts), as for the apps' exports that record one.
// - Left out: reasoning folded in
//   `<details>` whose summary says so ("Thought for 12 seconds", chatgpt-exporter's thinking option);
//   a tool's turn ("Plugin (…)") is the assistant's, as what it did for the answer; images become
//   `[image]`; HTML comments, the rules between messages and an exporter's credit at the end
//   ("Powered by …") go.
// - Cherry Studio's topic export (Export → Markdown, CherryHQ/cherry-studio src/renderer/src/utils/export.ts
//   `topicToMarkdown`): `## 🧑‍💻 User` and `## 🤖 <model> | <provider>` between rules, so its chats are
//   Cherry Studio's, not the app a model's name names (a gpt-4o answer in it is no ChatGPT chat); with
//   reasoning on, the thinking sits first in a box of its own, `<div style="border: 2px solid #dddddd; …">`
//   around a `<details>` whose summary is in the app's language ("深度思考"): the box is left out.
// - DeepChat's export (`## 👤 用户 (…)` / `## 🤖 助手 (…)`, markdown/deepchat.ts) is DeepChat's, its id the
//   `**Conversation ID:**` its header gives, the session's in the database, so an export and the
//   database read later are one conversation; its thinking, web results and tools' params and
//   responses are left out, as importers/deepchat/ leaves them.
import { createHash } from "node:crypto";
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { earliestIso, titleFrom } from "../json-values.js";
import { cutText } from "../../text/cut-text.js";
import { isSystemPrompt, systemPromptMessage } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";
import { DEEPCHAT_ASSISTANT, DEEPCHAT_ID_KEY, DEEPCHAT_USER, deepchatBody } from "./deepchat.js";
import { isoTimeIn, timeOf } from "./times.js";
import { readTranscript, type Transcript, type Turn } from "./transcript.js";

interface App {
  platform: string;
  name: string;
  /** Its conversation's link, the id captured. */
  link?: RegExp;
  /** The assistant's name in a transcript of it. */
  assistant: RegExp;
}

const APPS: readonly App[] = [
  {
    platform: "chatgpt",
    name: "ChatGPT",
    link: /(?:chatgpt\.com|chat\.openai\.com)\/(?:g\/[^/\s]+\/)?c\/([\w-]+)/,
    assistant: /^(?:chat\s*gpt|gpt)/i,
  },
  { platform: "claude", name: "Claude", link: /claude\.ai\/chat\/([\w-]+)/, assistant: /^claude/i },
  { platform: "gemini", name: "Gemini", link: /gemini\.google\.com\/app\/([\w-]+)/, assistant: /^(?:gemini|bard)/i },
  { platform: "copilot", name: "Copilot", assistant: /^copilot/i },
  { platform: "deepseek", name: "DeepSeek", assistant: /^deepseek/i },
  { platform: "grok", name: "Grok", assistant: /^grok/i },
  { platform: "mistral", name: "Le Chat", assistant: /^(?:mistral|le\s+chat)/i },
  { platform: "perplexity", name: "Perplexity", assistant: /^perplexity/i },
];
/** Cherry Studio's heading of the user's turns (its export writes the emoji with or without the joiner). */
const CHERRY_STUDIO_USER = /^🧑\u200d?💻 User$/u;
const CHERRY_STUDIO = { platform: "cherry-studio", name: "Cherry Studio" };
/** Cherry Studio's box around an answer's reasoning: `</details>` cannot occur inside, its reasoning being sanitised of it. */
const CHERRY_STUDIO_REASONING = ['<div style="border: 2px solid #dddddd; border-radius: 10px;">', "</details>\n</div>"] as const;
const DEEPCHAT = { platform: "deepchat", name: "DeepChat" };
/** A transcript that names no app. */
const NO_APP = { platform: "markdown", name: "Markdown transcript" };

const TITLE_CHARS = 80;

/** The conversation a transcript file holds; undefined when it holds no message text. */
export function transcriptConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  const transcript = typeof record === "string" ? readTranscript(record) : undefined;
  if (transcript === undefined) throw notAConversation(context);
  const { platform, name, id } = appOf(transcript);
  const turns =
    platform === DEEPCHAT.platform ? transcript.turns.map((turn) => ({ ...turn, body: deepchatBody(turn.body) })) : transcript.turns;
  const messages = turns.flatMap((turn, index) => messageOf(turn, index));
  if (!messages.some((message) => !isSystemPrompt(message))) {
    context.skip("transcripts without any message text");
    return undefined;
  }
  const times = messages.map((message) => message.createdAt);
  const createdAt =
    metadataTime(transcript, /^(?:created?|create[_ ]?time|created[_ ]?at|date[_ ]?created|started)$/) ??
    earliestIso(times) ??
    metadataTime(transcript, /^(?:date|time|timestamp|exported|export[_ ]?date|saved)$/) ??
    context.fallbackDate.toISOString();
  const updatedAt = metadataTime(transcript, /^(?:updated?|update[_ ]?time|updated[_ ]?at|last[_ ]?updated|modified)$/) ?? latest(times);
  const title = titleFrom(transcript.title ?? firstPrompt(messages));
  return {
    platform,
    platformDisplayName: name,
    complete: true, // the file holds the conversation as it stood when saved
    conversation: {
      id: id ?? derivedId(title, messages),
      title,
      createdAt,
      ...(updatedAt !== undefined && updatedAt > createdAt ? { updatedAt } : {}),
      messages,
    },
  };
}

function messageOf(turn: Turn, index: number): UploadMessage[] {
  const { text, time } = timed(turn.body);
  const content = cleaned(text);
  const createdAt = turn.time ?? time;
  if (turn.speaker === "system") return [systemPromptMessage(content, `m${index + 1}`, createdAt) ?? []].flat();
  if (content === "") return [];
  return [
    {
      id: `m${index + 1}`,
      role: turn.speaker === "human" ? "human" : "assistant",
      content,
      ...(createdAt === undefined ? {} : { createdAt }),
    },
  ];
}

/** The body without its first line when that line is only a time, and the time. */
function timed(body: string): { text: string; time?: string | undefined } {
  const match = /^\s*(\S[^\n]*)(?:\n|$)/.exec(body);
  if (!match) return { text: body };
  const line = match[1]!.trim();
  const datetime = /^<time\b[^>]*\bdatetime="([^"]+)"[^>]*>.*<\/time>$/i.exec(line)?.[1];
  const bare = line
    .replace(/^[*_]+|[*_]+$/g, "")
    .replace(/^[^\p{L}\p{N}]*(?:time|date|sent)\s*:?\s*(?:\*\*|__)?\s*/iu, "")
    .trim();
  const time = datetime !== undefined ? (timeOf(datetime) ?? isoTimeIn(datetime)) : line.length <= 60 ? timeOf(bare) : undefined;
  return time === undefined ? { text: body } : { text: body.slice(match[0].length), time };
}

const IMAGE = /!\[[^\]\n]*\]\([^)\n]*\)/g;
/** A `<summary>` that says its `<details>` fold the model's reasoning ("Thought for 12 seconds"). */
const REASONING_SUMMARY = /^\s*<summary>[^<]*(?:thought|thinking|reasoning)[^<]*<\/summary>/i;
const RULE = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/;
/** An exporter's credit on the last line, after a rule ("Powered by [ChatGPT Exporter](…)"). */
const CREDIT = /^\s*(?:powered|exported|generated|saved|created|made) (?:by|with|using) /i;

/**
 * The message without folded reasoning, comments, rules at its edges and an exporter's credit,
 * images as `[image]`. Blocks are found with indexOf, not a lazy regex, which an unclosed `<!--`
 * repeated through a large file would make quadratic.
 */
function cleaned(text: string): string {
  const boxed = withoutBlocks(text, ...CHERRY_STUDIO_REASONING, (inside) => inside.trimStart().startsWith("<details"));
  const folded = withoutBlocks(boxed, "<details>", "</details>", (inside) => REASONING_SUMMARY.test(inside));
  const lines = withoutBlocks(folded, "<!--", "-->", () => true)
    .replace(IMAGE, "[image]")
    .split("\n");
  const blank = (line: string | undefined) => line !== undefined && (line.trim() === "" || RULE.test(line));
  while (blank(lines[0])) lines.shift();
  while (blank(lines.at(-1))) lines.pop();
  const ruleBefore = lines.findLastIndex((line, index) => index < lines.length - 1 && line.trim() !== "");
  if (CREDIT.test(lines.at(-1) ?? "") && RULE.test(lines[ruleBefore] ?? "")) lines.splice(ruleBefore);
  while (blank(lines.at(-1))) lines.pop();
  return lines.join("\n").trim();
}

/** The text without the blocks from `open` to `close` whose inside `drop` says to drop. */
function withoutBlocks(text: string, open: string, close: string, drop: (inside: string) => boolean): string {
  let out = "";
  let at = 0;
  for (let start = text.indexOf(open); start !== -1; start = text.indexOf(open, at)) {
    const end = text.indexOf(close, start + open.length);
    if (end === -1) break;
    const next = end + close.length;
    out += text.slice(at, start) + (drop(text.slice(start + open.length, end)) ? "" : text.slice(start, next));
    at = next;
  }
  return out + text.slice(at);
}

/** The app the transcript is of, and its id there when a link gives it. */
function appOf(transcript: Transcript): { platform: string; name: string; id?: string | undefined } {
  const links = [...transcript.metadata.values()].join("\n");
  for (const app of APPS) {
    const id = app.link?.exec(links)?.[1];
    if (id !== undefined) return { platform: app.platform, name: app.name, id };
  }
  if (transcript.markers.some((marker) => marker.speaker === "human" && CHERRY_STUDIO_USER.test(marker.label.trim()))) return CHERRY_STUDIO;
  if (isDeepChat(transcript)) return { ...DEEPCHAT, id: transcript.metadata.get(DEEPCHAT_ID_KEY)?.trim() || undefined };
  const assistant = transcript.turns.find((turn) => turn.speaker === "assistant")?.name ?? "";
  const app = APPS.find((candidate) => candidate.assistant.test(assistant));
  return app ? { platform: app.platform, name: app.name } : NO_APP;
}

/** DeepChat's export: its speakers' headings alone (`## 👤 用户 (…)`, `## 🤖 助手 (…)`), in Chinese in every language. */
function isDeepChat(transcript: Transcript): boolean {
  return transcript.markers.every((marker) => (marker.speaker === "human" ? DEEPCHAT_USER : DEEPCHAT_ASSISTANT).test(marker.label.trim()));
}

function metadataTime(transcript: Transcript, key: RegExp): string | undefined {
  for (const [name, value] of transcript.metadata) {
    if (!key.test(name)) continue;
    const time = timeOf(value) ?? isoTimeIn(value);
    if (time !== undefined) return time;
  }
  return undefined;
}

function latest(times: (string | undefined)[]): string | undefined {
  return times.reduce<string | undefined>(
    (last, time) => (time !== undefined && (last === undefined || time > last) ? time : last),
    undefined,
  );
}

/** The first prompt's first line, as a title for a transcript without one. */
function firstPrompt(messages: UploadMessage[]): string | undefined {
  const said = messages.filter((message) => !isSystemPrompt(message));
  const prompt = said.find((message) => message.role === "human") ?? said[0];
  const line = prompt?.content.split("\n").find((text) => text.trim() !== "");
  return line === undefined ? undefined : cutText(line.replace(/^[#>*\-\s]+/, "").trim(), TITLE_CHARS);
}

function derivedId(title: string, messages: UploadMessage[]): string {
  const said = messages.filter((message) => !isSystemPrompt(message));
  const prompt = said.find((message) => message.role === "human")?.content ?? said[0]!.content;
  return `md-${createHash("sha256").update(`${title}\u0000${prompt}`).digest("hex").slice(0, 24)}`;
}
