// One NextChat session to the upload shape. What each rule is based on: NextChat's own code
// (ChatGPTNextWeb/NextChat app/store/chat.ts `ChatSession`, `ChatMessage`, `onUserInput`; app/store/mask.ts
// `Mask`; app/client/api.ts `MultimodalContent`):
// `{ id, topic, memoryPrompt, messages: [{ id, date, role, content, tools?, isError?, isMcpResponse? }], lastUpdate (ms), mask }`.
// - Branch: NextChat has none; an edit or a retry replaces the message in place, so the list is what was seen.
// - Content: a string, or parts (`text`, `image_url`): an image becomes `[image]`.
// - System prompt: the mask's context (the preset chat a user made, "masks") holds its system messages;
//   a built-in mask's is the app's, not the user's, and is left out. `memoryPrompt` is the app's own
//   summary of the chat, not said by anyone, and is left out.
// - Tools: an assistant message's `tools` become `[tool: name]`; a user message marked `isMcpResponse`
//   is what an MCP tool returned (sent by the app as the user) and is left out; so are error replies.
// - Times: messages' `date` is `toLocaleString()` of the browser (no time zone, in any locale), so it is
//   not read; the session's `lastUpdate` is its time. Id: the session's `id`, which NextChat never changes.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { joinPieces, withSystemPrompt, toolPlaceholder } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

export function nextChatSession(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const said = arrayOf(record.messages)
    .map((message, index) => toMessage(message, index))
    .filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const createdAt = isoFromTime(record.lastUpdate) ?? context.fallbackDate.toISOString();
  return {
    complete: true, // the backup holds the chat as it stands
    conversation: {
      id: sessionId(record, said),
      title: titleFrom(record.topic),
      createdAt,
      messages: withSystemPrompt(systemPromptOf(record), said, createdAt),
    },
  };
}

function toMessage(message: unknown, index: number): UploadMessage | undefined {
  if (!isObject(message) || message.isError === true || message.isMcpResponse === true) return undefined;
  const role = stringOf(message.role);
  if (role !== "user" && role !== "assistant") return undefined; // system: the app's own instructions
  const tools = arrayOf(message.tools).map((tool) =>
    isObject(tool) && isObject(tool.function) ? toolPlaceholder(tool.function.name) : undefined,
  );
  const content = joinPieces([...contentPieces(message.content), ...tools]);
  if (content === "") return undefined;
  const id = nonEmptyString(message.id) ?? `message-${index + 1}`;
  return { id, role: role === "user" ? "human" : "assistant", content };
}

function contentPieces(content: unknown): (string | undefined)[] {
  if (typeof content === "string") return [content];
  return arrayOf(content).map((part) => {
    if (!isObject(part)) return undefined;
    return part.type === "image_url" ? "[image]" : stringOf(part.text);
  });
}

/** The system messages of the mask the user chose or made for the chat; none from a built-in mask. */
function systemPromptOf(record: JsonObject): string | undefined {
  const mask = isObject(record.mask) ? record.mask : {};
  if (mask.builtin === true) return undefined;
  const prompts = arrayOf(mask.context)
    .filter((message): message is JsonObject => isObject(message) && message.role === "system")
    .flatMap((message) => contentPieces(message.content));
  return nonEmptyString(joinPieces(prompts));
}

function sessionId(record: JsonObject, messages: UploadMessage[]): string {
  const id = nonEmptyString(record.id);
  return id === undefined ? derivedId("nextchat", [record.topic ?? null, messages[0]?.content ?? null]) : `nextchat-${id}`;
}
