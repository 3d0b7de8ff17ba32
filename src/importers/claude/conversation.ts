// Claude export: one conversation record (an element of conversations.json) to the upload shape.
import { createHash } from "node:crypto";
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { arrayOf, earliestIso, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { cutText } from "../../text/cut-text.js";
import { answerText } from "./markup.js";
import { uniqueIds } from "../message-ids.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/**
 * How much of an attachment's extracted text is kept under its placeholder. Claude's web app turns
 * a long paste (a hundred lines or so) into an attachment, so this is often the user's own words,
 * the substance of the question: kept whole up to ~5,000 tokens, where a document's text (a PDF's)
 * is cut so that one file does not fill the conversation's 100,000 tokens.
 */
export const ATTACHMENT_TEXT_CHARS = 20_000;

/**
 * The parent of a conversation's first messages in real exports (claude.ai sends it as the first
 * prompt's parent). An edited or retried first prompt is another child of it: one tree, not two.
 */
const ROOT_PARENT = "00000000-0000-4000-8000-000000000000";
/** What the top-level `text` holds for a block it cannot show; never message text. */
const UNSUPPORTED_BLOCK = /(?:```\s*)?This block is not supported on your current device yet\.?(?:\s*```)?/g;

interface TimedMessage {
  message: UploadMessage;
  /** Sort key: the message's time, or the previous message's when it has none. */
  sortKey: string;
}

/**
 * Converts one Claude conversation. Text comes from the `text` blocks of `content[]` (the
 * top-level `text` may be a placeholder); thinking, tool and unknown blocks are left out.
 * Messages are ordered by `created_at` (stable). Returns undefined when no message remains.
 */
export function claudeConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const conversationId = nonEmptyString(record.uuid) ?? derivedId(record);
  const messages = uniqueIds(ordered(activeBranch(arrayOf(record.chat_messages), record.current_leaf_message_uuid), conversationId));
  if (messages.length === 0) {
    context.skip("conversations without any message text");
    return undefined;
  }
  const createdAt =
    isoFromTime(record.created_at) ?? earliestIso(messages.map((message) => message.createdAt)) ?? context.fallbackDate.toISOString();
  const updatedAt = isoFromTime(record.updated_at);
  return {
    complete: true, // an export holds the whole conversation as it stands
    conversation: {
      id: conversationId,
      title: titleFrom(record.name),
      createdAt,
      ...(updatedAt === undefined ? {} : { updatedAt }),
      messages,
    },
  };
}

/**
 * The messages on the conversation's current branch. Where messages link to their parent
 * (`parent_message_uuid`), a prompt the user edited or an answer regenerated leaves its old
 * branch in `chat_messages` too, at any depth, the first prompt included; the current one runs
 * from `current_leaf_message_uuid` (API-style exports; the bulk export has none), else from the
 * newest message nothing answers, back to the root. A message without the field (written before
 * messages named their parent) follows the one before it in time. Without links, every message is kept.
 */
function activeBranch(chatMessages: unknown[], currentLeaf: unknown): unknown[] {
  const byId = new Map<string, JsonObject>();
  for (const raw of chatMessages) if (isObject(raw) && typeof raw.uuid === "string") byId.set(raw.uuid, raw);
  const previous = previousInExport(chatMessages);
  const fieldSince = earliestIso(
    [...byId.values()].filter((message) => "parent_message_uuid" in message).map((m) => isoFromTime(m.created_at)),
  );
  const parentOf = (message: JsonObject) => {
    // Written before messages named their parent (no such field, and older than any message with
    // it): it follows the message before it. A later one without it is a first message.
    if (!("parent_message_uuid" in message)) return writtenBefore(message, fieldSince) ? previous.get(message) : undefined;
    const parent = stringOf(message.parent_message_uuid);
    return parent === undefined ? undefined : byId.get(parent);
  };
  const linked = [...byId.values()].filter(
    (message) => stringOf(message.parent_message_uuid) !== undefined && parentOf(message) !== undefined,
  );
  if (linked.length === 0) return chatMessages;
  const leaf = (typeof currentLeaf === "string" ? byId.get(currentLeaf) : undefined) ?? newestLeaf([...byId.values()], parentOf);
  if (leaf === undefined) return chatMessages;
  const treeOf = treesOf([...byId.values()], parentOf);
  const branch = new Set<JsonObject>();
  // A cycle in a damaged export ends the walk.
  for (let at: JsonObject | undefined = leaf; at !== undefined && !branch.has(at); at = parentOf(at)) branch.add(at);
  // A message whose parent is missing from the export (and is not the root) starts a tree of its
  // own: one cut off the current branch is kept whole rather than lost with the old branches.
  return chatMessages.filter((raw) => isObject(raw) && (branch.has(raw) || treeOf.get(raw) !== treeOf.get(leaf)));
}

function writtenBefore(message: JsonObject, since: string | undefined): boolean {
  const time = isoFromTime(message.created_at);
  return since === undefined || time === undefined || time < since;
}

