// Crush's crush.db (charmbracelet/crush internal/db: migrations/ and sql/, sqlc's queries): `sessions`
// (`id`, `parent_session_id`, `title`, `summary_message_id`, `created_at`…: Unix seconds, written by
// strftime('%s', 'now')) and `messages` (`id`, `session_id`, `role`, `parts`: the message's parts as
// JSON, `created_at`, `finished_at`, `is_summary_message`). Every session, then the messages of those
// Crush lists (no parent), a session's in the order Crush shows them (ListMessagesBySession: by
// created_at, rows of one second in the order written). Tools' results (role `tool`) are not read.
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import { LATER_COLUMNS, REQUIRED_COLUMNS } from "./tables.js";

export interface CrushRow {
  crushTable: "sessions" | "messages";
  row: Row;
}

const QUERIES = {
  sessions: (columns: string) => `SELECT ${columns} FROM sessions ORDER BY created_at, id`,
  messages: (columns: string) =>
    `SELECT ${columns} FROM messages WHERE role IN ('user', 'assistant') ` +
    "AND session_id IN (SELECT id FROM sessions WHERE parent_session_id IS NULL) ORDER BY session_id, created_at, rowid",
};

export function* crushRows(db: DatabaseFile): Generator<CrushRow> {
  for (const table of ["sessions", "messages"] as const) {
    const present = db.tables.get(table);
    const columns = [...REQUIRED_COLUMNS[table], ...LATER_COLUMNS[table].filter((column) => present?.has(column))];
    for (const row of db.select(QUERIES[table](columns.join(", ")))) yield { crushTable: table, row };
  }
}

export function isCrushRow(value: unknown): value is CrushRow {
  return isObject(value) && typeof value.crushTable === "string" && isObject(value.row);
}
