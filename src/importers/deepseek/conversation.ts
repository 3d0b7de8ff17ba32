// DeepSeek: one conversation to the upload shape, from either of the two files people have of it.
// What each rule is based on:
// - The data export (Settings → Data → Export all chats) is a zip whose conversations.json is a list
//   of `{ id, title, inserted_at, updated_at, mapping }` (ISO 8601 times with an offset). `mapping`
//   holds a `root` node without a message and the messages as nodes `{ id, parent, children,
//   message }`; a message is `{ files, model, inserted_at, fragments: [{ type, content }] }`, the
//   type REQUEST for the user's words, RESPONSE for the answer, THINK for the model's reasoning,
//   SEARCH for a web search (DavidShiang/DeepSeek2md's main.py, andrmkrff/deepseek-chat-export).
// - The chat JSON the web app loads (GET /api/v0/chat/history_messages, saved from the browser or
//   by exporter scripts such as greasyfork's "DeepSeek Conversation Exporter Plus") is `{ code, msg,
//   data: { biz_data: { chat_session, chat_messages } } }`: `chat_session` has `id`, `title`,
//   `current_message_id`, times in Unix seconds; each of `chat_messages` has `message_id`,
//   `parent_id`, `role` (USER / ASSISTANT), `inserted_at` and `files`, and its text either as
//   `fragments` (typed as above) or, in the older flat layout, as `content` beside `thinking_content`.
// - A regenerated answer or an edited prompt is a sibling (another node of the same parent). The
//   branch kept ends at the message the app names (`current_message_id`), else at the newest
//   message nothing answers.
// - Reasoning (THINK fragments, `thinking_content`) is left out: it is the model thinking aloud
//   before its answer, shown folded, as ChatGPT's and Claude's are; so are web searches and their
//   results. `[citation:N]` markers, which point into those results, are left out of the answer.
// - `files` the user attached are `[file: name]`.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { branchTo, compareTimes, newestBranch, type Linked } from "../branch.js";
import { exportedConversation } from "../exported-conversation.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, type JsonObject } from "../json-values.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

interface Node extends Linked {
  raw: JsonObject;
  time: string | undefined;
}

/** A conversation as both files hold it: its fields, its messages as nodes, the message the app names as current. */
interface Chat {
  session: JsonObject;
  nodes: Node[];
  current: string | undefined;
}

export function deepSeekConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const { session, nodes, current } = chatOf(record);
  const leaf = nodes.find((node) => node.id === current);
  const branch = leaf === undefined ? newestBranch(nodes, (a, b) => compareTimes(a.time, b.time)) : branchTo(nodes, leaf);
  const found = {
    id: idOf(session.id),
    title: session.title,
    createdAt: isoFromTime(session.inserted_at),
    updatedAt: isoFromTime(session.updated_at),
    messages: branch.flatMap((node) => toMessage(node) ?? []),
  };
  return exportedConversation("deepseek", found, context);
}

/** The chat of either file: the export's record, or the web app's response at any depth of its envelope. */
function chatOf(record: JsonObject): Chat {
  if (isObject(record.mapping)) {
    const nodes = Object.entries(record.mapping).flatMap(([key, value]) => {
      if (!isObject(value) || !isObject(value.message)) return [];
      const message = value.message;
      return [{ id: idOf(value.id) ?? key, parent: idOf(value.parent), raw: message, time: isoFromTime(message.inserted_at) }];
    });
    return { session: record, nodes, current: idOf(record.current_message_id) ?? idOf(record.current_node) };
  }
  const data = isObject(record.data) ? record.data : record;
  const biz = isObject(data.biz_data) ? data.biz_data : data;
  const session = isObject(biz.chat_session) ? biz.chat_session : {};
  const nodes = arrayOf(biz.chat_messages)
    .filter(isObject)
    .map((raw, i) => ({ id: idOf(raw.message_id) ?? `${i + 1}`, parent: idOf(raw.parent_id), raw, time: isoFromTime(raw.inserted_at) }));
  return { session, nodes, current: idOf(session.current_message_id) };
}

/** An id as either file writes it: a string, or a number (the web app's message ids). */
function idOf(value: unknown): string | undefined {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : nonEmptyString(value);
}

function toMessage({ id, raw, time }: Node): UploadMessage | undefined {
  const fragments = arrayOf(raw.fragments).filter(isObject);
  const role = roleOf(raw, fragments);
  const said =
    fragments.length > 0 ? fragments.filter(isSaid).map((fragment) => stringOf(fragment.content) ?? "") : [stringOf(raw.content) ?? ""];
  const text = said.join("\n\n");
  const body = (role === "assistant" ? text.replace(CITATION, "") : text).trim();
  const content = [body, ...filePlaceholders(raw)].filter((piece) => piece !== "").join("\n\n");
  if (content === "") return undefined;
  return { id, role, content, ...(time === undefined ? {} : { createdAt: time }) };
}

/** A marker pointing into the web search's results: `[citation:3]`. */
const CITATION = /[ \t]*\[citation:\d+\]/g;

/** The fragments that are what someone said: the user's request, the answer; not reasoning, searches or tips. */
function isSaid(fragment: JsonObject): boolean {
  const type = stringOf(fragment.type)?.toUpperCase();
  return type === "REQUEST" || type === "RESPONSE";
}

function roleOf(raw: JsonObject, fragments: JsonObject[]): UploadMessage["role"] {
  const role = stringOf(raw.role)?.toUpperCase();
  if (role === "USER") return "human";
  if (role === "ASSISTANT") return "assistant";
  return fragments.some((fragment) => stringOf(fragment.type)?.toUpperCase() === "REQUEST") ? "human" : "assistant";
}

function filePlaceholders(raw: JsonObject): string[] {
  return arrayOf(raw.files)
    .filter(isObject)
    .map((file) => {
      const name = nonEmptyString(file.file_name) ?? nonEmptyString(file.name);
      return name === undefined ? "[file]" : `[file: ${name}]`;
    });
}
