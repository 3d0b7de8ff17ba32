// The chats of data.sqlite3, a row each: in `conversations` (Amazon Q Developer CLI, and Kiro CLI to
// 1.21) the working folder's last conversation, its ConversationState as JSON text, overwritten by
// the next one started there; in `conversations_v2` (Kiro CLI from 1.22) every conversation, with
// `created_at` and `updated_at` in Unix milliseconds. Migration 008 copied each `conversations` row
// into `conversations_v2` (its times the migration's) and Kiro never writes the old table again: where
// `conversations_v2` is, it alone is read, lest a conversation Kiro deleted come back from the old table.
// A row of `conversations` has no time, and its chats before July 2025 none either: they are dated, as
// 008 dates them, by a migration's time (`migrations.migration_time`, Unix seconds): 007's, which made
// the table, so no chat in it is older. Not the file's time, which every write of the CLI's `state`
// table moves: each import again had found the chat "updated" and moved it to the top of the list.
import { isObject, isoFromTime, stringOf } from "../json-values.js";
import type { DatabaseFile } from "../sqlite.js";
import { CONVERSATIONS_COLUMNS, CONVERSATIONS_V2_COLUMNS } from "./tables.js";

export interface AmazonQRow {
  amazonQTable: "conversations" | "conversations_v2";
  value: string | undefined;
  /** Unix milliseconds: conversations_v2's, or when `conversations` was made (migration 007). */
  createdAt: number | undefined;
  /** Unix milliseconds (conversations_v2 only). */
  updatedAt: number | undefined;
}

export function* amazonQRows(db: DatabaseFile): Generator<AmazonQRow> {
  if (db.tables.has("conversations_v2")) {
    const sql = `SELECT ${CONVERSATIONS_V2_COLUMNS.join(", ")} FROM conversations_v2 ORDER BY created_at, conversation_id`;
    for (const row of db.select(sql)) {
      yield {
        amazonQTable: "conversations_v2",
        value: stringOf(row.value),
        createdAt: number(row.created_at),
        updatedAt: number(row.updated_at),
      };
    }
    return;
  }
  const madeAt = conversationsTableMadeAt(db);
  for (const row of db.select(`SELECT ${CONVERSATIONS_COLUMNS.join(", ")} FROM conversations ORDER BY key`)) {
    yield {
      amazonQTable: "conversations",
      value: stringOf(row.value),
      createdAt: madeAt,
      updatedAt: undefined,
    };
  }
}

/**
 * When `conversations` was made, in Unix milliseconds: migration 007's time, else (its row missing:
 * early versions could skip one) the earliest the database records; undefined when it records none.
 */
function conversationsTableMadeAt(db: DatabaseFile): number | undefined {
  if (!db.tables.get("migrations")?.has("migration_time")) return undefined;
  const sql = "SELECT migration_time FROM migrations ORDER BY version = 7 DESC, migration_time";
  for (const row of db.select(sql)) {
    const made = isoFromTime(row.migration_time);
    if (made !== undefined) return Date.parse(made);
  }
  return undefined;
}

export function isAmazonQRow(value: unknown): value is AmazonQRow {
  return isObject(value) && typeof value.amazonQTable === "string";
}

function number(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}
