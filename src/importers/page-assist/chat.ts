// Page Assist's chats to the upload shape. What each rule is based on: Page Assist's own code
// (n4ze3m/page-assist src/db/dexie/types.ts `HistoryInfo`, `Message`; src/db/dexie/helpers.ts
// `saveMessage`, `formatToMessage`, `exportChatHistory`; src/db/dexie/branch.ts; src/libs/mcp/utils.ts
// `isConversationMessage`; src/components/Common/Playground/message-groups.ts, which draws a tool call):
// a chat is `{ history: { id, title, createdAt, message_source?, last_used_prompt? }, messages: [{ id,
// history_id, name, role, content, images?, sources?, search?, documents?, createdAt, messageKind?,
// toolCalls? }] }`, the data export's record and, per history, the Dexie tables' rows.
// - Branch: the messages stored are the ones shown (editing or regenerating deletes those after);
//   "branch from here" copies the history and its first messages into a new chat (`message_source:
//   "branch"`, new ids): each is its own conversation. Messages are shown by `createdAt`
//   (formatToMessage sorts), and so read: before Dexie (2025-06) they were stored newest first.
// - Content: `user` and `assistant` text; an answer's leading `<think>` block (the app's folded
//   reasoning) left out; `images` (data URLs) `[image]` each; a user's `documents` (the tabs and files it
//   was asked about) by their address or `[file: name]`; an answer's `toolCalls` (`messageKind:
//   "assistant_tool_calls"`) `[tool: name]`; `tool` messages (the tools' output), `sources` and `search`
//   (the retrieved passages and web results shown under an answer) left out.
// - System prompt: the history's `last_used_prompt.prompt_content`, the prompt chosen for the chat.
// - Title: the history's (the app writes "Untitled Chat" for a blank one). Times: messages' `createdAt`
//   (ms); the history's `createdAt` is moved to the last turn's time (updateChatHistoryCreatedAt), so
//   it dates the conversation's last update, not its start. Ids: the history's and the messages' own,
//   kept by the move from chrome.storage.local to Dexie (src/db/dexie/migration.ts) and by the export.
// Model names (`name`, `modelName`) are not kept: the upload shape has no place for them.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { filePlaceholder, joinPieces, THINK_BLOCK, toolPlaceholder, withSystemPrompt } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** One `{ history, messages }` of the export's `chat` list. */
export function pageAssistChat(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record) || !isObject(record.history)) throw notAConversation(context);
  const { history } = record;
  const id = nonEmptyString(history.id);
  if (id === undefined) throw notAConversation(context);
  const said = shownOrder(arrayOf(record.messages).filter(isObject))
    .map(toMessage)
    .filter((message) => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const times = said.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = times[0] ?? isoFromTime(history.createdAt) ?? context.fallbackDate.toISOString();
  const updatedAt = [isoFromTime(history.createdAt), ...times]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  const prompt = isObject(history.last_used_prompt) ? history.last_used_prompt.prompt_content : undefined;
  return {
    complete: true, // the export (or the database) holds the chat as it stands
    conversation: {
      id: `page-assist-${id}`,
      title: titleFrom(history.title),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: withSystemPrompt(prompt, said, createdAt),
    },
  };
}

/** The messages by `createdAt`, as the chat shows them; those without one keep their place after. */
function shownOrder(messages: JsonObject[]): JsonObject[] {
  const time = (message: JsonObject) => (typeof message.createdAt === "number" ? message.createdAt : Number.POSITIVE_INFINITY);
  return messages
    .map((message, index) => ({ message, index }))
    .sort((a, b) => time(a.message) - time(b.message) || a.index - b.index)
    .map(({ message }) => message);
}

function toMessage(message: JsonObject, index: number): UploadMessage | undefined {
  const role = message.role === "user" ? "human" : message.role === "assistant" ? "assistant" : undefined;
  if (role === undefined || message.messageKind === "tool_result") return undefined; // tool output, system
  const text = stringOf(message.content);
  const pieces =
    role === "human"
      ? [text, ...images(message), ...arrayOf(message.documents).map(documentPiece)]
      : [text?.replace(THINK_BLOCK, ""), ...images(message), ...arrayOf(message.toolCalls).map(toolPiece)];
  const content = joinPieces(pieces);
  if (content === "") return undefined;
  const createdAt = isoFromTime(message.createdAt);
  return {
    id: nonEmptyString(message.id) ?? `message-${index + 1}`,
    role,
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

function images(message: JsonObject): string[] {
  return arrayOf(message.images)
    .filter((image) => nonEmptyString(image) !== undefined)
    .map(() => "[image]");
}

/** A tab the user asked about, by its address; a file by its name. */
function documentPiece(document: unknown): string | undefined {
  if (!isObject(document)) return undefined;
  if (document.type === "tab") return nonEmptyString(document.url) ?? nonEmptyString(document.title);
  return filePlaceholder(document.filename ?? document.title);
}

function toolPiece(call: unknown): string | undefined {
  return isObject(call) ? toolPlaceholder(call.displayName ?? call.name) : undefined;
}
