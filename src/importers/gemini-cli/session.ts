// Gemini CLI's session files to the upload shape, one conversation per file. What each rule rests
// on: google-gemini/gemini-cli packages/core/src/services/chatRecordingService.ts (the writer, and
// loadConversationRecord, how the CLI reads a file back), chatRecordingTypes.ts (the records),
// core/geminiChat.ts (what it records of a prompt and an answer) and cli/src/utils/sessionUtils.ts
// (convertSessionToHistoryFormats: what /resume shows of a session):
// - To April 2026 (#23749) a session was one JSON object: `sessionId`, `projectHash`, `startTime`,
//   `lastUpdated`, `summary`, `kind`, `messages`. Since, a .jsonl file: that object without `messages`
//   first, then a record a line: a message (`id`; written again, whole, each time it changes: the last
//   one counts, where the first stood), `{ $set }` (the session's fields changed; `messages` in it
//   replaces them all), `{ $rewindTo: id }` (/rewind: that message and all after it are gone). A resumed
//   .json session goes on in a .jsonl beside it, same id: the newer is read (repeats.ts).
// - Human: a `user` message's `displayContent` (what was typed) else its `content` (text parts; images
//   and files as placeholders), without the files an @path pulled in. Left out: tool results (`user`
//   messages of `functionResponse` parts), the CLI's `<session_context>` and `<hook_context>`.
// - Assistant: the `gemini` messages from one prompt to the next are one message: their text, and
//   the tools they ran (`toolCalls`, or `functionCall` parts) as `[tool: name]`, those in a row on
//   one line. Left out: thoughts (`thoughts`, `thought` parts), the CLI's "Binary content received"
//   stand-in, and its `info`, `warning` and `error` notices. Subagents' sessions (`kind: "subagent"`) are left out.
// - Title: `summary` (the CLI's own, for /resume), else the first prompt's first line. Id: `sessionId`.
// - Qwen Code's sessions of 2025 are these files, its answers typed "qwen" (qwen.ts).
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId, uniqueIds } from "../message-ids.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import { SUBAGENT_SESSIONS, agentTurns, promptTitle, sessionFileId, type TurnPiece, type Utterance } from "../agent-sessions.js";
import type { SourcedRecord } from "../types.js";
import { QWEN_ANSWER } from "./qwen.js";

/** What an @path adds after the prompt typed: the files' text (core/src/utils/constants.ts). */
const REFERENCED_FILES = "--- Content from referenced files ---";
const APP_CONTEXT = /^\s*<(session_context|hook_context)>/;
const BINARY_STAND_IN = "Binary content received. Proceeding with analysis.";

interface Session {
  fields: JsonObject;
  /** The messages by id, in the order first written. */
  messages: Map<string, JsonObject>;
}

