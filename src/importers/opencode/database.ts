// OpenCode 1.2 and later (February 2026) keep the sessions in ~/.local/share/opencode/opencode.db, a
// SQLite database (anomalyco/opencode packages/opencode/src/session/session.sql.ts, drizzle): `session`
// (`id`, `parent_id`, `title`, `time_created`, `time_updated`…), `message` (`id`, `session_id`, `data`)
// and `part` (`id`, `message_id`, `session_id`, `data`). `data` is the JSON a storage file held, less
// the ids the columns hold (storage/json-migration.ts, which copied every file in, ids unchanged): each
// row is made back into that file's record, so storage.ts reads both alike and a session gets the same
// conversation id from either.
import { isObject, type JsonObject, jsonObjectIn } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import type { RecordContext } from "../types.js";
import { DATABASE_COLUMNS } from "./tables.js";

/** A row of one of OpenCode's tables, as the database reader gives it. */
export interface OpencodeRow {
  opencodeTable: "session" | "message" | "part";
  row: Row;
}

const ORDER = { session: "id", message: "session_id, id", part: "message_id, id" };

/** Every session, then every message, then every part, one row at a time (the columns the detector saw). */
export function* opencodeRows(db: DatabaseFile): Generator<OpencodeRow> {
  for (const table of ["session", "message", "part"] as const) {
    const sql = `SELECT ${DATABASE_COLUMNS[table].join(", ")} FROM ${table} ORDER BY ${ORDER[table]}`;
    for (const row of db.select(sql)) yield { opencodeTable: table, row };
  }
}

export function isOpencodeRow(value: unknown): value is OpencodeRow {
  return isObject(value) && typeof value.opencodeTable === "string" && isObject(value.row);
}

/** The storage file's record a row was made from; undefined (and counted) when its JSON is damaged. */
export function recordOfRow({ opencodeTable, row }: OpencodeRow, context: RecordContext): JsonObject | undefined {
  if (opencodeTable === "session") {
    const time = { created: row.time_created, updated: row.time_updated };
    return { id: row.id, title: row.title, ...(row.parent_id === undefined ? {} : { parentID: row.parent_id }), time };
  }
  const data = jsonObjectIn(row.data);
  if (data === undefined) {
    context.skip(
      opencodeTable === "message"
        ? "messages whose stored JSON is damaged (left out)"
        : "message parts whose stored JSON is damaged (left out)",
    );
    return undefined;
  }
  if (opencodeTable === "message") return { time: { created: row.time_created }, ...data, id: row.id, sessionID: row.session_id };
  return { ...data, id: row.id, sessionID: row.session_id, messageID: row.message_id };
}
