// One SillyTavern chat file (.jsonl) to the upload shape. What each rule is based on: SillyTavern's
// src/endpoints/chats.js (a header line `{ user_name, character_name, create_date, chat_metadata }`
// written before the messages; group chats have none; its own text export skips `is_system` lines and
// prints `extra.display_text || mes`) and public/script.js, slash-commands.js, tool-calling.js (2024–2025):
// - The branch the user last saw: `mes` is the swipe shown (SillyTavern keeps it equal to
//   `swipes[swipe_id]`), so it is kept, with that swipe's `swipe_info` time; the other swipes are not.
//   A branch ("Branch #12 - …") is a file of its own, so each file is one conversation.
// - Speakers: `is_user` is the human, and comments (/comment: the user's own notes, `extra.type`
//   "comment"); everyone else (the character, group members, the narrator of /sys) the assistant. The
//   narrator's lines start with its name, and every answer does when several characters answer (a group chat).
// - Kept: messages hidden from the prompt (/hide sets `is_system`: the user still sees them) and
//   comments (/comment, the user's own notes). Left out: SillyTavern's own notices (`extra.type` help,
//   welcome, group…), tool calls and their results (`extra.tool_invocations`), and reasoning
//   (`extra.reasoning`, never part of `mes`).
// - Attachments: `extra.image`, `extra.file`, `extra.files` and (2025) `extra.media` become `[image]`,
//   `[video]`, `[audio]`, `[file: name]`.
// - Times: `send_date` is a number (ms), "June 19, 2023 2:20pm", "2024-7-12@01h31m37s",
//   "2024-6-5 @14h 56m 50s 682ms" or ISO 8601; the humanized ones are the user's local time, which the file
//   does not say, and are read as UTC.
// - Title: the file's name (SillyTavern's chat name, "Seraphina - 2024-05-01@12h30m15s"). Id: from the
//   character and the file's name: a branch copies its chat's header (`chat_metadata.integrity` too), so
//   the header alone would make a branch replace its chat.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import {
  arrayOf,
  earliestIso,
  isObject,
  isoFromTime,
  nonEmptyString,
  plausibleIso,
  stringOf,
  titleFrom,
  type JsonObject,
} from "../json-values.js";
import { filePlaceholder, joinPieces } from "../placeholders.js";
import type { SourcedRecord } from "../types.js";

/** `extra.type`s of the notices SillyTavern itself writes into a chat (system_message_types), not the conversation. */
const APP_NOTICES = new Set([
  "help",
  "welcome",
  "group",
  "empty",
  "generic",
  "slash_commands",
  "formatting",
  "hotkeys",
  "macros",
  "welcome_prompt",
  "assistant_note",
]);

const MEDIA_PLACEHOLDERS: Record<string, string> = { image: "[image]", video: "[video]", audio: "[audio]" };

interface Line {
  speaker: string | undefined;
  narrator: boolean;
  message: UploadMessage;
}

export function sillyTavernChat(records: readonly SourcedRecord[]): UploadConversation | undefined {
  const { context } = records[0]!;
  const header = isObject(records[0]!.value) && !("mes" in records[0]!.value) ? records[0]!.value : undefined;
  const lines = (header === undefined ? records : records.slice(1))
    .map((record) => lineOf(record))
    .filter((line): line is Line => line !== undefined);
  if (lines.length === 0) {
    context.skip("chats without any message text");
    return undefined;
  }
  const voices = new Set(lines.filter((line) => line.message.role === "assistant" && !line.narrator).map((line) => line.speaker));
  const messages = lines.map((line) =>
    line.narrator || (voices.size > 1 && line.message.role === "assistant") ? named(line) : line.message,
  );
  const times = messages.map((message) => message.createdAt);
  const createdAt = earliestIso([sillyTavernTime(header?.create_date), ...times]) ?? context.fallbackDate.toISOString();
  const updatedAt = times
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  const file = fileName(context.path);
  return {
    complete: true, // the file holds the whole chat as it stands
    conversation: {
      id: derivedId("sillytavern", [stringOf(header?.character_name) ?? null, file]),
      title: titleFrom(file),
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages,
    },
  };
}

/**
 * Keys one of which every message line has. A line with none (a number, another app's record) is
 * left out and counted, so the summary says the file held lines it did not read; a message with no
 * text is left out silently, as SillyTavern shows nothing of it.
 */
