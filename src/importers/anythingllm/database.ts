// AnythingLLM's rows, as the database reader gives them: every workspace, every thread, then every
// chat in the order it was saved (by id, as the app lists them). A column an older database lacks is
// not selected, and reads as absent.
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import { READ_COLUMNS } from "./tables.js";

export type AnythingLlmTable = keyof typeof READ_COLUMNS;

export interface AnythingLlmRow {
  anythingllmTable: AnythingLlmTable;
  row: Row;
}

export function* anythingLlmRows(db: DatabaseFile): Generator<AnythingLlmRow> {
  for (const table of Object.keys(READ_COLUMNS) as AnythingLlmTable[]) {
    const present = db.tables.get(table);
    if (present === undefined) continue; // workspace_threads, before February 2024
    const columns = READ_COLUMNS[table].filter((column) => present.has(column));
    const sql = `SELECT ${columns.map((column) => `"${column}"`).join(", ")} FROM ${table} ORDER BY id`;
    for (const row of db.select(sql)) yield { anythingllmTable: table, row };
  }
}

export function isAnythingLlmRow(value: unknown): value is AnythingLlmRow {
  return isObject(value) && typeof value.anythingllmTable === "string" && isObject(value.row);
}
