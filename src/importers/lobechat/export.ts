// LobeChat's export to the upload shape. What each rule is based on: LobeChat's own code (lobehub/lobehub
// packages/database/src/schemas/message.ts, topic.ts, session.ts for the database export's rows;
// lobehub/lobe-chat src/types/exportConfig.ts, src/types/message/index.ts `ChatMessage` and
// src/types/session `LobeAgentSession` for the older config file; packages/conversation-flow/src
// indexing.ts, BranchResolver.ts and transformation/FlatListBuilder.ts for what the app shows).
// - Conversations: a topic's messages; a thread's (a side conversation from one message) apart, after
//   it; the messages of no topic (the agent's default chat) as one conversation per session.
// - Branch: messages point to their parent (`parentId`); the app shows every root in turn and, where a
//   user or an assistant message has several answers, the one its `metadata.activeBranchIndex` names
//   (counting answers, not tool results), else the one holding the latest user message, else the first
//   that goes on, else the first. A parent not in the conversation makes its message a root.
// - Roles: `user` and `assistant` are kept; `tool` (a tool's result, the model's to read), `system` and the
//   app's own roles are left out. An assistant's `tools` become `[tool: identifier]`; `reasoning` and a
//   leading `<think>` block (shown folded) are left out; an error reply keeps only text it had (the
//   app writes "..." while waiting). Files: `[image]` or `[file: name]` where the export lists them
//   (`messagesFiles` and `files`, in the first database exports; later ones leave files out), `[file]` for
//   the config file's file ids.
// - System prompt: the agent's `systemRole` (the session's `config.systemRole` in the config file), but not
//   the app's own for its built-in agents, which newer versions store (packages/builtin-agents inbox
//   `createSystemRole`, "You are <name>, an AI Agent will help users.", and the legacy roles the app
//   recognises: "You are Lobe, an Agent Builder…", "You are LobeAI, an intelligent team coordinator…").
// - Times: ISO strings (database) or milliseconds (config file). Ids: topic, thread and session ids.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import type { Importer } from "../importer.js";
import { arrayOf, earliestIso, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { filePlaceholder, joinPieces, systemPromptMessage, THINK_BLOCK, toolPlaceholder } from "../placeholders.js";
import { notAConversation, unreadableRecord } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** Each conversation of the export, each on its own: a damaged one costs only itself. */
export const lobeChatExport: Importer["convert"] = async function* (records) {
  for await (const { value, context } of records) {
    let tables: Tables;
    try {
      tables = tablesOf(value, context);
    } catch (error) {
      context.unreadable(unreadableRecord(context, error));
      continue;
    }
    for (const group of groupsOf(tables.messages)) {
      try {
        const conversation = lobeConversation(group, tables, context);
        if (conversation !== undefined) yield conversation;
      } catch (error) {
        context.unreadable(unreadableRecord(context, error));
      }
    }
  }
};

/** What the converter reads of the export, whichever of its two shapes it came in. */
interface Tables {
  messages: JsonObject[];
  topics: Map<string, JsonObject>;
  threads: Map<string, JsonObject>;
  /** A session's or an agent's title, by its id. */
  titles: Map<string, string>;
  /** A session's or an agent's system prompt, by its id. */
  prompts: Map<string, string>;
  /** The files a message carries, by its id: placeholders. */
  files: Map<string, string[]>;
}

function tablesOf(record: unknown, context: RecordContext): Tables {
  if (!isObject(record)) throw notAConversation(context);
  if (isObject(record.data)) return databaseTables(record.data);
  if (isObject(record.state)) return configTables(record.state);
  throw notAConversation(context);
}

/** The database export: a table per key, rows with the schema's field names. */
function databaseTables(data: JsonObject): Tables {
  const agents = byId(rowsOf(data.agents));
  const tables = emptyTables(data);
  for (const [id, agent] of agents) addAgent(tables, id, agent.title, agent.systemRole);
  for (const session of rowsOf(data.sessions)) addAgent(tables, stringOf(session.id), session.title, undefined);
  for (const link of rowsOf(data.agentsToSessions)) {
    const agent = agents.get(stringOf(link.agentId) ?? "");
    if (agent !== undefined) addAgent(tables, stringOf(link.sessionId), agent.title, agent.systemRole);
  }
  const files = byId(rowsOf(data.files));
  for (const link of rowsOf(data.messagesFiles)) {
    const file = files.get(stringOf(link.fileId) ?? "");
    const messageId = stringOf(link.messageId);
    if (file === undefined || messageId === undefined) continue;
    const placeholder = stringOf(file.fileType)?.startsWith("image/") ? "[image]" : filePlaceholder(file.name);
    tables.files.set(messageId, [...(tables.files.get(messageId) ?? []), placeholder]);
  }
  return tables;
}

/** The older config file: sessions carry their agent's config; messages list their files by id. */
function configTables(state: JsonObject): Tables {
  const tables = emptyTables(state);
  for (const session of rowsOf(state.sessions)) {
    const config = isObject(session.config) ? session.config : {};
    const meta = isObject(session.meta) ? session.meta : {};
    addAgent(tables, stringOf(session.id), meta.title, config.systemRole);
  }
  for (const message of tables.messages) {
    const files = arrayOf(message.files).filter((file) => typeof file === "string");
    if (files.length > 0 && typeof message.id === "string")
      tables.files.set(
        message.id,
        files.map(() => filePlaceholder(undefined)),
      );
  }
  return tables;
}

function emptyTables(holder: JsonObject): Tables {
  return {
    messages: rowsOf(holder.messages),
    topics: byId(rowsOf(holder.topics)),
    threads: byId(rowsOf(holder.threads)),
    titles: new Map(),
    prompts: new Map(),
    files: new Map(),
  };
}

function addAgent(tables: Tables, id: string | undefined, title: unknown, prompt: unknown): void {
  if (id === undefined) return;
  const named = nonEmptyString(title);
  if (named !== undefined) tables.titles.set(id, named);
  const instructions = nonEmptyString(prompt);
  if (instructions !== undefined && !APP_PROMPT.test(instructions)) tables.prompts.set(id, instructions);
}

/** The opening of the prompts the app writes for its built-in agents (the inbox, the agent builder, the group supervisor). */
const APP_PROMPT =
  /^\s*You are (?:[^\n,]{1,60}, an AI Agent will help users\.|Lobe,\s+an Agent Builder integrated into LobeHub\.|LobeAI,\s+an intelligent team coordinator developed by LobeHub,)/;

const rowsOf = (value: unknown): JsonObject[] => arrayOf(value).filter(isObject);

function byId(rows: JsonObject[]): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  for (const row of rows) if (typeof row.id === "string") map.set(row.id, row);
  return map;
}

