// Gemini: Google Takeout "My Activity" records (Gemini Apps, formerly Bard) to conversations.
// Each record is one prompt and its response; records are grouped into conversations by their
// conversation URL when they carry one, otherwise by calendar day (UTC), split where an hour passes
// without a record.
import { createHash } from "node:crypto";
import type { UploadConversation, UploadMessage } from "../schemas/chat-history.js";
import { htmlToText } from "./html-text.js";
import { arrayOf, cutText, isObject, isoFromDateString, stringOf, type JsonObject } from "./json-values.js";
import { notAConversation } from "./record-errors.js";
import type { PlatformInfo, SourcedRecord } from "./types.js";

export const GEMINI: PlatformInfo = { platform: "gemini", platformDisplayName: "Gemini" };

export const GEMINI_PRODUCTS = ["Gemini Apps", "Bard"];
const PROMPT_VERB = /^(?:Prompted|Asked)\s+/;
const CONVERSATION_URL = /https?:\/\/(?:gemini|bard)\.google\.com\/(?:u\/\d+\/)?(?:app|chat)\/([A-Za-z0-9_-]+)/;
const TITLE_CHARS = 80;
/** Records of one day without a conversation URL are one conversation until this long a pause. */
const SESSION_GAP_MS = 60 * 60 * 1000;

interface Turn {
  time: string;
  /** Position in the file, to keep records with equal times in a stable order. */
  order: number;
  group: string;
  prompt: string;
  attachments: string[];
  response: string;
  /** Short hash of the raw title: with the time, a stable message id. */
  fingerprint: string;
}

/**
 * Grouping needs every record of a group, so the Gemini turns are buffered before anything is
 * yielded: only the extracted text of Gemini records is kept (not the raw JSON, and not other
 * products' records). Takeout activity files are modest in size, so this stays small.
 */
export async function* geminiConversations(records: AsyncIterable<SourcedRecord>): AsyncGenerator<UploadConversation> {
  const groups = new Map<string, Turn[]>();
  for await (const { value, context } of records) {
    if (!isObject(value)) throw notAConversation(context);
    const turn = toTurn(value, context.index);
    if (turn === undefined) continue;
    const turns = groups.get(turn.group) ?? [];
    turns.push(turn);
    groups.set(turn.group, turns);
  }
  const conversations = [...groups.entries()]
    .flatMap(([group, turns]) => sessionsOf(group, turns))
    .map(([group, turns]) => toConversation(group, turns));
  conversations.sort(
    (a, b) => compare(a.conversation.createdAt, b.conversation.createdAt) || compare(a.conversation.id, b.conversation.id),
  );
  yield* conversations;
}

export function isGeminiRecord(record: JsonObject): boolean {
  const header = stringOf(record.header);
  const products = arrayOf(record.products).filter((product): product is string => typeof product === "string");
  return [header, ...products].some((name) => name !== undefined && GEMINI_PRODUCTS.includes(name));
}

function toTurn(record: JsonObject, order: number): Turn | undefined {
  const time = isoFromDateString(record.time);
  if (!isGeminiRecord(record) || time === undefined) return undefined; // other products; undatable records
  const title = stringOf(record.title) ?? "";
  const response = arrayOf(record.safeHtmlItem)
    .filter(isObject)
    .map((item) => htmlToText(stringOf(item.html) ?? ""))
    .filter((text) => text !== "")
    .join("\n\n");
  const isPrompt = PROMPT_VERB.test(title);
  if (!isPrompt && response === "") return undefined; // activity noise such as "Used Gemini Apps"
  const attachments = arrayOf(record.attachedFiles).filter((name): name is string => typeof name === "string");
  const prompt = title.replace(PROMPT_VERB, "").trim();
  if (prompt === "" && attachments.length === 0 && response === "") return undefined;
  return { time, order, group: groupOf(record, time), prompt, attachments, response, fingerprint: fingerprintOf(title) };
}

/** `app-<id>` from a conversation URL anywhere in titleUrl/subtitles/details, else `day-YYYY-MM-DD`. */
function groupOf(record: JsonObject, time: string): string {
  for (const text of stringsIn([record.titleUrl, record.subtitles, record.details], 0)) {
    const match = CONVERSATION_URL.exec(text);
    if (match?.[1] !== undefined) return `app-${match[1]}`;
  }
  return `day-${time.slice(0, 10)}`;
}

/**
 * A day's records split where an hour passes between two of them: a morning's question about Python
 * and an evening's about bread are two conversations. The first keeps the day's id, the later ones
 * add `-2`, `-3`, so an export imported before the split replaces its day with the first.
 */
function sessionsOf(group: string, turns: Turn[]): [string, Turn[]][] {
  turns.sort((a, b) => compare(a.time, b.time) || a.order - b.order);
  if (!group.startsWith("day-")) return [[group, turns]];
  const sessions: Turn[][] = [];
  for (const [i, turn] of turns.entries()) {
    const previous = turns[i - 1];
    if (previous === undefined || Date.parse(turn.time) - Date.parse(previous.time) > SESSION_GAP_MS) sessions.push([]);
    sessions.at(-1)!.push(turn);
  }
  return sessions.map((session, i) => [i === 0 ? group : `${group}-${i + 1}`, session]);
}

function stringsIn(value: unknown, depth: number): string[] {
  if (typeof value === "string") return [value];
  if (depth > 4) return [];
  if (Array.isArray(value)) return value.flatMap((item) => stringsIn(item, depth + 1));
  if (isObject(value)) return Object.values(value).flatMap((item) => stringsIn(item, depth + 1));
  return [];
}

function fingerprintOf(title: string): string {
  return createHash("sha256").update(title).digest("hex").slice(0, 10);
}

/** A conversation of turns in time order. */
function toConversation(group: string, turns: Turn[]): UploadConversation {
  const messages = uniqueIds(turns.flatMap(turnMessages));
  const first = turns[0];
  const last = turns.at(-1);
  const createdAt = first?.time ?? "";
  return {
    ...GEMINI,
    complete: true, // an export holds the whole conversation as it stands
    conversation: {
      id: `gemini-${group}`,
      title: titleOf(turns),
      createdAt,
      ...(last === undefined || last.time === createdAt ? {} : { updatedAt: last.time }),
      messages,
    },
  };
}

function turnMessages(turn: Turn): UploadMessage[] {
  const base = `gemini-${turn.time}-${turn.fingerprint}`;
  const promptText = [turn.prompt, ...turn.attachments.map((name) => `[file: ${name}]`)].filter((piece) => piece !== "").join("\n");
  const messages: UploadMessage[] = [];
  if (promptText !== "") messages.push({ id: `${base}-prompt`, role: "human", content: promptText, createdAt: turn.time });
  if (turn.response !== "") messages.push({ id: `${base}-response`, role: "assistant", content: turn.response, createdAt: turn.time });
  return messages;
}

/** Identical records (same time and title) would collide: number the repeats. */
function uniqueIds(messages: UploadMessage[]): UploadMessage[] {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    const count = (seen.get(message.id) ?? 0) + 1;
    seen.set(message.id, count);
    return count === 1 ? message : { ...message, id: `${message.id}-${count}` };
  });
}

function titleOf(turns: Turn[]): string {
  const prompt = turns.find((turn) => turn.prompt !== "")?.prompt.replace(/\s+/g, " ");
  return prompt === undefined ? "Untitled" : cutText(prompt, TITLE_CHARS);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
