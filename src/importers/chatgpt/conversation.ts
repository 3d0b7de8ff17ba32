// ChatGPT export: one conversation record (an element of conversations.json) to the upload shape.
// An assistant's answer is its text on the final channel (or none): ChatGPT shows commentary-channel
// text (GPT-5's preambles before a tool call) in the folded thinking panel, and code sent to "all" is a
// tool call it never shows; public converters and parsers of real exports leave both out of the answer.
// A turn the user stopped before its final answer has no final-channel text: its preambles, shown to
// the user while it ran, are then its only words and are kept (its reasoning never is).
import { createHash } from "node:crypto";
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { arrayOf, earliestIso, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { cutText } from "../../text/cut-text.js";
import { uniqueIds } from "../message-ids.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** Content types that are never shown as conversation text (reasoning, memory/context). */
const SKIPPED_CONTENT_TYPES = new Set(["thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"]);

/** The tools that run the code the assistant writes (code interpreter, "advanced data analysis"). */
const CODE_TOOLS = new Set(["python", "python_user_visible"]);
/** How much of a code cell's output is kept: a printed data frame can run to megabytes. */
const OUTPUT_CHARS = 2_000;

/** Placeholders for non-text parts of a multimodal message. */
const PART_PLACEHOLDERS: Record<string, string> = {
  image_asset_pointer: "[image]",
  audio_asset_pointer: "[audio]",
  real_time_user_audio_video_asset_pointer: "[audio]",
  video_container_asset_pointer: "[video]",
};

/**
 * Converts one ChatGPT conversation. Only the branch ending at `current_node` is kept, so
 * regenerated/abandoned answers are left out. `reports`: its deep-research reports that the export
 * keeps apart (library.ts), placed at their time. Returns undefined when nothing importable remains.
 */
export function chatgptConversation(
  record: unknown,
  context: RecordContext,
  reports: UploadMessage[] = [],
): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const mapping = isObject(record.mapping) ? record.mapping : {};
  const canvas: Canvas = {};
  const branch = currentBranch(mapping, stringOf(record.current_node));
  const unanswered = unansweredTurns(branch);
  const messages = uniqueIds(
    withReports(
      branch
        .map((node) => toMessage(node, canvas, unanswered.has(node)))
        .filter((message): message is UploadMessage => message !== undefined),
      reports,
    ),
  );
  if (messages.length === 0) {
    context.skip("conversations without any message text (an empty New chat)");
    return undefined;
  }
  const createdAt =
    isoFromTime(record.create_time) ?? earliestIso(messages.map((message) => message.createdAt)) ?? context.fallbackDate.toISOString();
  const updatedAt = isoFromTime(record.update_time);
  return {
    complete: true, // an export holds the whole conversation as it stands
    conversation: {
      id: conversationIdOf(record) ?? derivedId(record, messages),
      title: titleFrom(record.title),
      createdAt,
      ...(updatedAt === undefined ? {} : { updatedAt }),
      messages,
    },
  };
}

/** The id ChatGPT gives a conversation record, when it gives one. */
export function conversationIdOf(record: unknown): string | undefined {
  return isObject(record) ? (nonEmptyString(record.conversation_id) ?? nonEmptyString(record.id)) : undefined;
}

/**
 * The messages with each report after the last one said before it (at the end when it has no time),
 * as the chat shows it; a report the conversation already holds (on a tool message) is not repeated.
 */
function withReports(messages: UploadMessage[], reports: UploadMessage[]): UploadMessage[] {
  const result = [...messages];
  for (const report of reports) {
    if (result.some((message) => message.content === report.content)) continue;
    const at = report.createdAt;
    const after =
      at === undefined ? result.length : result.findLastIndex((message) => message.createdAt !== undefined && message.createdAt <= at) + 1;
    result.splice(after, 0, report);
  }
  return result;
}

