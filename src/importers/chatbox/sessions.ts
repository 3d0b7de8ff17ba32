// Chatbox's sessions to the upload shape. What each rule is based on: Chatbox's own code
// (chatboxai/chatbox src/shared/types/session.ts `SessionSchema`, `MessageSchema`, `MessageContentPartSchema`;
// src/shared/defaults.ts `getDefaultPrompt`): a session `{ id, name, type?, messages, threads?,
// messageForksHash? }`, a message `{ id, role, contentParts | content (before parts), files?, links?,
// timestamp? (ms), error?, isSummary? }`.
// - Branch: `messages` is the fork shown; the forks not shown are kept aside in `messageForksHash`, not read.
//   `threads` are the session's earlier contexts (a "new thread" starts a fresh one below them): read
//   first, oldest first, as the app shows them above.
// - Parts: `text` kept; `reasoning` (the model's thinking, folded in the app) and `info` (the app's notes)
//   left out; `image` becomes `[image]`, a `tool-call` `[tool: name]` (its result is the model's to read);
//   attached files `[file: name]`, links by their address.
// - System prompt: a `system` message is the session's prompt, `[system prompt]`, unless it is the app's
//   default ("You are a helpful assistant."). Tool messages and compaction summaries (`isSummary`) are the
//   app's, not said: left out; so is an error reply without text.
// - Times: messages' `timestamp`; the conversation runs from the first to the last. Id: the session's `id`.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import type { Importer } from "../importer.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { filePlaceholder, joinPieces, systemPromptMessage, toolPlaceholder } from "../placeholders.js";
import { notAConversation, unreadableRecord } from "../record-errors.js";
import type { RecordContext } from "../types.js";

const APP_DEFAULT_PROMPT = "You are a helpful assistant.";

/** Each session of the export, each on its own: a damaged one costs only itself. */
export const chatboxSessions: Importer["convert"] = async function* (records) {
  for await (const { value, context } of records) {
    for (const session of sessionsOf(value)) {
      try {
        const conversation = chatboxSession(session, context);
        if (conversation !== undefined) yield conversation;
      } catch (error) {
        context.unreadable(unreadableRecord(context, error));
      }
    }
  }
};

/** The sessions of the storage: one key each (`session:<id>`), or the older `chat-sessions` list. */
function sessionsOf(record: unknown): unknown[] {
  if (!isObject(record)) return [record];
  const keyed = Object.entries(record)
    .filter(([key]) => key.startsWith("session:"))
    .map(([, session]) => session);
  return [...arrayOf(record["chat-sessions"]), ...keyed];
}

export function chatboxSession(session: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(session)) throw notAConversation(context);
  const all = [
    ...arrayOf(session.threads).flatMap((thread) => (isObject(thread) ? arrayOf(thread.messages) : [])),
    ...arrayOf(session.messages),
  ];
  const prompt = all.filter(isObject).find((message) => message.role === "system");
  const said = all.map(toMessage).filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const times = said
    .map((message) => message.createdAt)
    .filter((time) => time !== undefined)
    .sort();
  const createdAt = times[0] ?? context.fallbackDate.toISOString();
  const updatedAt = times.at(-1);
  const system = systemPromptMessage(promptText(prompt), "system-prompt", createdAt);
  return {
    complete: true, // the export holds the session as it stands
    conversation: {
      id: `chatbox-${nonEmptyString(session.id) ?? said[0]!.id}`,
      title: titleFrom(session.name),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: system === undefined ? said : [system, ...said],
    },
  };
}

function promptText(message: JsonObject | undefined): string | undefined {
  const text = message === undefined ? undefined : joinPieces(contentPieces(message));
  return text === undefined || text === APP_DEFAULT_PROMPT ? undefined : text;
}

function toMessage(message: unknown, index: number): UploadMessage | undefined {
  if (!isObject(message) || message.isSummary === true) return undefined;
  const role = stringOf(message.role);
  if (role !== "user" && role !== "assistant") return undefined; // system: the prompt above; tool: results
  const attached = [
    ...arrayOf(message.files).map((file) => (isObject(file) ? filePlaceholder(file.name) : undefined)),
    ...arrayOf(message.links).map((link) => (isObject(link) ? stringOf(link.url) : undefined)),
  ];
  const content = joinPieces([...contentPieces(message), ...attached]);
  if (content === "") return undefined;
  const createdAt = isoFromTime(message.timestamp);
  return {
    id: nonEmptyString(message.id) ?? `message-${index + 1}`,
    role: role === "user" ? "human" : "assistant",
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

/** What a message shows: its parts (or, before parts, its `content`), without reasoning or the app's notes. */
function contentPieces(message: JsonObject): (string | undefined)[] {
  if (!Array.isArray(message.contentParts)) return [stringOf(message.content)];
  return message.contentParts.map((part) => {
    if (!isObject(part)) return undefined;
    if (part.type === "text") return stringOf(part.text);
    if (part.type === "image") return "[image]";
    if (part.type === "tool-call") return toolPlaceholder(part.toolName);
    return undefined; // reasoning, info
  });
}
