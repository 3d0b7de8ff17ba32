// The Ollama app's db.sqlite (ollama/ollama app/store/database.go): `chats` (`id`: a UUIDv7, `title`:
// '' until the user renames the chat, `created_at`), `messages` (`chat_id`, `role`, `content`, `thinking`,
// `created_at`, `updated_at`: Go times as mattn/go-sqlite3 writes them, `2025-08-01 10:15:30.123456789+02:00`),
// `tool_calls` (`message_id`, `function_name`…) and, since schema 3, `attachments` (`message_id`,
// `filename`, `data`: the file's bytes, never read here). A chat's messages are read in the app's order
// (by id, as getMessages reads them), each with its tools' and files' names; one record per chat.
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";

export interface OllamaChat {
  ollamaChatId: string;
  /** The chat's row; undefined for messages of a chat no longer in the database (the app never shows them). */
  chat: Row | undefined;
  /** Its messages in order, each with `tools` and `files`: JSON lists of names. */
  messages: Row[];
}

const names = (table: string, column: string) =>
  `(SELECT json_group_array(${column}) FROM (SELECT ${column} FROM ${table} WHERE message_id = m.id ORDER BY id))`;

export function* ollamaChats(db: DatabaseFile): Generator<OllamaChat> {
  const chats = new Map<string, Row>();
  for (const row of db.select("SELECT id, title, created_at FROM chats")) chats.set(String(row.id), row);
  const files = db.tables.has("attachments") ? names("attachments", "filename") : "'[]'";
  const sql =
    `SELECT m.chat_id, m.role, m.content, m.created_at, m.updated_at, ${names("tool_calls", "function_name")} AS tools, ` +
    `${files} AS files FROM messages m ORDER BY m.chat_id, m.id`;
  let current: OllamaChat | undefined;
  for (const row of db.select(sql)) {
    const id = String(row.chat_id);
    if (current?.ollamaChatId !== id) {
      if (current !== undefined) yield current;
      current = { ollamaChatId: id, chat: chats.get(id), messages: [] };
      chats.delete(id);
    }
    current.messages.push(row);
  }
  if (current !== undefined) yield current;
  for (const [id, chat] of chats) yield { ollamaChatId: id, chat, messages: [] };
}

export function isOllamaChat(value: unknown): value is OllamaChat {
  return isObject(value) && typeof value.ollamaChatId === "string" && Array.isArray(value.messages);
}
