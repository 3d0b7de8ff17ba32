// Open WebUI's webui.db (open-webui/open-webui backend/open_webui/models/chats.py; the peewee
// migrations under internal/migrations and the alembic ones under migrations/versions): a chat is a
// row of `chat`, `{ id, user_id, title, chat, created_at, updated_at, archived, pinned, meta,
// folder_id… }`, `chat` the JSON the API's ChatResponse holds as it is (an export's record is that row,
// so the same converter reads both and a chat keeps its id either way). Every schema on disk has `id`,
// `user_id`, `title` and `chat`; before peewee's 005_add_updated_at (May 2024) its time was
// `timestamp`, read as both times; `chat` was TEXT until alembic's 242a2047eae0 (October 2024) made
// it JSON, which SQLite stores as text all the same; `meta` came with 1af9b942657b. Since 2025
// `chat_message` holds each message again, written beside `chat.history` (the copy the chat reads
// first), so it is not read. The database holds every user's chats (see OWNER below).
import { isObject, stringOf } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";

/** A chat row as the converter reads it, with the user whose chats are imported (undefined: everyone's). */
export interface OpenWebUiRow {
  openWebUiRow: Row;
  owner: string | undefined;
}

export function* openWebUiRows(db: DatabaseFile): Generator<OpenWebUiRow> {
  const present = db.tables.get("chat") ?? new Set<string>();
  const times = present.has("created_at") ? "created_at, updated_at" : "timestamp AS created_at, timestamp AS updated_at";
  const meta = present.has("meta") ? ", meta" : "";
  const archived = present.has("archived") ? ", archived" : "";
  const owner = ownerOf(db);
  const sql = `SELECT id, user_id, title, chat, ${times}${archived}${meta} FROM chat ORDER BY created_at, id`;
  for (const row of db.select(sql)) yield { openWebUiRow: row, owner };
}

export function isOpenWebUiRow(value: unknown): value is OpenWebUiRow {
  return isObject(value) && isObject(value.openWebUiRow);
}

/** A copy Open WebUI made of a chat for its share link (before `shared_chat`, 2025): the same chat again. */
export function isSharedCopy(row: Row): boolean {
  return stringOf(row.user_id)?.startsWith("shared-") === true;
}

/**
 * OWNER: on a server several people use, whose chats are imported: its first admin's (Open WebUI makes
 * the first account the admin; the first who has chats), the person who keeps the server and so holds its database. The
 * others' chats are theirs, not that admin's memory: left out, counted, each user's own export imports
 * them. With one user's chats (or no `user` table to tell by), every chat is read.
 */
function ownerOf(db: DatabaseFile): string | undefined {
  const users = db.tables.get("user");
  const [counted] = db.select("SELECT COUNT(DISTINCT user_id) AS users FROM chat WHERE user_id NOT LIKE 'shared-%'");
  if (users === undefined || !users.has("role") || Number(counted?.users ?? 0) < 2) return undefined;
  const order = users.has("created_at") ? "created_at, " : users.has("timestamp") ? "timestamp, " : "";
  // An admin account kept for administration alone gives way to the first admin who chats.
  const chats = `EXISTS (SELECT 1 FROM chat WHERE chat.user_id = "user".id) DESC`;
  const [admin] = db.select(`SELECT id FROM "user" WHERE role = 'admin' ORDER BY ${chats}, ${order}rowid LIMIT 1`);
  return stringOf(admin?.id);
}