/** Nodes from the root down to `current_node` (or, without one, down the latest children). */
function currentBranch(mapping: JsonObject, currentNode: string | undefined): JsonObject[] {
  const leaf = currentNode !== undefined && nodeOf(mapping, currentNode) !== undefined ? currentNode : latestLeaf(mapping);
  const branch: JsonObject[] = [];
  const seen = new Set<string>();
  for (let id = leaf; id !== undefined && !seen.has(id); ) {
    seen.add(id);
    const node = nodeOf(mapping, id);
    if (node === undefined) break;
    branch.push(node);
    id = stringOf(node.parent);
  }
  return branch.reverse();
}

/** The mapping's own node of that id: an id such as `__proto__` must not reach Object.prototype. */
function nodeOf(mapping: JsonObject, id: string): JsonObject | undefined {
  const node = Object.hasOwn(mapping, id) ? mapping[id] : undefined;
  return isObject(node) ? node : undefined;
}

/** Fallback when `current_node` is missing: from the root, always follow the last (newest) child. */
function latestLeaf(mapping: JsonObject): string | undefined {
  const ids = Object.keys(mapping);
  // A damaged mapping whose parents form a cycle has no root: its messages are read from the first node.
  let id =
    ids.find((candidate) => {
      const parent = stringOf(nodeOf(mapping, candidate)?.parent);
      return parent === undefined || nodeOf(mapping, parent) === undefined;
    }) ?? ids[0];
  const seen = new Set<string>();
  while (id !== undefined && !seen.has(id)) {
    seen.add(id);
    const node = nodeOf(mapping, id);
    const children = node !== undefined ? arrayOf(node.children).filter((child) => typeof child === "string") : [];
    const next = children.at(-1);
    if (next === undefined || nodeOf(mapping, next) === undefined || seen.has(next)) return id;
    id = next;
  }
  return id;
}

/** The canvas document being written on the branch so far, so an edit can say which one it changes. */
interface Canvas {
  name?: string | undefined;
}

/**
 * The nodes of the turns (a user's message and what follows it) in which the assistant wrote no
 * answer to the user: a turn stopped while it was thinking or calling tools.
 */
function unansweredTurns(branch: JsonObject[]): Set<JsonObject> {
  const unanswered = new Set<JsonObject>();
  let turn: JsonObject[] = [];
  const close = () => {
    if (!turn.some(isAnswerNode)) for (const node of turn) unanswered.add(node);
    turn = [];
  };
  for (const node of branch) {
    if (isObject(node.message) && roleOf(node.message) === "human") close();
    turn.push(node);
  }
  close();
  return unanswered;
}

/** A node holding answer text of the assistant to the user, or a deep-research report (the answer a tool wrote). */
function isAnswerNode(node: JsonObject): boolean {
  const message = node.message;
  if (!isObject(message) || isHidden(message)) return false;
  if (roleOf(message) === "tool") return researchReport(message) !== undefined;
  if (roleOf(message) !== "assistant" || !toAll(message)) return false;
  const content = isObject(message.content) ? message.content : {};
  return isAnswer(message, content) && contentText(content, "assistant").trim() !== "";
}

function toAll(message: JsonObject): boolean {
  const recipient = stringOf(message.recipient);
  return recipient === undefined || recipient === "all";
}

