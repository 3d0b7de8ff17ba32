// Chatbot UI's exports to the upload shape. What each rule is based on: the legacy app's
// types/export.ts and utils/app/importExport.ts (mckaywrigley/chatbot-ui, 2023): format 1 is a list of
// `{ id: number, name, messages }`, format 2 `{ history, folders }`, 3 and 4 `{ version, history, folders,
// prompts? }`, a conversation `{ id, name, messages: [{ role, content }], model, prompt, temperature?,
// folderId }`; LibreChat's test export (api/server/utils/import/__data__/chatbotui-export.json), whose
// messages also carry `type: "text"`; the 2024 app's lib/export-old-data.ts, which downloads the legacy
// app's localStorage as it is: `{ conversationHistory: "<the list, as JSON text>", folders, prompts, … }`
// (with the API key: only `conversationHistory` is read).
// - Each conversation is one line of messages: the app keeps no branches (an edit drops what followed).
// - Speakers: `user` and `assistant`. The conversation's `prompt` (its system prompt) is the first message,
//   `[system prompt]`, unless it is the app's default ("You are ChatGPT, a large language model…", placeholders.ts).
// - Times: none in any format; a conversation is dated by the file (its modification time).
// - Forks' messages with a list of parts: their text, and `[image]` for an image.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import type { Importer } from "../importer.js";
import { arrayOf, isObject, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { joinPieces, withSystemPrompt } from "../placeholders.js";
import { notAConversation, unreadableRecord } from "../record-errors.js";
import type { RecordContext } from "../types.js";

const EMPTY = "conversations without any message text";

/** Each record's conversations: a record is a conversation, an export read whole, or the app's localStorage. */
export const chatbotUiConversations: Importer["convert"] = async function* (records) {
  for await (const { value, context } of records) {
    for (const conversation of conversationsOf(value, context)) {
      const converted = isolated(conversation, context);
      if (converted !== undefined) yield converted;
    }
  }
};

function conversationsOf(record: unknown, context: RecordContext): unknown[] {
  if (!isObject(record)) return [record]; // not a conversation: named as one
  if ("conversationHistory" in record) return arrayOf(parsedHistory(record.conversationHistory, context));
  if ("history" in record && !("messages" in record)) return arrayOf(record.history);
  return [record];
}

/** localStorage keeps the list as JSON text. */
function parsedHistory(value: unknown, context: RecordContext): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    context.unreadable(unreadableRecord(context, new Error(`its conversationHistory is not JSON (${(error as Error).message})`)));
    return [];
  }
}

/** A conversation the converter fails on is named and skipped: it costs that conversation, not the file. */
function isolated(conversation: unknown, context: RecordContext): UploadConversation | undefined {
  try {
    return chatbotUiConversation(conversation, context);
  } catch (error) {
    context.unreadable(unreadableRecord(context, error));
    return undefined;
  }
}

export function chatbotUiConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const said = arrayOf(record.messages)
    .map((message, index) => toMessage(message, index))
    .filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip(EMPTY);
    return undefined;
  }
  const createdAt = context.fallbackDate.toISOString();
  return {
    complete: true, // an export holds the whole conversation as it stands
    conversation: {
      id: conversationId(record, said),
      title: titleFrom(record.name),
      createdAt,
      messages: withSystemPrompt(record.prompt, said, createdAt),
    },
  };
}

function toMessage(message: unknown, index: number): UploadMessage | undefined {
  if (!isObject(message) || (message.role !== "user" && message.role !== "assistant")) return undefined;
  const content = joinPieces(typeof message.content === "string" ? [message.content] : arrayOf(message.content).map(partText));
  if (content === "") return undefined;
  return { id: `message-${index + 1}`, role: message.role === "user" ? "human" : "assistant", content };
}

function partText(part: unknown): string | undefined {
  if (!isObject(part)) return stringOf(part);
  return part.type === "image_url" ? "[image]" : stringOf(part.text);
}

/** Its id (a number in format 1), or one derived from what it holds. */
function conversationId(record: JsonObject, messages: UploadMessage[]): string {
  const id = typeof record.id === "number" ? String(record.id) : stringOf(record.id)?.trim();
  return id || derivedId("chatbot-ui", [record.name ?? null, messages[0]?.content ?? null]);
}
