// Cherry Studio 2's topics (cherrystudio.sqlite, database.ts) to the upload shape. What each rule rests
// on (CherryHQ/cherry-studio, main of July–November 2026, 2.0 released August 2026):
// - src/main/data/migration/v2/migrators/ChatMigrator.ts and mappings/ChatMappings.ts (the first boot of
//   2.x copies 1.x's Dexie topics and blocks in): a topic keeps its id, a message its id (a new UUID only
//   for an id 1.x had in two topics), so an upgraded user's topics get the conversation and message ids
//   the 1.x importer (backup.ts) gave them and a new import updates them. A message without blocks (the
//   `clear` divider) was dropped there, its children hung on its parent.
// - docs/references/chat/message-tree.md, schemas/message.ts and topic.ts: messages are a tree by
//   `parent_id` under one content-less virtual root a topic (`role = 'root'`); edits, resends and the
//   answers of several models are siblings (`siblings_group_id`); `topic.active_node_id` is the leaf the
//   user has selected, and the chat shows the path from the root down to it. Only that path is kept (a
//   topic whose pointer names no message of it: the path to its latest message). Rows with `deleted_at`
//   are deleted in the app: not shown (a deleted message on the path still links its parent).
// - packages/shared/data/types/message.ts and uiParts.ts: `data` is `{ parts }`, AI SDK UIMessage parts
//   (`text`; `reasoning`; `dynamic-tool` or `tool-<name>`; `file` with `mediaType` and `filename`;
//   `source-url`; `step-start`; Cherry's `data-code`, `data-error`, `data-translation`, `data-video`,
//   `data-compact`), or during 2.0's development `{ blocks }` in 1.x's block types. Kept as backup.ts
//   keeps 1.x's blocks: text; code fenced; `[image]`, `[video]`, `[file: name]`, `[tool: name]`; left out:
//   reasoning, sources (citations), errors, translations, compaction summaries, step marks.
// - Title: the topic's name, else its first prompt's first line. Times: Unix milliseconds. The topic's
//   own prompt (while it had one), else its assistant's, is the system prompt, as in 1.x.
// - Agent sessions (`agent_session`, Claude Code and other agents run inside the app) are another model
//   (`agent_session_message`, flat, not the message tree) whose rows changed shape during 2.x (a JSON
//   envelope in `content`, packages/shared/data/types/agentMessage.ts; later a `data` column of parts
//   with turn ids): not read until the released shape is settled, counted.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { arrayOf, isObject, isoFromTime, jsonObjectIn, nonEmptyString, stringOf, titleFrom } from "../json-values.js";
import { codeBlock, filePlaceholder, joinPieces, toolPlaceholder, withSystemPrompt } from "../placeholders.js";
import type { RecordContext } from "../types.js";
import { firstLine } from "../../text/cut-text.js";
import { blockText as backupBlockText } from "./backup.js";
import type { CherryRow } from "./database.js";

interface TopicItem {
  kind: "topic";
  id: string;
  name: string | undefined;
  activeNode: string | undefined;
  createdAt: string | undefined;
  updatedAt: string | undefined;
  deleted: boolean;
  prompt: string | undefined;
  assistant: string | undefined;
  context: RecordContext;
}

interface MessageItem {
  kind: "message";
  id: string;
  topic: string;
  parent: string | undefined;
  said: UploadMessage | undefined;
}

export type DatabaseItem =
  | TopicItem
  | MessageItem
  | { kind: "assistant"; id: string; prompt: string | undefined }
  | { kind: "agent_session"; count: number; context: RecordContext };

const DAMAGED = "messages whose stored JSON is damaged (left out)";
const EMPTY = "conversations without any message text (an empty new topic)";
const DELETED = "topics deleted in Cherry Studio (kept in its database until purged)";
const AGENT_SESSIONS = "agent sessions (Claude Code and other agents run in Cherry Studio), not read";

const NO_ID = "topics and messages without an id (damaged rows, left out)";

export function databaseItem({ cherryTable, row }: CherryRow, context: RecordContext): DatabaseItem | undefined {
  const id = nonEmptyString(row.id);
  if (cherryTable === "agent_session") return { kind: "agent_session", count: Number(row.sessions) || 0, context };
  if (id === undefined) {
    if (cherryTable !== "assistant") context.skip(NO_ID);
    return undefined;
  }
  if (cherryTable === "assistant") return { kind: "assistant", id, prompt: nonEmptyString(row.prompt)?.trim() };
  if (cherryTable === "topic") {
    return {
      kind: "topic",
      id,
      name: nonEmptyString(row.name)?.trim(),
      activeNode: nonEmptyString(row.active_node_id),
      createdAt: isoFromTime(row.created_at),
      updatedAt: isoFromTime(row.updated_at),
      deleted: row.deleted_at !== undefined,
      prompt: nonEmptyString(row.prompt)?.trim(),
      assistant: nonEmptyString(row.assistant_id),
      context,
    };
  }
  return { kind: "message", id, topic: String(row.topic_id), parent: nonEmptyString(row.parent_id), said: said(id, row, context) };
}