/**
 * Each message's predecessor: by `created_at` when every message has one (the export's order is
 * not always the conversation's), else in the export's order.
 */
function previousInExport(chatMessages: unknown[]): Map<JsonObject, JsonObject> {
  const messages = chatMessages.filter((raw): raw is JsonObject => isObject(raw) && typeof raw.uuid === "string");
  const times = new Map(messages.map((message) => [message, isoFromTime(message.created_at)]));
  if ([...times.values()].every((time) => time !== undefined)) {
    messages.sort((a, b) => compareStrings(times.get(a) ?? "", times.get(b) ?? ""));
  }
  const previous = new Map<JsonObject, JsonObject>();
  messages.forEach((message, i) => {
    const before = messages[i - 1];
    if (before !== undefined) previous.set(message, before);
  });
  return previous;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Each message's tree: "root" for those that lead up to the conversation's root (a first message's
 * parent is the nil-like ROOT_PARENT, or none), else the missing parent its top message names (on a
 * cycle, the message where it closes).
 */
function treesOf(messages: JsonObject[], parentOf: (message: JsonObject) => JsonObject | undefined): Map<JsonObject, unknown> {
  const trees = new Map<JsonObject, unknown>();
  for (const message of messages) {
    const path = new Set<JsonObject>();
    let at: JsonObject | undefined = message;
    while (at !== undefined && !trees.has(at) && !path.has(at)) {
      path.add(at);
      at = parentOf(at);
    }
    const top = [...path].at(-1)!;
    const tree = at !== undefined ? (trees.get(at) ?? at) : isRootParent(top.parent_message_uuid) ? "root" : top.parent_message_uuid;
    for (const step of path) trees.set(step, tree);
  }
  return trees;
}

function isRootParent(parent: unknown): boolean {
  return parent === undefined || parent === null || parent === "" || parent === ROOT_PARENT;
}

/** The newest message nothing answers (by `created_at`, then `updated_at`; on a tie, the later in the export). */
function newestLeaf(messages: JsonObject[], parentOf: (message: JsonObject) => JsonObject | undefined): JsonObject | undefined {
  const parents = new Set(messages.map(parentOf));
  const leaves = messages.filter((message) => !parents.has(message));
  const time = (message: JsonObject) => `${isoFromTime(message.created_at) ?? ""}|${isoFromTime(message.updated_at) ?? ""}`;
  return leaves.reduce<JsonObject | undefined>(
    (newest, message) => (newest === undefined || time(message) >= time(newest) ? message : newest),
    undefined,
  );
}

function ordered(chatMessages: unknown[], conversationId: string): UploadMessage[] {
  const timed: TimedMessage[] = [];
  let previousKey = "";
  chatMessages.forEach((raw, index) => {
    const message = isObject(raw) ? toMessage(raw, `${conversationId}-${index}`) : undefined;
    if (message === undefined) return;
    previousKey = message.createdAt ?? previousKey;
    timed.push({ message, sortKey: previousKey });
  });
  // Array.prototype.sort is stable: messages with equal times keep their export order.
  timed.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  return timed.map((entry) => entry.message);
}

function toMessage(raw: JsonObject, fallbackId: string): UploadMessage | undefined {
  const role = roleOf(raw.sender);
  if (role === undefined) return undefined;
  // Older exports have only `text` (or an empty `content`). Beside blocks, `text` is a placeholder
  // ("This block is not supported…") for the ones it cannot show, so the blocks are read first; it
  // is read too when they hold no text (a text block without its `text`), its placeholder removed.
  const blocks = Array.isArray(raw.content) ? textBlocks(raw.content) : "";
  const written = blocks.trim() !== "" ? blocks : (stringOf(raw.text) ?? "").replace(UNSUPPORTED_BLOCK, "");
  const body = role === "assistant" ? answerText(written) : written;
  const text = [body, ...attachmentPieces(raw)]
    .filter((piece) => piece.trim() !== "")
    .join("\n\n")
    .trim();
  if (text === "") return undefined;
  const createdAt = isoFromTime(raw.created_at);
  return { id: nonEmptyString(raw.uuid) ?? fallbackId, role, content: text, ...(createdAt === undefined ? {} : { createdAt }) };
}

/**
 * "human" or "assistant" in any case: claude.ai writes them lower-case, but exports passed through
 * other tools (browser exporters, scripts re-saving the JSON) write "Human" and "Assistant".
 */
function roleOf(sender: unknown): UploadMessage["role"] | undefined {
  const name = stringOf(sender)?.trim().toLowerCase();
  return name === "human" || name === "assistant" ? name : undefined;
}

/** A block's type in lower case ("Text" from a re-saved export is a text block). */
const blockType = (block: JsonObject) => stringOf(block.type)?.trim().toLowerCase();

/**
 * The text of the `text` blocks and of `voice_note` blocks (a message spoken rather than typed, as
 * its transcript), and the documents the assistant wrote with a tool (an artifact, a created file)
 * and the text their edits put in, which the user reads as part of the answer; thinking, other
 * tool_use, tool_result and unknown blocks (`token_budget`) are skipped.
 */
function textBlocks(content: unknown[]): string {
  return content
    .filter(isObject)
    .map((block) =>
      blockType(block) === "text" || blockType(block) === "voice_note"
        ? (stringOf(block.text) ?? "")
        : blockType(block) === "tool_use"
          ? (writtenDocument(block) ?? documentEdit(block) ?? "")
          : "",
    )
    .filter((text) => text.trim() !== "")
    .join("\n\n");
}

/** `[artifact: title]` or `[file: path]` and the text, for a tool_use that writes one whole. */
function writtenDocument(block: JsonObject): string | undefined {
  const input = isObject(block.input) ? block.input : {};
  const body = (stringOf(input.content) ?? stringOf(input.file_text))?.trim();
  if (!body) return undefined;
  // Older create_file calls gave {filename, content}; newer ones {path, file_text}. An artifact
  // written again whole (`command: "rewrite"`) names it by its id only, as an edit does.
  const kind = block.name === "artifacts" ? "artifact" : "file";
  const name =
    nonEmptyString(input.title) ??
    nonEmptyString(input.path) ??
    nonEmptyString(input.filename) ??
    (kind === "artifact" ? nonEmptyString(input.id) : undefined);
  return `${name === undefined ? `[${kind}]` : `[${kind}: ${name}]`}\n${body}`;
}

/**
 * `[artifact edit: id]` or `[file edit: path]` and the text it puts in, for a tool_use that changes
 * a document in place (an artifact's `update`, a file's `str_replace`): as with a ChatGPT canvas
 * edit, the new words are what a search needs; the document as it ends up is not in the export.
 */
function documentEdit(block: JsonObject): string | undefined {
  const input = isObject(block.input) ? block.input : {};
  const text = stringOf(input.new_str)?.trim();
  const isArtifact = block.name === "artifacts" && input.command === "update";
  if (!text || !(isArtifact || block.name === "str_replace")) return undefined;
  const name = isArtifact ? (nonEmptyString(input.title) ?? nonEmptyString(input.id)) : nonEmptyString(input.path);
  const kind = isArtifact ? "artifact edit" : "file edit";
  return `${name === undefined ? `[${kind}]` : `[${kind}: ${name}]`}\n${text}`;
}

/**
 * `[attachment: name]` followed by its extracted text, up to ATTACHMENT_TEXT_CHARS (pasted text
 * is often the substance of the question); `[file: name]` for
 * uploaded files, whose content is not in the export.
 */
function attachmentPieces(raw: JsonObject): string[] {
  const attachments = arrayOf(raw.attachments)
    .filter(isObject)
    .map((attachment) => {
      const name = nonEmptyString(attachment.file_name);
      const header = name === undefined ? "[attachment]" : `[attachment: ${name}]`;
      const excerpt = cutText((stringOf(attachment.extracted_content) ?? "").trim(), ATTACHMENT_TEXT_CHARS);
      return excerpt === "" ? header : `${header}\n${excerpt}`;
    });
  return [...attachments, ...uploadedFiles(raw)];
}

/**
 * `[file: name]` per uploaded file: newer exports list them in `files_v2` too, or only there; a
 * file in both (the same uuid, or the same name without one) counts once.
 */
function uploadedFiles(raw: JsonObject): string[] {
  const uuids = new Set<string>();
  const names = new Set<string>();
  const namesWithoutUuid = new Set<string>();
  const pieces: string[] = [];
  for (const file of [...arrayOf(raw.files), ...arrayOf(raw.files_v2)].filter(isObject)) {
    const name = nonEmptyString(file.file_name);
    const uuid = nonEmptyString(file.file_uuid) ?? nonEmptyString(file.uuid);
    const repeated =
      uuid !== undefined ? uuids.has(uuid) || (name !== undefined && namesWithoutUuid.has(name)) : name !== undefined && names.has(name);
    if (repeated) continue;
    if (uuid !== undefined) uuids.add(uuid);
    if (name !== undefined) names.add(name);
    if (name !== undefined && uuid === undefined) namesWithoutUuid.add(name);
    pieces.push(name === undefined ? "[file]" : `[file: ${name}]`);
  }
  return pieces;
}

/**
 * A stable id for a conversation without a uuid, from what it holds: its position in the file would
 * give two files' conversations one id, and a folder of two exports would keep only one of them.
 */
function derivedId(record: JsonObject): string {
  const first = arrayOf(record.chat_messages).find(isObject);
  const seed = JSON.stringify([record.name ?? null, record.created_at ?? null, first?.uuid ?? null, first?.text ?? null]);
  return `claude-${createHash("sha256").update(seed).digest("hex").slice(0, 32)}`;
}
