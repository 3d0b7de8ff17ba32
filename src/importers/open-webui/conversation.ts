// Open WebUI: one chat (an element of the "Export chats" list, of a single chat's export, or a row of
// webui.db's `chat` table, database.ts) to the upload shape. What each rule is based on:
// - The record is the API's ChatResponse (backend/open_webui/models/chats.py): `id`, `title`,
//   `chat`, `created_at` / `updated_at` in Unix seconds, `archived`, `pinned`, `folder_id`. The
//   front end's "Export chats" (Settings → Data Controls) saves a list of them, and a chat's menu
//   (Download → Export chat (.json)) saves a list of one (src/lib/components/layout/Navbar/Menu.svelte).
//   The export's record is the table's row (get_chats_by_user_id → ChatModel), so a row is read as
//   one and a chat keeps its id from either. A `chat` that is a JSON string (a row's) is parsed,
//   one that is not JSON (or `null`, as alembic 242a2047eae0 left unparseable text) costs its chat; a
//   bare chat object (title, models, history: the chats early versions kept in the browser and
//   exported as they were) is read the same.
// - `chat.history.messages` maps ids to messages that name `parentId` and `childrenIds`; a
//   regenerated answer, another model's answer or an edited prompt is a sibling, and
//   `chat.history.currentId` is the message the chat shows last (createMessagesList in
//   src/lib/utils walks up from it): its branch is the one kept. Without it, the newest message
//   nothing answers. A chat with only `chat.messages` (older versions) is read as that list.
// - A message's `timestamp` is in Unix seconds; `role` is user, assistant or system. The chat's own
//   system prompt (a `system` message, or `params.system` set in the chat's controls) is what the
//   user wrote for the model: its first message, `[system prompt]` (placeholders.ts).
// - An answer's `content` holds Open WebUI's own blocks (the sample in LibreChat's
//   api/server/utils/import/__data__/openwebui-export.json, and the app's output parsing):
//   `<details type="reasoning">` (the model's thinking, shown folded) and `<details
//   type="tool_calls">` (a tool's call and result) are left out, as they are for ChatGPT and Claude;
//   `<details type="code_interpreter">` keeps the code it ran; a raw `<think>` block (before the app
//   parsed reasoning) is left out. An answer that failed (`error`, no content) is left out.
// - `files` on a message are what the user attached (or an image the model made): `[image]` for
//   `type: "image"`, `[file: name]` for the others.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { branchTo, compareTimes, newestBranch, type Linked } from "../branch.js";
import { exportedConversation } from "../exported-conversation.js";
import { arrayOf, isObject, isoFromTime, jsonObjectIn, nonEmptyString, stringOf, type JsonObject } from "../json-values.js";
import { firstTagBlock, replaceTagBlocks } from "../../text/tag-blocks.js";
import { THINK_BLOCK, withSystemPrompt } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import { isOpenWebUiRow, isSharedCopy, type OpenWebUiRow } from "./database.js";
import type { RecordContext } from "../types.js";

interface Node extends Linked {
  raw: JsonObject;
  time: string | undefined;
}

export function openWebUiConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (isOpenWebUiRow(record)) return rowConversation(record, context);
  if (!isObject(record)) throw notAConversation(context);
  const chat = chatOf(record);
  if (chat === undefined) {
    context.skip(DAMAGED);
    return undefined;
  }
  const prompt = systemPromptOf(chat);
  const found = {
    id: nonEmptyString(record.id) ?? nonEmptyString(chat.id),
    title: nonEmptyString(record.title) ?? chat.title,
    createdAt: isoFromTime(record.created_at) ?? isoFromTime(chat.timestamp),
    updatedAt: isoFromTime(record.updated_at),
    messages: withSystemPrompt(
      prompt.text,
      shownBranch(chat).flatMap((node) => toMessage(node) ?? []),
      prompt.createdAt,
    ),
  };
  return exportedConversation("open-webui", found, context);
}

const DAMAGED = "chats whose stored JSON is damaged (left out)";

/**
 * A row of webui.db read as the record the API makes of it, but for the rows Open WebUI's chat list
 * never shows (database.ts): share links' copies, internal chats (`meta.internal`: a note's chat, a
 * task's), and on a server of several users the others' chats.
 */
