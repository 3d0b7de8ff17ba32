// OpenCode 1.2 and later (February 2026) keep the sessions in ~/.local/share/opencode/opencode.db, a
// SQLite database (anomalyco/opencode packages/opencode/src/session/session.sql.ts, drizzle): `session`
// (`id`, `parent_id`, `title`, `time_created`, `time_updated`…), `message` (`id`, `session_id`, `data`)
// and `part` (`id`, `message_id`, `session_id`, `data`). `data` is the JSON a storage file held, less
// the ids the columns hold (storage/json-migration.ts, which copied every file in, ids unchanged): each
// row is made back into that file's record, so storage.ts reads both alike and a session gets the same
// conversation id from either.
//
// 2.x (2026) writes `session_v2` and `session_message` instead (v2.ts), and copies each 1.x session
// there once, its id kept (packages/core/src/database/v1-migration.bun.ts: `INSERT OR IGNORE INTO
// session_v2 … SELECT … FROM session`, sessions taken by descending id, the one being copied named in
// `kv`'s `migration.v1-v2` row, `{"phase":"sessions","cursor":…}`, until `{"phase":"completed"}`). The
// 1.x rows stay. So a 1.x session is read from them only while 2.x has no copy: not copied yet, or
// begun by a 1.x OpenCode after the copy completed. One older than that, with no copy, was deleted in 2.x.
// Read (anomalyco/opencode, 2.x, as stored at these commits): packages/core/src/session/sql.ts
// (02ce4a33), database/v1-migration.bun.ts (0871f3f7), database/migration/20260804233008_loose_psylocke.ts
// (7656aeb6, the tables' CREATE statements), database/database.ts (01f25dc7, OPENCODE_DB's path),
// packages/schema/src/session-message.ts (0ceb3dd5, the messages).
import { isObject, type JsonObject, jsonObjectIn } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import type { RecordContext } from "../types.js";
import { DATABASE_COLUMNS, V2_COLUMNS } from "./tables.js";

/** A row of one of OpenCode's tables, as the database reader gives it. */
export interface OpencodeRow {
  opencodeTable: keyof typeof DATABASE_COLUMNS | keyof typeof V2_COLUMNS;
  row: Row;
}

const ORDER = { session: "id", message: "session_id, id", part: "message_id, id", session_v2: "id", session_message: "session_id, seq" };

/** Every session, then every message (then every part), one row at a time (the columns the detector saw). */
export function* opencodeRows(db: DatabaseFile): Generator<OpencodeRow> {
  const v2 = hasColumns(db, V2_COLUMNS);
  if (v2) yield* rowsOf(db, ["session_v2", "session_message"], "");
  if (hasColumns(db, DATABASE_COLUMNS)) yield* rowsOf(db, ["session", "message", "part"], v2 ? notCopied(db) : "");
}

function* rowsOf(db: DatabaseFile, tables: OpencodeRow["opencodeTable"][], where: string): Generator<OpencodeRow> {
  const columns: Record<string, readonly string[]> = { ...DATABASE_COLUMNS, ...V2_COLUMNS };
  for (const table of tables) {
    const filter = where === "" ? "" : ` WHERE ${table === "session" ? "id" : "session_id"} IN (${where})`;
    const sql = `SELECT ${columns[table]!.join(", ")} FROM ${table}${filter} ORDER BY ${ORDER[table]}`;
    for (const row of db.select(sql)) yield { opencodeTable: table, row };
  }
}

/** The 1.x sessions 2.x has no copy of that it did not delete: a SELECT of their ids. */
function notCopied(db: DatabaseFile): string {
  const completed = migrationCompletedAt(db);
  const after = completed === undefined ? "" : ` AND time_created > ${completed}`;
  return `SELECT id FROM session WHERE id NOT IN (SELECT id FROM session_v2)${after}`;
}

/** When 2.x finished copying the 1.x sessions (the `kv` row's last update), if it has. */
function migrationCompletedAt(db: DatabaseFile): number | undefined {
  if (!["key", "value", "time_updated"].every((column) => db.tables.get("kv")?.has(column))) return undefined;
  const [row] = db.select("SELECT value, time_updated FROM kv WHERE key = 'migration.v1-v2'");
  const completed = jsonObjectIn(row?.value)?.phase === "completed";
  // A number written into the SQL: SQLite's infinity (9e999) would read as a column named Infinity.
  return completed && Number.isFinite(row?.time_updated) ? (row?.time_updated as number) : undefined;
}

function hasColumns(db: DatabaseFile, tables: Readonly<Record<string, readonly string[]>>): boolean {
  return Object.entries(tables).every(([table, columns]) => columns.every((column) => db.tables.get(table)?.has(column)));
}

export function isOpencodeRow(value: unknown): value is OpencodeRow {
  return isObject(value) && typeof value.opencodeTable === "string" && isObject(value.row);
}

/** The storage file's record a row was made from; undefined (and counted) when its JSON is damaged. */
export function recordOfRow({ opencodeTable, row }: OpencodeRow, context: RecordContext): JsonObject | undefined {
  if (opencodeTable === "session" || opencodeTable === "session_v2") {
    const time = { created: row.time_created, updated: row.time_updated };
    return { id: row.id, title: row.title, ...(row.parent_id === undefined ? {} : { parentID: row.parent_id }), time };
  }
  const data = jsonObjectIn(row.data);
  if (data === undefined) {
    context.skip(
      opencodeTable === "part"
        ? "message parts whose stored JSON is damaged (left out)"
        : "messages whose stored JSON is damaged (left out)",
    );
    return undefined;
  }
  if (opencodeTable === "message") return { time: { created: row.time_created }, ...data, id: row.id, sessionID: row.session_id };
  if (opencodeTable === "session_message")
    return {
      ...data,
      id: row.id,
      sessionID: row.session_id,
      type: row.type,
      seq: row.seq,
      time: { ...timeOf(data), created: row.time_created },
    };
  return { ...data, id: row.id, sessionID: row.session_id, messageID: row.message_id };
}

function timeOf(data: JsonObject): JsonObject {
  return isObject(data.time) ? data.time : {};
}
