// Goose's sessions.db (since 1.10, autumn 2025: SessionStorage in block/goose
// crates/goose/src/session/session_manager.rs): `sessions` (`id`, `name` (to schema 4 `description`),
// `session_type`, `created_at`, `updated_at`…) and `messages` (`session_id`, `role`, `content_json`: the
// message's content list, `created_timestamp`: Unix seconds, `metadata_json`: its visibility). Every
// session, then every message in the order Goose wrote it (by id, as it reads them back).
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import { LATER_COLUMNS, REQUIRED_COLUMNS } from "./tables.js";

export interface GooseRow {
  gooseTable: "sessions" | "messages";
  row: Row;
}

const ORDER = { sessions: "id", messages: "session_id, id" };

export function* gooseRows(db: DatabaseFile): Generator<GooseRow> {
  for (const table of ["sessions", "messages"] as const) {
    const present = db.tables.get(table);
    const columns = [...REQUIRED_COLUMNS[table], ...LATER_COLUMNS[table].filter((column) => present?.has(column))];
    const sql = `SELECT ${columns.join(", ")} FROM ${table} ORDER BY ${ORDER[table]}`;
    for (const row of db.select(sql)) yield { gooseTable: table, row };
  }
}

export function isGooseRow(value: unknown): value is GooseRow {
  return isObject(value) && typeof value.gooseTable === "string" && isObject(value.row);
}
