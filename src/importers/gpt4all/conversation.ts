// A GPT4All chat (the record chat-file.ts reads a .chat file into) to the upload shape.
// - Prompts as typed ("Prompt: " items' value; LocalDocs excerpts and attached files' text, which
//   GPT4All adds to what the model reads, left out). Answers: a "Response: " item's value; from
//   version 12 an answer that thought or called a tool keeps those steps as sub-items (chatmodel.h
//   splitThinking / splitToolCall: containers holding Text, Think and ToolCall leaves, shown before the
//   value): their text kept, a tool call as `[tool: name]`, the thinking (collapsed in the app) left
//   out. "ToolResponse: " items, a tool's output the app does not show (ChatItem::content), left out.
// - Title: the user's rename, else the name GPT4All gave it (Chat::name), else the first prompt.
// - Times: the chat's creation time (seconds); items carry none, and the file none of its last change.
// - Id: the chat's id (a UUID, also in the file's name), the same whatever version wrote the file.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { promptTitle } from "../agent-sessions.js";
import { isObject, isoFromTime, titleFrom } from "../json-values.js";
import { joinPieces, toolPlaceholder } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";
import { CHAT_KEY, ChatFileError, type ChatFile, type ChatItem } from "./chat-file.js";

/** The name GPT4All gives a chat until it names it from the first exchange. */
const NEW_CHAT = "New Chat";

export function gpt4allConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  const chat = isObject(record) ? record[CHAT_KEY] : undefined;
  if (!isObject(chat)) throw notAConversation(context);
  if (typeof chat.unreadable === "string") throw new ChatFileError(chat.unreadable);
  const file = chat as unknown as ChatFile;
  const messages = file.items.flatMap((item, index) => toMessage(item, index));
  if (messages.length === 0) {
    context.skip("chats without any message text (a new chat never written in)");
    return undefined;
  }
  const named = [file.userName, file.name].find((name) => name.trim() !== "" && name !== NEW_CHAT);
  return {
    complete: true, // the file holds the chat as it stands
    conversation: {
      id: `gpt4all-${file.id || context.path.replace(/^.*\//, "").replace(/\.chat$/i, "")}`,
      title: titleFrom(named ?? promptTitle(messages)),
      createdAt: isoFromTime(file.created * 1000) ?? context.fallbackDate.toISOString(),
      messages,
    },
  };
}

function toMessage(item: ChatItem, index: number): UploadMessage[] {
  const id = `item-${index}`;
  if (item.name === "Prompt: ") return item.value.trim() === "" ? [] : [{ id, role: "human", content: item.value }];
  if (item.name !== "Response: ") return []; // a tool's output, or a system message (never saved)
  const content = joinPieces([...item.subItems.flatMap(shownPieces), item.value]);
  return content === "" ? [] : [{ id, role: "assistant", content }];
}

/** What the app shows of an answer's step: text, a tool call by its name; not the thinking nor a tool's output. */
function shownPieces(item: ChatItem): string[] {
  switch (item.name) {
    case "Text: ":
      return [item.value];
    case "ToolCall: ":
      return [toolPlaceholder(item.tool)];
    case "Response: ":
      return [...item.subItems.flatMap(shownPieces), item.value];
    default:
      return []; // "Think: ", "ToolResponse: "
  }
}
