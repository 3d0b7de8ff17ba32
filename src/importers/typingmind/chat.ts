// One TypingMind chat to the upload shape. What each rule is based on: big-AGI's TypingMind importer
// (src/modules/trade/server/typingmind.ts: `{ data: { chats: [{ chatID, chatTitle, messages: [{ uuid, role,
// content (text or parts), createdAt, model }], createdAt, updatedAt, folderID }], folders } }`), the chunked
// layout chatgpt2typingmind writes for TypingMind to import (data.json's `chats: { chunks: [...] }` and
// chunks/chats_part_N.json, a list of chats each), and a TypingMind extension that reads the stored chats
// (tm-md-export v1.3.2: message `type`s, parts, tool calls, reasoning fields, `chatParams.systemMessage`).
// - TypingMind keeps one line of messages per chat (a fork is a chat of its own), so all of it is the
//   branch the user last saw. Several models answering one prompt (`tm_multi_responses`) are all shown,
//   side by side: each answer is kept, headed by its model when there are several.
// - Speakers: `user` the human, `assistant` the assistant. A run of assistant messages around tool calls
//   is one answer on screen, so it is one message; the files a user attaches (`type: "attachment"`) join
//   the prompt they came with. Left out: few-shot examples of an agent (`training-message`), the app's
//   context markers and summaries (`clear-context`, `tm_context_summary`), reasoning (`reasoning_content`,
//   `thinking` parts), and tool results the model read; a tool call is `[tool: name]`, and a plugin's
//   output shown to the user as markdown is kept.
// - The system prompt (a `system` message, else `chatParams.systemMessage`) is the first message,
//   `[system prompt]`, unless it is an app's default (placeholders.ts).
// - Attachments: image parts `[image]`, files `[file: name]`.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, earliestIso, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { uniqueIds } from "../message-ids.js";
import { filePlaceholder, joinPieces, withSystemPrompt, toolPlaceholder } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** Message types TypingMind stores in a chat but are not what was said. */
const NOT_SAID = new Set(["training-message", "clear-context", "tm_context_summary"]);
const IMAGE_PARTS = new Set(["image_url", "image", "tm_image_file"]);
const FILE_PARTS = new Set(["tm_text_file", "tm_blob_file", "tm_unsynced_attachment", "file", "document", "input_file"]);
const TOOL_CALL_PARTS = new Set(["tool_use", "server_tool_use", "tm_provider_tool_call"]);
/** A plugin's result TypingMind renders for the user, rather than hands to the model. */
const SHOWN_OUTPUTS = new Set(["markdown", "render_markdown"]);

export function typingMindChat(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const raw = arrayOf(record.messages).filter(isObject);
  const said = uniqueIds(joinRuns(raw.flatMap((message, index) => toMessages(message, `message-${index + 1}`))));
  if (said.length === 0) {
    context.skip("chats without any message text");
    return undefined;
  }
  const createdAt =
    isoFromTime(record.createdAt) ?? earliestIso(said.map((message) => message.createdAt)) ?? context.fallbackDate.toISOString();
  const updatedAt = isoFromTime(record.updatedAt);
  const system = raw.find((message) => message.role === "system");
  const chatParams = isObject(record.chatParams) ? record.chatParams : {};
  return {
    complete: true, // an export holds the whole chat as it stands
    conversation: {
      id:
        nonEmptyString(record.chatID) ?? nonEmptyString(record.id) ?? derivedId("typingmind", [record.chatTitle ?? null, said[0]!.content]),
      title: titleFrom(record.chatTitle ?? record.title),
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages: withSystemPrompt(partsText(system?.content) || chatParams.systemMessage, said, createdAt),
    },
  };
}