export function geminiCliSession(records: readonly SourcedRecord[]): UploadConversation | undefined {
  const { skip, fallbackDate } = records[0]!.context;
  const { fields, messages } = replay(records.map((record) => record.value));
  if (fields.kind === "subagent") {
    skip(SUBAGENT_SESSIONS);
    return undefined;
  }
  const turns = turnsOf([...messages.values()]);
  if (turns.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const createdAt = isoFromTime(fields.startTime) ?? turns[0]!.createdAt ?? fallbackDate.toISOString();
  const updatedAt = isoFromTime(fields.lastUpdated) ?? turns.at(-1)!.createdAt;
  return {
    complete: true, // the file holds the whole session as it stands
    conversation: {
      id: fittingId(stringOf(fields.sessionId) ?? sessionFileId(records[0]!.context.path)),
      title: titleFrom(nonEmptyString(fields.summary) ?? promptTitle(turns)),
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages: uniqueIds(turns),
    },
  };
}

/** The session as the CLI reads it back (loadConversationRecord): its fields, and the messages standing at the end. */
function replay(values: unknown[]): Session {
  const session: Session = { fields: {}, messages: new Map() };
  const add = (message: unknown) => {
    if (isObject(message) && typeof message.id === "string") session.messages.set(message.id, message);
  };
  for (const value of values) {
    if (!isObject(value)) continue;
    if (typeof value.$rewindTo === "string") rewind(session.messages, value.$rewindTo);
    else if (typeof value.id === "string") add(value);
    else if (isObject(value.$set)) {
      if (Array.isArray(value.$set.messages)) session.messages.clear();
      arrayOf(value.$set.messages).forEach(add);
      session.fields = { ...session.fields, ...value.$set };
    } else if (typeof value.sessionId === "string") {
      session.fields = { ...session.fields, ...value };
      arrayOf(value.messages).forEach(add);
    }
  }
  return session;
}

/** /rewind: the message named and every one after it are gone (all of them when it is not there, as the CLI does). */
function rewind(messages: Map<string, JsonObject>, id: string): void {
  const ids = [...messages.keys()];
  const from = ids.indexOf(id);
  for (const gone of from === -1 ? ids : ids.slice(from)) messages.delete(gone);
}

/** Each prompt a human message; the assistant's messages up to the next prompt one message (agent-sessions.ts). */
function turnsOf(messages: JsonObject[]): UploadMessage[] {
  const utterances: Utterance[] = [];
  for (const message of messages) {
    const role = message.type === "user" ? "human" : message.type === "gemini" || message.type === QWEN_ANSWER ? "assistant" : undefined;
    if (role === undefined) continue; // the CLI's info, warning and error notices
    // A tool's result and the CLI's context give no pieces: no turn of their own.
    const pieces = role === "human" ? promptPieces(message) : answerPieces(message);
    utterances.push({ id: fittingId(String(message.id)), role, pieces, time: isoFromTime(message.timestamp) });
  }
  return agentTurns(utterances);
}

/** A prompt as typed: `displayContent` when the CLI kept it apart from what it sent. */
export function promptPieces(message: JsonObject): TurnPiece[] {
  const shown = partsOf(message.displayContent);
  const parts = shown.some((part) => nonEmptyString(part.text) !== undefined) ? shown : partsOf(message.content);
  const pieces: string[] = [];
  for (const part of parts) {
    const text = typeof part.text === "string" ? part.text : undefined;
    const at = text?.indexOf(REFERENCED_FILES) ?? -1;
    if (at !== -1) {
      pieces.push(text!.slice(0, at)); // the files' text follows, to the end of the prompt
      break;
    }
    const piece = text === undefined ? attachment(part) : part.thought === true ? undefined : text;
    if (piece !== undefined && piece.trim() !== "") pieces.push(piece);
  }
  return APP_CONTEXT.test(pieces.join("\n")) ? [] : pieces.map((text) => ({ text, tool: false }));
}

/** An image or file a prompt holds; undefined for a tool's result (`functionResponse`) and others. */
function attachment(part: JsonObject): string | undefined {
  const file = isObject(part.inlineData) ? part.inlineData : isObject(part.fileData) ? part.fileData : undefined;
  if (file === undefined) return undefined;
  if (stringOf(file.mimeType)?.startsWith("image/")) return "[image]";
  return filePlaceholder(nonEmptyString(file.displayName) ?? nonEmptyString(file.fileUri)?.replace(/^.*\//, ""));
}

/** An answer's text, then the tools it ran. */
export function answerPieces(message: JsonObject): TurnPiece[] {
  const parts = partsOf(message.content);
  const text = parts
    .filter((part) => typeof part.text === "string" && part.thought !== true && part.text.trim() !== BINARY_STAND_IN)
    .map((part) => String(part.text))
    .join("");
  const calls = arrayOf(message.toolCalls).filter(isObject);
  const called = new Set(calls.map((call) => call.id));
  const inContent = parts
    .map((part) => (isObject(part.functionCall) ? part.functionCall : undefined))
    .filter((call): call is JsonObject => call !== undefined && (call.id === undefined || !called.has(call.id)));
  const tools = [...calls, ...inContent].map((call) => ({ text: toolPlaceholder(call.name), tool: true }));
  return [...(text.trim() === "" ? [] : [{ text, tool: false }]), ...tools];
}

/** A PartListUnion (a string, a part, or a list of either) as parts. */
function partsOf(content: unknown): JsonObject[] {
  const list = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  return list.map((part) => (typeof part === "string" ? { text: part } : part)).filter(isObject);
}
