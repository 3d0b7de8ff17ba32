// DeepChat's databases read as one record per session: its row and its messages in the app's order.
// - agent.db (1.0 on): `new_sessions` (`id`, `title`, `session_kind`: 'regular' | 'subagent' since schema
//   20, `created_at`, `updated_at`: epoch ms) and `deepchat_messages` (`id`, `session_id`, `order_seq`,
//   `role`, `content`: JSON, `status`, `metadata`: JSON, times), read by `order_seq` as
//   SessionTranscript reads them (src/main/session/data/transcript.ts). Since schema 26 a message is
//   also kept in structured tables that the app reads first, `content` being the fallback
//   (materializeContent): `deepchat_user_messages` (`text`), `deepchat_user_message_files` (`name`,
//   `mime_type`, by `ordinal`) and `deepchat_assistant_blocks` (`block_type`, `text_content`,
//   `tool_name`, by `block_index`), which alone hold an answer while it streams (updateAssistantContent
//   leaves `content` as '[]' until the answer is finalized). The blocks' `extra_json` (a generated
//   image's bytes) is never read, nor is `content` where the structured rows stand for it.
// - chat.db (to 0.5.8): `conversations` (`conv_id`, `title`, `context_chain`: the selected variants,
//   times) and `messages` (`msg_id`, `conversation_id`, `parent_id`, `role`, `content`, `is_variant`,
//   `order_seq`, `created_at`), every row, variants included, in the order DeepChat's import reads
//   them (legacyChatImportService.ts compareMessageRows: order_seq, created_at, msg_id).
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";

export interface DeepChatSession {
  /** The session's id in agent.db, or the conversation's conv_id in chat.db. */
  deepchatSession: string;
  /** Read from chat.db, the database before 1.0. */
  legacy: boolean;
  /** The session's row; undefined for messages of a session no longer in the database. */
  session: Row | undefined;
  messages: Row[];
}

export function* deepchatSessions(db: DatabaseFile): Generator<DeepChatSession> {
  if (db.tables.has("new_sessions")) yield* grouped(db, false, agentSessionsSql(db), agentMessagesSql(db));
  else yield* grouped(db, true, LEGACY_SESSIONS, LEGACY_MESSAGES);
}

const LEGACY_SESSIONS = "SELECT conv_id AS id, title, created_at, updated_at, context_chain FROM conversations";
const LEGACY_MESSAGES =
  "SELECT msg_id AS id, conversation_id AS session_id, parent_id, role, content, created_at, is_variant FROM messages " +
  "ORDER BY conversation_id, order_seq, created_at, msg_id";

function agentSessionsSql(db: DatabaseFile): string {
  const kind = db.tables.get("new_sessions")?.has("session_kind") ? "session_kind" : "'regular' AS session_kind";
  return `SELECT id, title, created_at, updated_at, ${kind} FROM new_sessions`;
}

function agentMessagesSql(db: DatabaseFile): string {
  const has = (table: string) => db.tables.has(table);
  const users = has("deepchat_user_messages");
  const blocks = has("deepchat_assistant_blocks") ? perMessage(db, "deepchat_assistant_blocks", BLOCKS) : undefined;
  const files = users && has("deepchat_user_message_files") ? perMessage(db, "deepchat_user_message_files", FILES) : undefined;
  const structured = [
    ...(blocks ? [`m.role = 'assistant' AND ${blocks.exists}`] : []),
    ...(users ? ["m.role = 'user' AND u.message_id IS NOT NULL"] : []),
  ];
  const content = structured.length === 0 ? "m.content" : `CASE WHEN ${structured.join(" OR ")} THEN NULL ELSE m.content END`;
  return (
    "SELECT m.id, m.session_id, m.role, m.metadata, m.created_at, m.updated_at, " +
    `${content} AS content, ` +
    `${users ? "u.text" : "NULL"} AS user_text, ` +
    `${files ? `CASE WHEN u.message_id IS NULL THEN NULL ELSE ${files.list} END` : "NULL"} AS files, ` +
    `${blocks ? `CASE WHEN ${blocks.exists} THEN ${blocks.list} END` : "NULL"} AS blocks ` +
    `FROM deepchat_messages m ${users ? "LEFT JOIN deepchat_user_messages u ON u.message_id = m.id " : ""}` +
    (blocks?.join ?? "") +
    (files?.join ?? "") +
    "ORDER BY m.session_id, m.order_seq, m.id"
  );
}