/** A conversation's messages: a thread's, a topic's, or a session's default chat. */
interface Group {
  kind: "thread" | "topic" | "session";
  id: string;
  messages: JsonObject[];
}

/** The messages by conversation, each in the order they were written (as the app queries them). */
function groupsOf(messages: JsonObject[]): Group[] {
  const groups = new Map<string, Group>();
  const ordered = messages.map((message, index) => ({ message, index, time: isoFromTime(message.createdAt) ?? "" }));
  ordered.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.index - b.index));
  for (const { message } of ordered) {
    const [kind, id] = groupKey(message);
    const key = `${kind}:${id}`;
    const group = groups.get(key) ?? { kind, id, messages: [] };
    group.messages.push(message);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function groupKey(message: JsonObject): [Group["kind"], string] {
  const thread = nonEmptyString(message.threadId);
  if (thread !== undefined) return ["thread", thread];
  const topic = nonEmptyString(message.topicId);
  if (topic !== undefined) return ["topic", topic];
  return ["session", nonEmptyString(message.sessionId) ?? nonEmptyString(message.agentId) ?? "inbox"];
}

function lobeConversation(group: Group, tables: Tables, context: RecordContext): UploadConversation | undefined {
  const said = shownBranch(group.messages)
    .map((message, index) => toMessage(message, index, tables))
    .filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const thread = group.kind === "thread" ? tables.threads.get(group.id) : undefined;
  const topic = tables.topics.get(
    group.kind === "topic" ? group.id : (stringOf(thread?.topicId) ?? stringOf(group.messages[0]?.topicId) ?? ""),
  );
  const owner = ownerOf(topic, group.messages[0]!);
  const times = said.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = earliestIso([isoFromTime((thread ?? topic)?.createdAt), ...times]) ?? context.fallbackDate.toISOString();
  const updatedAt = times.sort().at(-1);
  const system = systemPromptMessage(
    owner.map((id) => tables.prompts.get(id)).find((prompt) => prompt !== undefined),
    "system-prompt",
    createdAt,
  );
  return {
    complete: true, // the export holds the conversation as it stands
    conversation: {
      id: group.kind === "topic" ? `lobechat-${group.id}` : `lobechat-${group.kind}-${group.id}`,
      title: titleFrom(titleOf(group, thread, topic, owner, tables)),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: system === undefined ? said : [system, ...said],
    },
  };
}

/** The agent and the session a conversation is with, as ids to look up (newer rows name the agent). */
function ownerOf(topic: JsonObject | undefined, first: JsonObject): string[] {
  return [topic?.agentId, first.agentId, topic?.sessionId, first.sessionId].filter((id): id is string => typeof id === "string");
}

function titleOf(group: Group, thread: JsonObject | undefined, topic: JsonObject | undefined, owner: string[], tables: Tables): unknown {
  if (group.kind === "thread") return nonEmptyString(thread?.title) ?? topic?.title;
  if (group.kind === "topic") return topic?.title;
  return owner.map((id) => tables.titles.get(id)).find((title) => title !== undefined);
}

/** The messages the app shows, in order (FlatListBuilder): every root in turn, the active answer where there are several. */
function shownBranch(messages: JsonObject[]): JsonObject[] {
  const byMessageId = byId(messages);
  const children = new Map<string | undefined, JsonObject[]>();
  for (const message of messages) {
    const parent = stringOf(message.parentId);
    const key = parent !== undefined && parent !== message.id && byMessageId.has(parent) ? parent : undefined;
    const siblings = children.get(key);
    if (siblings === undefined) children.set(key, [message]);
    else siblings.push(message);
  }
  const shown: JsonObject[] = [];
  const seen = new Set<JsonObject>();
  const visit = (message: JsonObject): void => {
    if (seen.has(message)) return; // a cycle in a damaged export
    seen.add(message);
    shown.push(message);
    for (const next of nextOf(message, children)) visit(next);
  };
  for (const root of children.get(undefined) ?? []) visit(root);
  return shown;
}

/** What the app shows after a message: its answer (the active one of several), or what follows its tool results. */
function nextOf(message: JsonObject, children: Map<string | undefined, JsonObject[]>): JsonObject[] {
  const all = children.get(stringOf(message.id)) ?? [];
  if (message.role !== "user" && message.role !== "assistant") return all;
  const answers = all.filter((child) => child.role !== "tool");
  if (answers.length === 0) return all; // tool results, each followed by what came after it
  if (answers.length === 1) return answers;
  const active = activeAnswer(message, answers, children);
  return active === undefined ? [] : [active];
}

/** BranchResolver: the answer `metadata.activeBranchIndex` names, else the one the user went on from, else one that goes on. */
function activeAnswer(message: JsonObject, answers: JsonObject[], children: Map<string | undefined, JsonObject[]>): JsonObject | undefined {
  const index = isObject(message.metadata) ? message.metadata.activeBranchIndex : undefined;
  if (typeof index === "number" && Number.isInteger(index) && index >= 0) {
    if (index < answers.length) return answers[index];
    if (index === answers.length) return undefined; // the app was making that answer when the export was taken
  }
  const withLatestUser = latestUserBranch(answers, children);
  return withLatestUser ?? answers.find((answer) => (children.get(stringOf(answer.id)) ?? []).length > 0) ?? answers[0];
}

/** The answer under which the user wrote last. */
function latestUserBranch(answers: JsonObject[], children: Map<string | undefined, JsonObject[]>): JsonObject | undefined {
  let latest = "";
  let chosen: JsonObject | undefined;
  for (const answer of answers) {
    const pending = [answer];
    const seen = new Set<JsonObject>();
    for (let at = pending.pop(); at !== undefined; at = pending.pop()) {
      if (seen.has(at)) continue;
      seen.add(at);
      const time = at.role === "user" ? (isoFromTime(at.createdAt) ?? "") : "";
      if (time > latest) {
        latest = time;
        chosen = answer;
      }
      pending.push(...(children.get(stringOf(at.id)) ?? []));
    }
  }
  return chosen;
}

function toMessage(message: JsonObject, index: number, tables: Tables): UploadMessage | undefined {
  const role = message.role;
  if (role !== "user" && role !== "assistant") return undefined; // tool results, system, the app's own
  const id = nonEmptyString(message.id) ?? `message-${index + 1}`;
  const text = stringOf(message.content)?.replace(THINK_BLOCK, "");
  const failed = message.error !== undefined && message.error !== null;
  const written = failed && text?.trim() === "..." ? undefined : text; // the app's "waiting" text, never replaced
  const tools =
    role === "assistant" ? arrayOf(message.tools).map((tool) => (isObject(tool) ? toolPlaceholder(tool.identifier) : undefined)) : [];
  const content = joinPieces([written, ...(tables.files.get(id) ?? []), ...tools]);
  if (content === "") return undefined;
  const createdAt = isoFromTime(message.createdAt);
  return {
    id,
    role: role === "user" ? "human" : "assistant",
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}
