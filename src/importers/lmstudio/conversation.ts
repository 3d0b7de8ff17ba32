// One LM Studio conversation file to the upload shape. What each rule is based on: conversation files
// of LM Studio 0.3 as read by public tools (YorkieDev/lm-studio-conversation-converter's script.js, the
// hstry and lmsconv2bin readers, AIStorage's fixtures "shaped like LM Studio's own files"):
// `{ name, createdAt (ms), tokenCount, systemPrompt, lastUsedModel, messages: [{ versions, currentlySelected }] }`.
// - The branch the user last saw: each message keeps its regenerations and edits as `versions`, and
//   `currentlySelected` is the one shown; only that one is kept.
// - A version is `singleStep` (`content`: parts) or `multiStep` (`steps`: content blocks, tool status
//   and debug blocks). Text parts are kept; a block styled `thinking` (or opened by `<think>`, or on the
//   `analysis` channel) is the model's reasoning, collapsed in the app, and is not; a tool call becomes
//   `[tool: name]`, its result is left out (the model read it); debug blocks are left out.
// - Files: `{ type: "file", fileType: "image" }` becomes `[image]`, other files `[file: name]`.
// - System prompt: the chat's own (`perChatPredictionConfig`'s `llm.prediction.systemPrompt`, else
//   `systemPrompt`) is the first message, `[system prompt]` (placeholders.ts); system messages in the
//   list are that prompt too and are not repeated.
// - Times: messages carry none; the conversation's `createdAt`, and the last of `userLastMessagedAt` /
//   `assistantLastMessagedAt` as its update. Title: `name` (LM Studio names a chat itself; none: "Untitled").
// - Id: the file's name, `<created ms>.conversation.json`, which LM Studio never changes.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { filePlaceholder, joinPieces, withSystemPrompt, toolPlaceholder } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

const FILE_NAME = /^(\d+)\.conversation\.json$/i;

export function lmStudioConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const said = arrayOf(record.messages)
    .map((message, index) => toMessage(message, index))
    .filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const createdAt = isoFromTime(record.createdAt) ?? context.fallbackDate.toISOString();
  const updatedAt = [isoFromTime(record.userLastMessagedAt), isoFromTime(record.assistantLastMessagedAt)]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  return {
    complete: true, // the file holds the chat as it stands
    conversation: {
      id: conversationId(record, context, said),
      title: titleFrom(record.name),
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages: withSystemPrompt(systemPromptOf(record), said, createdAt),
    },
  };
}

/** The version of a message the user last saw, to a message; undefined when it shows no text. */
function toMessage(message: unknown, index: number): UploadMessage | undefined {
  if (!isObject(message)) return undefined;
  const versions = arrayOf(message.versions).filter(isObject);
  const selected = typeof message.currentlySelected === "number" ? versions[message.currentlySelected] : undefined;
  const version = selected ?? versions.at(-1) ?? message; // a message without versions is its own
  const role = stringOf(version.role);
  if (role !== "user" && role !== "assistant") return undefined; // system (the prompt above) and tool results
  const steps = arrayOf(version.steps); // a multiStep answer's; a singleStep message has its `content`
  const content = joinPieces(steps.length > 0 ? steps.flatMap(stepPieces) : partPieces(version.content));
  if (content === "") return undefined;
  return { id: `message-${index + 1}`, role: role === "user" ? "human" : "assistant", content };
}

/** What a step of an answer shows: a content block's parts, unless it is the model's reasoning. */
function stepPieces(step: unknown): string[] {
  if (!isObject(step) || step.type !== "contentBlock" || isReasoning(step)) return [];
  return partPieces(step.content);
}

function isReasoning(block: JsonObject): boolean {
  const prefix = stringOf(block.prefix) ?? "";
  return (isObject(block.style) && block.style.type === "thinking") || prefix.includes("<think>") || prefix.includes("<|channel|>analysis");
}

function partPieces(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return arrayOf(content)
    .map((part) => (isObject(part) ? partText(part) : stringOf(part)))
    .filter((piece): piece is string => piece !== undefined);
}

function partText(part: JsonObject): string | undefined {
  switch (part.type) {
    case "text":
      return stringOf(part.text);
    case "file":
      return part.fileType === "image" ? "[image]" : filePlaceholder(part.name ?? part.fileIdentifier ?? part.identifier);
    case "toolCallRequest": {
      const request = isObject(part.toolCallRequest) ? part.toolCallRequest : part;
      return toolPlaceholder(request.name);
    }
    default:
      return undefined; // toolCallResult: what the tool returned, read by the model
  }
}

/** The chat's own system prompt: the per-chat setting when it holds one, else the older `systemPrompt`. */
function systemPromptOf(record: JsonObject): string | undefined {
  const config = isObject(record.perChatPredictionConfig) ? record.perChatPredictionConfig : {};
  const field = arrayOf(config.fields).find((entry) => isObject(entry) && entry.key === "llm.prediction.systemPrompt");
  return nonEmptyString(isObject(field) ? field.value : undefined) ?? nonEmptyString(record.systemPrompt);
}

function conversationId(record: JsonObject, context: RecordContext, messages: UploadMessage[]): string {
  const created = FILE_NAME.exec(context.path.split("/").at(-1) ?? "")?.[1];
  if (created !== undefined) return `lmstudio-${created}`;
  return derivedId("lmstudio", [record.createdAt ?? null, record.name ?? null, messages[0]?.content ?? null]);
}
