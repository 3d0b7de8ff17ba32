// The chats of data.sqlite3, a row each: in `conversations` (Amazon Q Developer CLI, and Kiro CLI to
// 1.21) the working folder's last conversation, its ConversationState as JSON text, overwritten by
// the next one started there; in `conversations_v2` (Kiro CLI from 1.22) every conversation, with
// `created_at` and `updated_at` in Unix milliseconds. Migration 008 copied each `conversations` row
// into `conversations_v2` (its times the migration's) and Kiro never writes the old table again: where
// `conversations_v2` is, it alone is read, lest a conversation Kiro deleted come back from the old table.
import { isObject, stringOf } from "../json-values.js";
import type { DatabaseFile } from "../sqlite.js";
import { CONVERSATIONS_COLUMNS, CONVERSATIONS_V2_COLUMNS } from "./tables.js";

export interface AmazonQRow {
  amazonQTable: "conversations" | "conversations_v2";
  value: string | undefined;
  /** Unix milliseconds (conversations_v2 only). */
  createdAt: number | undefined;
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
  for (const row of db.select(`SELECT ${CONVERSATIONS_COLUMNS.join(", ")} FROM conversations ORDER BY key`)) {
    yield {
      amazonQTable: "conversations",
      value: stringOf(row.value),
      createdAt: undefined,
      updatedAt: undefined,
    };
  }
}

export function isAmazonQRow(value: unknown): value is AmazonQRow {
  return isObject(value) && typeof value.amazonQTable === "string";
}

function number(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}