function rowConversation({ openWebUiRow: row, owner }: OpenWebUiRow, context: RecordContext): UploadConversation | undefined {
  const meta = jsonObjectIn(row.meta);
  const leftOut = isSharedCopy(row)
    ? "copies of chats their share links show (the same chats again)"
    : meta?.internal === true
      ? "internal chats (a note's or a task's, which Open WebUI's chat list leaves out)"
      : owner !== undefined && row.user_id !== owner
        ? "other users' chats (a server's database: its first admin's are imported; each user's own Export Chats file imports theirs)"
        : undefined;
  if (leftOut === undefined) return openWebUiConversation({ ...row, chat: row.chat ?? null }, context); // NULL: no chat to read
  context.skip(leftOut);
  return undefined;
}

/** The chat itself: the record's `chat` (an object, or JSON text in a database), or the record when it is one; undefined when damaged. */
function chatOf(record: JsonObject): JsonObject | undefined {
  if (isObject(record.chat)) return record.chat;
  if (typeof record.chat === "string" || record.chat === null) return jsonObjectIn(record.chat);
  return record;
}

/** The messages on the branch the chat shows: up from `history.currentId`, else from the newest leaf; else `messages` as listed. */
function shownBranch(chat: JsonObject): Node[] {
  const history = isObject(chat.history) ? chat.history : {};
  const map = isObject(history.messages) ? history.messages : {};
  const nodes = Object.entries(map).flatMap(([key, raw]) => (isObject(raw) ? [node(raw, key)] : []));
  if (nodes.length === 0) return arrayOf(chat.messages).flatMap((raw, i) => (isObject(raw) ? [node(raw, `${i}`)] : []));
  const current = nodes.find((candidate) => candidate.id === stringOf(history.currentId));
  if (current !== undefined) return branchTo(nodes, current);
  return newestBranch(nodes, (a, b) => compareTimes(a.time, b.time));
}

/** The chat's system prompt: a `system` message in its history (on any branch), else the one set in its controls. */
function systemPromptOf(chat: JsonObject): { text: unknown; createdAt?: string } {
  const history = isObject(chat.history) && isObject(chat.history.messages) ? Object.values(chat.history.messages) : arrayOf(chat.messages);
  const system = history.find((raw): raw is JsonObject => isObject(raw) && raw.role === "system");
  const params = isObject(chat.params) ? chat.params : {};
  const createdAt = isoFromTime(system?.timestamp);
  return { text: system?.content ?? params.system, ...(createdAt === undefined ? {} : { createdAt }) };
}

function node(raw: JsonObject, key: string): Node {
  return { id: nonEmptyString(raw.id) ?? key, parent: nonEmptyString(raw.parentId), raw, time: isoFromTime(raw.timestamp) };
}

function toMessage({ id, raw, time }: Node): UploadMessage | undefined {
  const role = raw.role === "user" ? "human" : raw.role === "assistant" ? "assistant" : undefined;
  if (role === undefined) return undefined;
  const written = stringOf(raw.content) ?? "";
  const body = role === "assistant" ? answerText(written) : written.trim();
  const content = [body, ...filePlaceholders(raw)].filter((piece) => piece !== "").join("\n\n");
  if (content === "") return undefined;
  return { id, role, content, ...(time === undefined ? {} : { createdAt: time }) };
}

/** The opening tag of a `<details type="…">` block Open WebUI writes into an answer, with its attributes. */
const DETAILS_TAG = /<details\s+type="([\w-]+)"[^>]*>/y;

/** An answer as the user reads it: the reasoning and tool blocks out, the code the interpreter ran kept. */
function answerText(content: string): string {
  const withoutThink = content.replace(THINK_BLOCK, ""); // as models write it, before Open WebUI folded it into a `<details>`
  return replaceTagBlocks(
    withoutThink,
    "<details",
    DETAILS_TAG,
    "</details>",
    ([, type], inside) => (type === "code_interpreter" ? `${withoutSummary(inside).trim()}\n\n` : ""),
    { spaceAfter: true },
  ).trim();
}

function withoutSummary(inside: string): string {
  const summary = firstTagBlock(inside, "<summary>", "</summary>");
  return summary === undefined ? inside : inside.slice(0, summary.at) + inside.slice(summary.end);
}

/** `[image]` or `[file: name]` for what the message carries: an attachment, an image the model made. */
function filePlaceholders(raw: JsonObject): string[] {
  return arrayOf(raw.files)
    .filter(isObject)
    .map((file) => {
      if (file.type === "image" || stringOf(file.content_type)?.startsWith("image/")) return "[image]";
      const inner = isObject(file.file) ? file.file : {};
      const meta = isObject(inner.meta) ? inner.meta : {};
      const name = nonEmptyString(file.name) ?? nonEmptyString(inner.filename) ?? nonEmptyString(meta.name);
      return name === undefined ? "[file]" : `[file: ${name}]`;
    });
}