/** `unanswered`: the node is of a turn without an answer, whose preambles are then what the user read. */
function toMessage(node: JsonObject, canvas: Canvas, unanswered: boolean): UploadMessage | undefined {
  const message = node.message;
  if (!isObject(message) || isHidden(message)) return undefined;
  const text = visibleText(message, canvas, unanswered)?.trim();
  const id = nonEmptyString(message.id) ?? nonEmptyString(node.id);
  if (!text || id === undefined) return undefined;
  const createdAt = isoFromTime(message.create_time);
  return {
    id,
    role: roleOf(message) === "human" ? "human" : "assistant",
    content: text,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

/**
 * What the user sees of a message, as text: their own messages; the assistant's answers; and what
 * the assistant did through a tool that the user reads as part of the answer: a canvas document
 * and its edits, a code cell and its output, a deep-research report. Other tool calls and results
 * (searches, browsing, memory writes) and system messages are not the conversation.
 */
function visibleText(message: JsonObject, canvas: Canvas, unanswered: boolean): string | undefined {
  const role = roleOf(message);
  const content = isObject(message.content) ? message.content : {};
  if (role === "tool") return toolResult(message, content);
  if (role === undefined) return undefined;
  const recipient = stringOf(message.recipient);
  if (role === "assistant" && recipient !== undefined && recipient !== "all") {
    if (recipient === "canmore.create_textdoc") return canvasDocument(content, canvas);
    if (recipient === "canmore.update_textdoc") return canvasEdit(content, canvas);
    if (CODE_TOOLS.has(recipient)) return isReasoningStep(message, recipient) ? undefined : codeCell(content);
    return undefined;
  }
  if (role === "assistant" && !isAnswer(message, content) && !(unanswered && isPreamble(message, content))) return undefined;
  const text = [contentText(content, role), ...attachmentPlaceholders(message)].filter((piece) => piece !== "").join("\n");
  return role === "human" ? withQuotedReply(message, text) : text;
}

/**
 * A reply to a passage the user selected in an answer ("Reply" on a selection): the chat shows the
 * passage, `metadata.targeted_reply`, quoted above the user's words, which often only make sense
 * with it ("not products. services").
 */
function withQuotedReply(message: JsonObject, text: string): string {
  const quoted = isObject(message.metadata) ? stringOf(message.metadata.targeted_reply)?.trim() : undefined;
  if (!quoted || text === "") return text;
  return `${quoted.replace(/^/gm, "> ")}\n\n${text}`;
}

/**
 * Whether an assistant message to the user is part of its answer: not the analysis channel (its
 * reasoning), not the commentary channel nor a message flagged as a thinking preamble (what it says
 * it is about to do, shown folded away with the reasoning), not code (a tool call without its tool).
 */
function isAnswer(message: JsonObject, content: JsonObject): boolean {
  if (message.channel === "analysis" || message.channel === "commentary") return false;
  if (isObject(message.metadata) && message.metadata.is_thinking_preamble_message === true) return false;
  return content.content_type !== "code";
}

/** Text the assistant wrote to the user while it worked (commentary channel, a thinking preamble): not its reasoning, not code. */
function isPreamble(message: JsonObject, content: JsonObject): boolean {
  const flagged = isObject(message.metadata) && message.metadata.is_thinking_preamble_message === true;
  return (message.channel === "commentary" || flagged) && content.content_type !== "code";
}

function roleOf(message: JsonObject): UploadMessage["role"] | "tool" | undefined {
  const author = isObject(message.author) ? stringOf(message.author.role) : undefined;
  if (author === "user") return "human";
  if (author === "assistant") return "assistant";
  if (author === "tool") return "tool";
  return undefined; // system messages are not part of the visible conversation
}

/**
 * A message the chat does not show as said: one hidden from view, or the "Continue" / "Please
 * proceed…" that ChatGPT's agent sends in the user's name when it goes on without an answer
 * (`is_auto_proceed_message`); the turn it opens still ends the one before it.
 */
function isHidden(message: JsonObject): boolean {
  const metadata = isObject(message.metadata) ? message.metadata : {};
  return metadata.is_visually_hidden_from_conversation === true || metadata.is_auto_proceed_message === true;
}

/** A JSON payload of a canvas call: in `content.text` (content type `code`), or a text message's only part (JSON text or an object). */
function canvasPayload(content: JsonObject): JsonObject | undefined {
  const first: unknown = Array.isArray(content.parts) ? content.parts[0] : undefined;
  if (stringOf(content.text) === undefined && isObject(first)) return first; // the payload as an object, not JSON text
  const raw = stringOf(content.text) ?? stringOf(first) ?? "";
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A document the assistant wrote in a canvas (`canmore.create_textdoc`): `{ name, type, content }`. */
function canvasDocument(content: JsonObject, canvas: Canvas): string | undefined {
  const document = canvasPayload(content);
  const body = stringOf(document?.content)?.trim();
  if (!document || !body) return undefined;
  canvas.name = nonEmptyString(document.name);
  return `${canvas.name === undefined ? "[document]" : `[document: ${canvas.name}]`}\n${body}`;
}

/**
 * An edit of the canvas (`canmore.update_textdoc`): regular-expression replacements, kept as the
 * text they put in. The export holds no later version of the document, and replaying Python
 * patterns here could only approximate it; the new words are what a search needs.
 */
function canvasEdit(content: JsonObject, canvas: Canvas): string | undefined {
  const replacements = arrayOf(canvasPayload(content)?.updates)
    .filter(isObject)
    .map((update) => stringOf(update.replacement)?.trim() ?? "")
    .filter((text) => text !== "");
  if (replacements.length === 0) return undefined;
  return `${canvas.name === undefined ? "[document edit]" : `[document edit: ${canvas.name}]`}\n${replacements.join("\n\n")}`;
}

/**
 * Code a thinking model (GPT-5 Thinking and later) ran while it reasoned, or that code's output:
 * GPT-5.1's exports flag both `reasoning_status: "is_reasoning"`, GPT-5's put both on the
 * commentary channel, and ChatGPT shows them folded in the thinking panel, not in the answer.
 * `python_user_visible` is the tool whose output is meant for the user (a table, a chart), so its
 * cells are kept whenever they ran.
 */
function isReasoningStep(message: JsonObject, tool: string): boolean {
  const flagged = isObject(message.metadata) && message.metadata.reasoning_status === "is_reasoning";
  return tool === "python" && (flagged || message.channel === "commentary");
}

/** Code the assistant ran (code interpreter), as a fenced block in its language. */
function codeCell(content: JsonObject): string | undefined {
  const code = stringOf(content.text)?.trim();
  if (!code) return undefined;
  const language = stringOf(content.language);
  return `\`\`\`${language && language !== "unknown" ? language : "python"}\n${code}\n\`\`\``;
}

/**
 * What a tool returned that the user reads: a code cell's output (cut to OUTPUT_CHARS), an image it
 * generated, a deep-research report. Search results, pages read and errors are left out.
 */
function toolResult(message: JsonObject, content: JsonObject): string | undefined {
  const tool = isObject(message.author) ? (stringOf(message.author.name) ?? "") : "";
  const type = stringOf(content.content_type);
  if (CODE_TOOLS.has(tool) && type === "execution_output") {
    return isReasoningStep(message, tool) ? undefined : cellOutput(stringOf(content.text) ?? "");
  }
  const report = researchReport(message);
  if (report !== undefined) return report;
  if (type === "multimodal_text" && Array.isArray(content.parts)) {
    const images = content.parts.filter((part) => isObject(part) && part.content_type === "image_asset_pointer");
    return images.length > 0 ? images.map(() => "[image]").join("\n") : undefined;
  }
  return undefined;
}

/**
 * A code cell's output, cut to OUTPUT_CHARS, as code; a chart it drew (`<<ImageDisplayed>>` in the
 * text, the image itself being a file of the export) as `[image]`.
 */
function cellOutput(raw: string): string | undefined {
  const images = raw.split(IMAGE_DISPLAYED).length - 1;
  const output = raw.replaceAll(IMAGE_DISPLAYED, "").trim();
  const pieces = [output ? `Output:\n\`\`\`\n${cutText(output, OUTPUT_CHARS)}\n\`\`\`` : "", ...Array<string>(images).fill("[image]")];
  const text = pieces.filter((piece) => piece !== "").join("\n");
  return text === "" ? undefined : text;
}

/** Where the code interpreter showed an image in a cell's output text. */
const IMAGE_DISPLAYED = "<<ImageDisplayed>>";

/** A deep-research report: markdown inside `metadata.chatgpt_sdk.widget_state`, a JSON string. */
function researchReport(message: JsonObject): string | undefined {
  const sdk = isObject(message.metadata) && isObject(message.metadata.chatgpt_sdk) ? message.metadata.chatgpt_sdk : undefined;
  const state = stringOf(sdk?.widget_state);
  if (state === undefined) return undefined;
  try {
    return reportText(JSON.parse(state));
  } catch {
    return undefined;
  }
}

/** The text of a deep-research widget's state (`{ report_message: { content: { parts } } }`) as the user reads it. */
export function reportText(state: unknown): string | undefined {
  const report = isObject(state) && isObject(state.report_message) ? state.report_message : undefined;
  const parts = report && isObject(report.content) ? arrayOf(report.content.parts) : [];
  const text = parts
    .filter((part): part is string => typeof part === "string")
    .join("\n")
    .trim();
  return text === "" ? undefined : stripMarkup(text);
}

function contentText(content: JsonObject, role: UploadMessage["role"]): string {
  const type = stringOf(content.content_type) ?? "text";
  if (SKIPPED_CONTENT_TYPES.has(type)) return "";
  const parts = Array.isArray(content.parts) ? content.parts.map(partText) : [stringOf(content.text) ?? ""];
  const text = parts.filter((part) => part.trim() !== "").join("\n");
  return role === "assistant" ? stripMarkup(text) : text;
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
 * The answer as the user reads it: citation markers removed, private-use ones
 * (`\ue200cite\ue202turn0search0\ue201`) and older `【4:0†source】` ones alike, except the words a
 * marker shows in the answer (an entity's name, a link's title); a writing block
 * (`:::writing{variant="email" subject="…"}` … `:::`) as its text, with its subject.
 */
function stripMarkup(text: string): string {
  return text
    .replace(/([ \t]*)\ue200([^\ue201\ue202]*)\ue202?([^\ue201]*)\ue201/g, (_, space: string, kind: string, payload: string) => {
      const shown = kind === "entity" ? entityName(payload) : kind === "link_title" ? payload.split("\ue202")[0]?.trim() : undefined;
      return shown ? `${space}${shown}` : "";
    })
    .replace(/[ \t]*【\d+(?::\d+)?†[^】]*】/g, "")
    .replace(WRITING_BLOCK, (_, attributes: string, body: string) => `${blockHeading(attributes, body)}${body}`)
    .replace(UNCLOSED_BLOCK, (opener: string, attributes: string, offset: number, whole: string) =>
      blockHeading(attributes, whole.slice(offset + opener.length)),
    );
}

/**
 * What a writing block's attributes show above its text: an email's subject, a document's title
 * (unless the text opens with it already, as a heading often does).
 */
function blockHeading(attributes: string, body: string): string {
  const subject = attributeOf(attributes, "subject");
  if (subject) return `Subject: ${subject}\n\n`;
  const title = attributeOf(attributes, "title");
  const firstLine = body.trimStart().split("\n", 1)[0] ?? "";
  return title && !firstLine.toLowerCase().includes(title.toLowerCase()) ? `${title}\n\n` : "";
}

function attributeOf(attributes: string, name: string): string | undefined {
  return new RegExp(`\\b${name}\\s*=\\s*["“]([^"”]*)["”]`).exec(attributes)?.[1]?.trim();
}

/**
 * A block of the answer fenced as a directive, as 2026 exports write canvas-like documents:
 * `:::writing{variant="document" id="73481"}` on a line of its own, the text, then `:::`.
 */
const WRITING_BLOCK = /^[ \t]*:::[a-z][\w-]*\{([^}\n]*)\}[ \t]*\n([\s\S]*?)\n[ \t]*:::[ \t]*$/gim;
/** The opening line of a block the answer never closed (it was cut off, or the model forgot the `:::`). */
const UNCLOSED_BLOCK = /^[ \t]*:::[a-z][\w-]*\{([^}\n]*)\}[ \t]*(?:\n|$)/gim;

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
