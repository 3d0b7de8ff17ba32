// ChatGPT export: one conversation record (an element of conversations.json) to the upload shape.
import { createHash } from "node:crypto";
import type { UploadConversation, UploadMessage } from "../schemas/chat-history.js";
import { arrayOf, earliestIso, isObject, isoFromUnixSeconds, nonEmptyString, stringOf, titleFrom, type JsonObject } from "./json-values.js";
import { notAConversation } from "./record-errors.js";
import type { PlatformInfo, RecordContext } from "./types.js";

export const CHATGPT: PlatformInfo = { platform: "chatgpt", platformDisplayName: "ChatGPT" };

/** Content types that are never shown as conversation text (reasoning, memory/context). */
const SKIPPED_CONTENT_TYPES = new Set(["thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"]);

/** Placeholders for non-text parts of a multimodal message. */
const PART_PLACEHOLDERS: Record<string, string> = {
  image_asset_pointer: "[image]",
  audio_asset_pointer: "[audio]",
  real_time_user_audio_video_asset_pointer: "[audio]",
  video_container_asset_pointer: "[video]",
};

/**
 * Converts one ChatGPT conversation. Only the branch ending at `current_node` is kept, so
 * regenerated/abandoned answers are left out. Returns undefined when nothing importable remains.
 */
export function chatgptConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const mapping = isObject(record.mapping) ? record.mapping : {};
  const messages = currentBranch(mapping, stringOf(record.current_node))
    .map(toMessage)
    .filter((message): message is UploadMessage => message !== undefined);
  if (messages.length === 0) return undefined;
  const createdAt =
    isoFromUnixSeconds(record.create_time) ??
    earliestIso(messages.map((message) => message.createdAt)) ??
    context.fallbackDate.toISOString();
  const updatedAt = isoFromUnixSeconds(record.update_time);
  return {
    ...CHATGPT,
    complete: true, // an export holds the whole conversation as it stands
    conversation: {
      id: nonEmptyString(record.conversation_id) ?? nonEmptyString(record.id) ?? derivedId(record, messages),
      title: titleFrom(record.title),
      createdAt,
      ...(updatedAt === undefined ? {} : { updatedAt }),
      messages,
    },
  };
}

/** Nodes from the root down to `current_node` (or, without one, down the latest children). */
function currentBranch(mapping: JsonObject, currentNode: string | undefined): JsonObject[] {
  const leaf = currentNode !== undefined && isObject(mapping[currentNode]) ? currentNode : latestLeaf(mapping);
  const branch: JsonObject[] = [];
  const seen = new Set<string>();
  for (let id = leaf; id !== undefined && !seen.has(id); ) {
    seen.add(id);
    const node = mapping[id];
    if (!isObject(node)) break;
    branch.push(node);
    id = stringOf(node.parent);
  }
  return branch.reverse();
}

/** Fallback when `current_node` is missing: from the root, always follow the last (newest) child. */
function latestLeaf(mapping: JsonObject): string | undefined {
  const ids = Object.keys(mapping);
  let id = ids.find((candidate) => {
    const node = mapping[candidate];
    const parent = isObject(node) ? stringOf(node.parent) : undefined;
    return parent === undefined || !isObject(mapping[parent]);
  });
  const seen = new Set<string>();
  while (id !== undefined && !seen.has(id)) {
    seen.add(id);
    const node = mapping[id];
    const children = isObject(node) ? arrayOf(node.children).filter((child) => typeof child === "string") : [];
    const next = children.at(-1);
    if (next === undefined || !isObject(mapping[next])) return id;
    id = next;
  }
  return id;
}

function toMessage(node: JsonObject): UploadMessage | undefined {
  const message = node.message;
  if (!isObject(message)) return undefined;
  const role = roleOf(message);
  if (role === undefined || isHidden(message)) return undefined;
  const document = canvasDocument(message);
  if (document === undefined && isToolCall(message, role)) return undefined;
  const content = document ?? contentText(isObject(message.content) ? message.content : {}, role);
  const text = [content, ...attachmentPlaceholders(message)]
    .filter((piece) => piece !== "")
    .join("\n")
    .trim();
  const id = nonEmptyString(message.id) ?? nonEmptyString(node.id);
  if (text === "" || id === undefined) return undefined;
  const createdAt = isoFromUnixSeconds(message.create_time);
  return { id, role, content: text, ...(createdAt === undefined ? {} : { createdAt }) };
}