/** A table of rows per message (an answer's blocks, a prompt's files), read as a JSON list of each message's in order. */
interface PerMessage {
  alias: string;
  columns: string;
  /** A row as a JSON object. */
  object: string;
  order: string;
}

const BLOCKS: PerMessage = {
  alias: "b",
  columns: "block_type, text_content, tool_name",
  object: "json_object('type', block_type, 'text', text_content, 'tool', tool_name)",
  order: "block_index",
};
const FILES: PerMessage = {
  alias: "f",
  columns: "name, mime_type",
  object: "json_object('name', name, 'mime', mime_type)",
  order: "ordinal",
};

/**
 * The SQL of a message's rows in `table`: looked up per message through DeepChat's index on
 * message_id; in a database without it (a damaged one, or one `CREATE TABLE … AS SELECT` copied,
 * as smallerDatabase does) grouped once and joined, since a lookup per message would scan the
 * whole table for each one (20,000 answers: 70 s; 200,000: hours).
 */
function perMessage(db: DatabaseFile, table: string, { alias, columns, object, order }: PerMessage) {
  if (indexedByMessage(db, table)) {
    return {
      exists: `EXISTS (SELECT 1 FROM ${table} WHERE message_id = m.id)`,
      list: `(SELECT json_group_array(${object}) FROM (SELECT ${columns} FROM ${table} WHERE message_id = m.id ORDER BY ${order}))`,
      join: "",
    };
  }
  return {
    exists: `${alias}.message_id IS NOT NULL`,
    list: `${alias}.list`,
    join:
      `LEFT JOIN (SELECT message_id, json_group_array(${object} ORDER BY ${order}) AS list FROM ${table} ` +
      `GROUP BY message_id) ${alias} ON ${alias}.message_id = m.id `,
  };
}

function indexedByMessage(db: DatabaseFile, table: string): boolean {
  const sql =
    `SELECT 1 FROM pragma_index_list('${table}') AS list JOIN pragma_index_info(list.name) AS info ` +
    "WHERE info.seqno = 0 AND info.name = 'message_id'";
  for (const _ of db.select(sql)) return true;
  return false;
}

function* grouped(db: DatabaseFile, legacy: boolean, sessionsSql: string, messagesSql: string): Generator<DeepChatSession> {
  // A session or message whose id is NULL (a damaged row) belongs to no session: its messages are
  // those of a session no longer there, not a session of the id "undefined".
  const sessions = new Map<string, Row>();
  for (const row of db.select(sessionsSql)) if (row.id !== undefined) sessions.set(String(row.id), row);
  let current: DeepChatSession | undefined;
  let currentId: string | undefined;
  for (const row of db.select(messagesSql)) {
    const id = row.session_id === undefined ? undefined : String(row.session_id);
    if (current === undefined || currentId !== id) {
      if (current !== undefined) yield current;
      current = { deepchatSession: id ?? "", legacy, session: id === undefined ? undefined : sessions.get(id), messages: [] };
      currentId = id;
      if (id !== undefined) sessions.delete(id);
    }
    current.messages.push(row);
  }
  if (current !== undefined) yield current;
  for (const [id, session] of sessions) yield { deepchatSession: id, legacy, session, messages: [] };
}

export function isDeepChatSession(value: unknown): value is DeepChatSession {
  return isObject(value) && typeof value.deepchatSession === "string" && Array.isArray(value.messages);
}