const MESSAGE_KEYS = ["mes", "swipes", "is_user", "name", "extra"];
const NOT_A_MESSAGE = "lines that are no chat message";

function lineOf({ value, context }: SourcedRecord): Line | undefined {
  if (!isObject(value) || !MESSAGE_KEYS.some((key) => key in value)) {
    context.skip(NOT_A_MESSAGE);
    return undefined;
  }
  const extra = isObject(value.extra) ? value.extra : {};
  if (APP_NOTICES.has(String(extra.type)) || Array.isArray(extra.tool_invocations)) return undefined;
  const content = joinPieces([shownText(value, extra), ...attachments(extra)]);
  if (content === "") return undefined;
  const createdAt = sillyTavernTime(swipeInfo(value)?.send_date) ?? sillyTavernTime(value.send_date);
  const message: UploadMessage = {
    id: `line-${context.index + 1}`,
    role: value.is_user === true || extra.type === "comment" ? "human" : "assistant",
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
  return { speaker: nonEmptyString(value.name)?.trim(), narrator: extra.type === "narrator", message };
}

/** What the chat shows: the translation shown instead when there is one, else the swipe the user settled on. */
function shownText(line: JsonObject, extra: JsonObject): string | undefined {
  const swipe = typeof line.swipe_id === "number" ? stringOf(arrayOf(line.swipes)[line.swipe_id]) : undefined;
  return nonEmptyString(extra.display_text) ?? stringOf(line.mes) ?? swipe;
}

function swipeInfo(line: JsonObject): JsonObject | undefined {
  if (typeof line.swipe_id !== "number") return undefined;
  const info = arrayOf(line.swipe_info)[line.swipe_id];
  return isObject(info) ? info : undefined;
}

function attachments(extra: JsonObject): string[] {
  const pieces: string[] = [];
  if (nonEmptyString(extra.image) !== undefined) pieces.push("[image]");
  for (const file of [extra.file, ...arrayOf(extra.files)].filter(isObject)) pieces.push(filePlaceholder(file.name));
  for (const media of arrayOf(extra.media).filter(isObject))
    pieces.push(MEDIA_PLACEHOLDERS[String(media.type)] ?? filePlaceholder(media.title));
  return pieces;
}

/** An answer in a chat of several voices, headed by who gave it. */
function named({ speaker, message }: Line): UploadMessage {
  return speaker === undefined ? message : { ...message, content: `${speaker}: ${message.content}` };
}

/** The file's name without its folder and `.jsonl`: the chat's name in SillyTavern. */
function fileName(path: string): string {
  return (path.split("/").at(-1) ?? path).replace(/\.jsonl$/i, "");
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
/** "June 19, 2023 2:20pm" (getMessageTimeStamp, 2023–2025). */
const MERIDIEM = /^([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s+(\d{1,2}):(\d{2})\s*(am|pm)$/i;
/** "2024-7-12@01h31m37s" (humanizedDateTime) and "2024-6-5 @14h 56m 50s 682ms" (humanizedISO8601DateTime). */
const HUMANIZED = /^(\d{4})-(\d{1,2})-(\d{1,2})\s*@(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?$/;

/** A SillyTavern time to ISO 8601 UTC; undefined when absent or not a time. */
export function sillyTavernTime(value: unknown): string | undefined {
  const text = typeof value === "string" ? value.trim() : undefined;
  const meridiem = text === undefined ? null : MERIDIEM.exec(text);
  if (meridiem !== null) {
    const [, month, day, year, hour, minute, half] = meridiem;
    const monthIndex = MONTHS.indexOf(month!.toLowerCase());
    if (monthIndex === -1) return undefined;
    const hours = (Number(hour) % 12) + (half!.toLowerCase() === "pm" ? 12 : 0);
    return utc(Number(year), monthIndex, Number(day), hours, Number(minute), 0, 0);
  }
  const humanized = text === undefined ? null : HUMANIZED.exec(text);
  if (humanized !== null) {
    const [, year, month, day, hour, minute, second, millis] = humanized.map(Number);
    return utc(year!, month! - 1, day!, hour!, minute!, second!, Number.isNaN(millis) ? 0 : millis!);
  }
  return isoFromTime(value);
}

function utc(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): string | undefined {
  const date = new Date(Date.UTC(year, month, day, hour, minute, second, millis));
  return date.getUTCDate() !== day ? undefined : plausibleIso(date.getTime());
}
