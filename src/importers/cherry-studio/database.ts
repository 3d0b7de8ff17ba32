// Cherry Studio 2 (August 2026 on) keeps its chats in <userData>/Data/cherrystudio.sqlite, a SQLite
// database written through drizzle (CherryHQ/cherry-studio src/main/data/db/schemas/topic.ts, message.ts,
// assistant.ts; migrations/sqlite-drizzle). Every topic; the assistants' prompts (the system prompt of
// their topics); every message of every topic but the virtual root each topic has (`role = 'root'`,
// no content); and how many agent sessions (`agent_session`) there are, which are not read.
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import { V2_COLUMNS, V2_LATER_COLUMNS } from "./tables.js";

export interface CherryRow {
  cherryTable: "topic" | "assistant" | "message" | "agent_session";
  row: Row;
}

export function* cherryStudioRows(db: DatabaseFile): Generator<CherryRow> {
  const topic = columns(db, "topic");
  for (const row of db.select(`SELECT ${topic} FROM topic ORDER BY created_at, id`)) yield { cherryTable: "topic", row };
  const assistant = db.tables.get("assistant");
  if (assistant?.has("id") && assistant.has("prompt")) {
    for (const row of db.select("SELECT id, prompt FROM assistant")) yield { cherryTable: "assistant", row };
  }
  const message = columns(db, "message");
  const sql = `SELECT ${message} FROM message WHERE role != 'root' ORDER BY topic_id, created_at, id`;
  for (const row of db.select(sql)) yield { cherryTable: "message", row };
  if (db.tables.has("agent_session")) {
    for (const row of db.select("SELECT count(*) AS sessions FROM agent_session")) yield { cherryTable: "agent_session", row };
  }
}

function columns(db: DatabaseFile, table: "topic" | "message"): string {
  const present = db.tables.get(table);
  return [...V2_COLUMNS[table], ...V2_LATER_COLUMNS[table].filter((column) => present?.has(column))].join(", ");
}

export function isCherryRow(value: unknown): value is CherryRow {
  return isObject(value) && typeof value.cherryTable === "string" && isObject(value.row);
}
