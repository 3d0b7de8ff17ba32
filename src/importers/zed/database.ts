// The rows of Zed's threads.db, one thread each: `data` is the thread as JSON text (`data_type` "json"
// or "thread-v1", thread_store.rs of the agent before today's), or, as Zed writes it now (`data_type`
// "zstd", db.rs `save_thread_sync`), that JSON compressed with zstd, as bytes. sqlite.ts
// reads a BLOB as UTF-8 text, so a compressed one is selected as hex() and turned back into bytes
// here. fzstd (pure JavaScript) is loaded when the first such row is met, never by `--help`.
import { isObject, stringOf } from "../json-values.js";
import type { DatabaseFile } from "../sqlite.js";
import { LATER_COLUMNS, THREAD_COLUMNS } from "./tables.js";

/** A row of threads.db with its thread's JSON text (`json` undefined when its bytes do not decompress). */
export interface ZedThreadRow {
  zedThread: string;
  summary: string | undefined;
  updatedAt: string | undefined;
  createdAt: string | undefined;
  /** The thread that started it, for a subagent's. */
  parentId: string | undefined;
  json: string | undefined;
}

let fzstd: Promise<typeof import("fzstd")> | undefined;

/** Every thread, the oldest first. */
export async function* zedThreadRows(db: DatabaseFile): AsyncGenerator<ZedThreadRow> {
  const present = db.tables.get("threads");
  const later = LATER_COLUMNS.filter((column) => present?.has(column));
  const columns = [...THREAD_COLUMNS.filter((column) => column !== "data"), ...later];
  const sql = `SELECT ${columns.join(", ")}, CASE WHEN data_type = 'zstd' THEN hex(data) ELSE data END AS data FROM threads ORDER BY updated_at, id`;
  for (const row of db.select(sql)) {
    const parentId = typeof row.parent_id === "string" ? row.parent_id : undefined;
    // A subagent's thread is left out (thread.ts): not decompressed for nothing.
    const json = parentId !== undefined ? undefined : row.data_type === "zstd" ? await decompressed(row.data) : stringOf(row.data);
    yield {
      zedThread: String(row.id),
      summary: typeof row.summary === "string" ? row.summary : undefined,
      updatedAt: typeof row.updated_at === "string" ? row.updated_at : undefined,
      createdAt: typeof row.created_at === "string" ? row.created_at : undefined,
      parentId,
      json,
    };
  }
}

/** The JSON of a zstd frame given as hex; undefined when it is not one (a row torn mid-write). */
async function decompressed(hex: unknown): Promise<string | undefined> {
  if (typeof hex !== "string") return undefined;
  fzstd ??= import("fzstd");
  const { decompress } = await fzstd;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(decompress(Buffer.from(hex, "hex")));
  } catch {
    return undefined;
  }
}

export function isZedThreadRow(value: unknown): value is ZedThreadRow {
  return isObject(value) && typeof value.zedThread === "string";
}