/** What a message shows, when it is a prompt or an answer shown with text; undefined otherwise. */
function said(id: string, row: CherryRow["row"], context: RecordContext): UploadMessage | undefined {
  const role = row.role === "user" ? "human" : row.role === "assistant" ? "assistant" : undefined;
  if (role === undefined || row.deleted_at !== undefined) return undefined;
  const data = jsonObjectIn(row.data);
  if (data === undefined) {
    context.skip(DAMAGED);
    return undefined;
  }
  const content = joinPieces(Array.isArray(data.parts) ? arrayOf(data.parts).map(partText) : arrayOf(data.blocks).map(blockText));
  if (content === "") return undefined;
  const createdAt = isoFromTime(row.created_at);
  return { id, role, content, ...(createdAt === undefined ? {} : { createdAt }) };
}

/** What a UIMessage part shows as the message's text, if it is kept. */
function partText(part: unknown): string | undefined {
  if (!isObject(part) || typeof part.type !== "string") return undefined;
  if (part.type.startsWith("tool-")) return toolPlaceholder(part.type.slice("tool-".length));
  const data = isObject(part.data) ? part.data : {};
  switch (part.type) {
    case "text":
      return stringOf(part.text);
    case "dynamic-tool":
      return toolPlaceholder(part.toolName);
    case "file":
      return stringOf(part.mediaType)?.startsWith("image/") ? "[image]" : filePlaceholder(part.filename);
    case "data-code":
      return codeBlock(data.language, data.content);
    case "data-video":
      return "[video]";
    default:
      return undefined; // reasoning, source-url, source-document, step-start, data-error, data-translation, data-compact
  }
}

/** A block of 2.0's development (`data.blocks`, 1.x's types inline): read as backup.ts reads 1.x's. */
function blockText(block: unknown): string | undefined {
  return isObject(block) ? backupBlockText(block) : undefined;
}

export function databaseConversations(items: DatabaseItem[]): UploadConversation[] {
  // Each topic's messages apart: a row of another topic that repeats an id (no app writes one) cannot
  // take a message's place on a topic's path and lead it into that other topic.
  const messages = new Map<string, Map<string, MessageItem>>();
  const prompts = new Map<string, string | undefined>();
  const topics: TopicItem[] = [];
  for (const item of items) {
    if (item.kind === "message") messagesOf(messages, item.topic).set(item.id, item);
    else if (item.kind === "assistant") prompts.set(item.id, item.prompt);
    else if (item.kind === "topic") topics.push(item);
    else if (item.count > 0) item.context.skip(AGENT_SESSIONS, item.count);
  }
  return topics.flatMap((topic) => {
    if (topic.deleted) {
      topic.context.skip(DELETED);
      return [];
    }
    const own = messages.get(topic.id) ?? new Map<string, MessageItem>();
    const leaf = own.has(topic.activeNode ?? "") ? topic.activeNode : [...own.keys()].at(-1); // else its last by creation
    const said = selectedPath(leaf, own).flatMap((message) => (message.said === undefined ? [] : [message.said]));
    if (said.length === 0) {
      topic.context.skip(EMPTY);
      return [];
    }
    return [conversation(topic, said, topic.prompt ?? prompts.get(topic.assistant ?? ""))];
  });
}

function messagesOf(messages: Map<string, Map<string, MessageItem>>, topic: string): Map<string, MessageItem> {
  const own = messages.get(topic) ?? new Map<string, MessageItem>();
  messages.set(topic, own);
  return own;
}

/** The messages from the topic's first down to `leaf`, by their parents (a loop in damaged rows ends the walk). */
function selectedPath(leaf: string | undefined, messages: ReadonlyMap<string, MessageItem>): MessageItem[] {
  const path: MessageItem[] = [];
  const seen = new Set<string>();
  for (let at = leaf; at !== undefined && !seen.has(at); ) {
    seen.add(at);
    const message = messages.get(at);
    if (message === undefined) break;
    path.push(message);
    at = message.parent;
  }
  return path.reverse();
}

function conversation(topic: TopicItem, said: UploadMessage[], prompt: string | undefined): UploadConversation {
  const times = said.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = topic.createdAt ?? times.sort()[0] ?? topic.context.fallbackDate.toISOString();
  const updatedAt = [topic.updatedAt, ...times]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  const asked = said.find((message) => message.role === "human")?.content;
  const firstPrompt = asked === undefined ? undefined : firstLine(asked);
  return {
    complete: true, // the database holds the topic as it stands
    conversation: {
      id: `cherry-studio-${topic.id}`,
      title: titleFrom(topic.name ?? firstPrompt),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: withSystemPrompt(prompt, said, createdAt),
    },
  };
}