/** What a stored message shows, as messages (several models' answers are several). */
function toMessages(message: JsonObject, fallbackId: string): UploadMessage[] {
  if (NOT_SAID.has(String(message.type))) return [];
  if (message.type === "tm_multi_responses") return multiResponses(message, fallbackId);
  const content = joinPieces(piecesOf(message));
  if (content === "") return [];
  const role = message.role === "user" ? "human" : "assistant";
  const createdAt = isoFromTime(message.createdAt);
  return [
    {
      id: nonEmptyString(message.uuid) ?? nonEmptyString(message.id) ?? fallbackId,
      role,
      content,
      ...(createdAt === undefined ? {} : { createdAt }),
    },
  ];
}

function piecesOf(message: JsonObject): string[] {
  switch (message.role) {
    case "user":
      return message.type === "attachment" ? [filePlaceholder(fileName(message))] : contentPieces(message.content);
    case "assistant":
      return [...contentPieces(message.content), ...toolCalls(message)];
    case "tool":
    case "function":
      return shownOutput(message);
    default:
      return []; // system: the prompt, above
  }
}

/** Several models' answers to one prompt, each headed by its model when there are more than one. */
function multiResponses(message: JsonObject, fallbackId: string): UploadMessage[] {
  const responses = arrayOf(message.responses).filter(isObject);
  return responses.flatMap((response, n) => {
    const answers = joinRuns(
      arrayOf(response.messages)
        .filter(isObject)
        .flatMap((inner, i) => toMessages(inner, `${fallbackId}-${n + 1}-${i + 1}`)),
    );
    const model = nonEmptyString(response.model);
    return responses.length > 1 && model !== undefined
      ? answers.map((answer) => ({ ...answer, content: `${model}: ${answer.content}` }))
      : answers;
  });
}

function contentPieces(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return arrayOf(content)
    .map((part) => (isObject(part) ? partPiece(part) : stringOf(part)))
    .filter((piece): piece is string => piece !== undefined);
}

function partPiece(part: JsonObject): string | undefined {
  const type = String(part.type);
  if (type === "text" || type === "output_text") return stringOf(part.text);
  if (IMAGE_PARTS.has(type)) return "[image]";
  if (FILE_PARTS.has(type)) return filePlaceholder(fileName(part));
  if (TOOL_CALL_PARTS.has(type)) return toolPlaceholder(part.name ?? part.toolName);
  return undefined; // thinking, reasoning, tool results
}

function toolCalls(message: JsonObject): string[] {
  const calls = [...(isObject(message.function_call) ? [message.function_call] : []), ...arrayOf(message.tool_calls).filter(isObject)];
  return calls.map((call) => toolPlaceholder(isObject(call.function) ? call.function.name : call.name));
}

/** A plugin's output rendered for the user (markdown); what only the model read is left out. */
function shownOutput(message: JsonObject): string[] {
  const response = isObject(message.pluginResponse) ? message.pluginResponse : {};
  if (!SHOWN_OUTPUTS.has(String(message.format)) && !SHOWN_OUTPUTS.has(String(response.type))) return [];
  return [nonEmptyString(message.content) ?? stringOf(response.data) ?? ""];
}

function fileName(holder: JsonObject): unknown {
  const metadata = isObject(holder.metadata) ? holder.metadata : {};
  return metadata.name ?? metadata.fileName ?? holder.name ?? holder.filename;
}

/** The text parts of a message's content. */
function partsText(content: unknown): string {
  return joinPieces(
    typeof content === "string"
      ? [content]
      : arrayOf(content).map((part) => (isObject(part) && part.type === "text" ? stringOf(part.text) : undefined)),
  );
}

/** Messages of one speaker in a row, as one: an answer around tool calls, a prompt and its files. */
function joinRuns(messages: UploadMessage[]): UploadMessage[] {
  const joined: UploadMessage[] = [];
  for (const message of messages) {
    const last = joined.at(-1);
    if (last !== undefined && last.role === message.role)
      joined[joined.length - 1] = { ...last, content: `${last.content}\n\n${message.content}` };
    else joined.push(message);
  }
  return joined;
}
