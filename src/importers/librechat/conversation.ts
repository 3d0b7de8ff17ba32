// LibreChat: one conversation export (a chat's Export → JSON) to the upload shape. What each rule is
// based on:
// - The file is what client/src/hooks/Conversations/useExportConversation.ts writes:
//   `conversationId`, `endpoint`, `title`, `exportAt` (a time of day only), `branches`, `recursive`,
//   `options` (the chat's settings, with "Include options") and the messages, built by
//   useBuildMessageTree.ts: without "recursive", `messages` is a flat list (with "branches", every
//   branch, depth first; else the branch on screen); with it, `messagesTree` (older versions:
//   `messages`) holds the first messages, each with its answers under `children`. Samples:
//   api/server/utils/import/__data__/librechat-export.json, librechat-tree.json,
//   librechat-opts-nonr-branches.json.
// - A message names its parent (`parentMessageId`, the root's being
//   00000000-0000-0000-0000-000000000000); a regenerated answer or an edited prompt is a sibling.
//   The export does not record which sibling was on screen; LibreChat shows the last of them by
//   default (siblingIdx 0 is the last), so the branch kept takes the last child each time.
// - `isCreatedByUser` tells the speaker (`sender` is a display name: "User", the model's label).
//   `createdAt` is ISO 8601.
// - An agent's answer is in `content` (data-provider's ContentTypes): `text` parts (a string, or
//   `{ value }` from Assistants) are the answer; `think` (reasoning), `tool_call` and `error` parts
//   are left out, as ChatGPT's and Claude's are; `image_file` / `image_url` parts are `[image]`.
//   Without `content`, the answer is `text`. A failed answer (`error: true`: LibreChat's error
//   notice) is left out, and one nothing follows is not where the branch ends: its sibling is.
// - `files` on a message are `[image]` (an image type, or a width) or `[file: filename]`.
// - `options.promptPrefix` (the instructions the user set for the chat) is its first message,
//   `[system prompt]` (placeholders.ts); `options.title` names a chat without `title`.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { lastChildBranch, withoutFailedLeaves, type Linked } from "../branch.js";
import { exportedConversation } from "../exported-conversation.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, type JsonObject } from "../json-values.js";
import { withSystemPrompt } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** The parent of a conversation's first messages (data-provider's Constants.NO_PARENT). */
const NO_PARENT = "00000000-0000-0000-0000-000000000000";

interface Node extends Linked {
  raw: JsonObject;
}

export function libreChatConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const options = isObject(record.options) ? record.options : {};
  const tree = Array.isArray(record.messagesTree) ? record.messagesTree : arrayOf(record.messages);
  const nodes = withoutFailedLeaves(nodesOf(tree, undefined), (node) => node.raw.error === true);
  const found = {
    id: nonEmptyString(record.conversationId),
    title: nonEmptyString(record.title) ?? options.title,
    createdAt: undefined, // the export's `exportAt` is a time of day only: the first message dates it
    messages: withSystemPrompt(
      options.promptPrefix,
      lastChildBranch(nodes).flatMap((node) => toMessage(node) ?? []),
    ),
  };
  return exportedConversation("librechat", found, context);
}

/**
 * Every message of the list or tree, each with its parent: a message under another's `children` is
 * its answer, whatever it says; elsewhere its `parentMessageId` (the root's nil id is no parent).
 */
function nodesOf(list: unknown[], parentInTree: string | undefined): Node[] {
  return list.filter(isObject).flatMap((raw, i) => {
    const id = nonEmptyString(raw.messageId) ?? nonEmptyString(raw._id) ?? `${parentInTree ?? "root"}-${i}`;
    const named = nonEmptyString(raw.parentMessageId);
    const parent = parentInTree ?? (named === NO_PARENT ? undefined : named);
    return [{ id, parent, raw }, ...nodesOf(arrayOf(raw.children), id)];
  });
}

function toMessage({ id, raw }: Node): UploadMessage | undefined {
  if (raw.error === true) return undefined;
  const role = raw.isCreatedByUser === true ? "human" : "assistant";
  const parts =
    Array.isArray(raw.content) && raw.content.length > 0 ? raw.content.filter(isObject).map(partText) : [stringOf(raw.text) ?? ""];
  const content = [...parts, ...filePlaceholders(raw)]
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "")
    .join("\n\n");
  if (content === "") return undefined;
  const createdAt = isoFromTime(raw.createdAt);
  return { id, role, content, ...(createdAt === undefined ? {} : { createdAt }) };
}

/** A part of an agent's answer as the user reads it: its text, `[image]` for an image; reasoning, tools and errors left out. */
function partText(part: JsonObject): string {
  if (part.type === "text") {
    const text = part.text;
    return stringOf(text) ?? (isObject(text) ? (stringOf(text.value) ?? "") : "");
  }
  return part.type === "image_file" || part.type === "image_url" ? "[image]" : "";
}

function filePlaceholders(raw: JsonObject): string[] {
  return arrayOf(raw.files)
    .filter(isObject)
    .map((file) => {
      if (stringOf(file.type)?.startsWith("image/") || typeof file.width === "number") return "[image]";
      const name = nonEmptyString(file.filename) ?? nonEmptyString(file.name);
      return name === undefined ? "[file]" : `[file: ${name}]`;
    });
}