function roleOf(message: JsonObject): UploadMessage["role"] | undefined {
  const author = isObject(message.author) ? stringOf(message.author.role) : undefined;
  if (author === "user") return "human";
  if (author === "assistant") return "assistant";
  return undefined; // system and tool messages are not part of the visible conversation
}

function isHidden(message: JsonObject): boolean {
  return isObject(message.metadata) && message.metadata.is_visually_hidden_from_conversation === true;
}

/**
 * A document the assistant wrote in a canvas (`canmore.create_textdoc`): the user sees it, and
 * searches for it, though the message is addressed to a tool. Its text is JSON with the document's
 * name and content. Edits (`update_textdoc`) are patterns to apply, not text: left out.
 */
function canvasDocument(message: JsonObject): string | undefined {
  if (stringOf(message.recipient) !== "canmore.create_textdoc" || !isObject(message.content)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(stringOf(message.content.text) ?? "");
  } catch {
    return undefined;
  }
  if (!isObject(document)) return undefined;
  const body = stringOf(document.content)?.trim();
  if (!body) return undefined;
  const name = nonEmptyString(document.name);
  return `${name === undefined ? "[document]" : `[document: ${name}]`}\n${body}`;
}

/** An assistant message addressed to a tool (browser, python, ...) rather than to the user. */
function isToolCall(message: JsonObject, role: UploadMessage["role"]): boolean {
  const recipient = stringOf(message.recipient);
  return role === "assistant" && recipient !== undefined && recipient !== "all";
}

function contentText(content: JsonObject, role: UploadMessage["role"]): string {
  const type = stringOf(content.content_type) ?? "text";
  if (SKIPPED_CONTENT_TYPES.has(type)) return "";
  const parts = Array.isArray(content.parts) ? content.parts.map(partText) : [stringOf(content.text) ?? ""];
  const text = parts.filter((part) => part.trim() !== "").join("\n");
  return role === "assistant" ? stripCitations(text) : text;
}

function partText(part: unknown): string {
  if (typeof part === "string") return part;
  if (!isObject(part)) return "";
  const type = stringOf(part.content_type) ?? "";
  const placeholder = PART_PLACEHOLDERS[type];
  if (placeholder !== undefined) return placeholder;
  return stringOf(part.text) ?? "[attachment]"; // e.g. audio_transcription carries the spoken text
}

/** `[file: name]` for files attached to the message; images already show as `[image]` parts. */
function attachmentPlaceholders(message: JsonObject): string[] {
  const attachments = isObject(message.metadata) ? arrayOf(message.metadata.attachments) : [];
  return attachments.filter(isObject).flatMap((attachment) => {
    const mimeType = stringOf(attachment.mime_type) ?? stringOf(attachment.mimeType) ?? "";
    if (mimeType.startsWith("image/")) return [];
    const name = nonEmptyString(attachment.name);
    return [name === undefined ? "[file]" : `[file: ${name}]`];
  });
}

/**
 * Removes citation markers, private-use `\ue200cite\ue202turn0search0\ue201` and `【4:0†source】`, but
 * keeps the name an entity marker shows in the answer: `\ue200entity\ue202["local_business","Café
 * Zarzuela",0]\ue201` reads "Café Zarzuela" in ChatGPT.
 */
function stripCitations(text: string): string {
  return text
    .replace(/([ \t]*)\ue200([^\ue201\ue202]*)\ue202?([^\ue201]*)\ue201/g, (_, space: string, kind: string, payload: string) => {
      const name = kind === "entity" ? entityName(payload) : undefined;
      return name === undefined ? "" : `${space}${name}`;
    })
    .replace(/[ \t]*【\d+(?::\d+)?†[^】]*】/g, "");
}

/** The shown name in an entity marker's payload, a JSON array such as ["people","Ada Lovelace",0]. */
function entityName(payload: string): string | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    return Array.isArray(value) && typeof value[1] === "string" && value[1].trim() !== "" ? value[1] : undefined;
  } catch {
    return undefined;
  }
}

/** A stable id for a conversation without one (never seen in real exports, but do not crash). */
function derivedId(record: JsonObject, messages: UploadMessage[]): string {
  const seed = JSON.stringify([record.title ?? null, record.create_time ?? null, messages[0]?.id ?? null]);
  return `chatgpt-${createHash("sha256").update(seed).digest("hex").slice(0, 32)}`;
}
