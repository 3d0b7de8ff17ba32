import * as lancedb from "@lancedb/lancedb";
import { createTextIndex } from "./migrations.js";
import { TABLE, VECTOR_TABLES, type TableKey } from "./schema.js";
import type { Store } from "./store.js";
import { retryOnCommitConflict } from "./write-lock.js";

/** Small fragments a table may gather before compaction is due. */
const FRAGMENT_LIMIT = 32;
/** Rows written since the text index was last brought up to date before it is due again. */
const UNINDEXED_LIMIT = 2_000;
/** Below this many rows a flat vector scan is faster than an index. */
export const VECTOR_INDEX_MIN_ROWS = 20_000;
/** Versions younger than this are kept, so a reader that is mid-query never loses its files. */
const KEEP_VERSIONS_MS = 60_000;

const SCALAR_INDEXES: Partial<Record<TableKey, { column: string; kind: "bitmap" | "btree" }[]>> = {
  memories: [{ column: "userId", kind: "bitmap" }],
  chunks: [
    { column: "userId", kind: "bitmap" },
    { column: "conversationId", kind: "btree" },
  ],
  conversations: [{ column: "userId", kind: "bitmap" }],
};

export async function needsMaintenance(store: Store): Promise<boolean> {
  for (const key of Object.keys(TABLE) as TableKey[]) {
    const table = await store.table(key);
    const stats = await table.stats();
    if (stats.fragmentStats.numSmallFragments > FRAGMENT_LIMIT) return true;
    if ((VECTOR_TABLES as readonly string[]).includes(key) && (await unindexedRows(table)) > UNINDEXED_LIMIT) return true;
  }
  return false;
}

/**
 * Compacts small fragments, folds new rows into the indexes, drops old versions, and creates the
 * indexes a table has grown into. Runs beside writers: a commit conflict is retried, not fatal.
 */
export async function optimizeStore(store: Store): Promise<void> {
  for (const key of Object.keys(TABLE) as TableKey[]) {
    const table = await store.table(key);
    await ensureIndexes(key, table);
    await retryOnCommitConflict(() => table.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) }));
  }
}

async function ensureIndexes(key: TableKey, table: lancedb.Table): Promise<void> {
  const existing = new Set((await table.listIndices()).flatMap((index) => index.columns));
  const rows = await table.countRows();
  if ((VECTOR_TABLES as readonly string[]).includes(key)) {
    if (!existing.has("text")) await retryOnCommitConflict(() => createTextIndex(table));
    if (!existing.has("vector") && rows >= VECTOR_INDEX_MIN_ROWS) {
      await retryOnCommitConflict(() =>
        table.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }) }),
      );
    }
  }
  if (rows < 1_000) return;
  for (const { column, kind } of SCALAR_INDEXES[key] ?? []) {
    if (existing.has(column)) continue;
    const config = kind === "bitmap" ? lancedb.Index.bitmap() : lancedb.Index.btree();
    await retryOnCommitConflict(() => table.createIndex(column, { config }));
  }
}

async function unindexedRows(table: lancedb.Table): Promise<number> {
  const indices = await table.listIndices();
  const text = indices.find((index) => index.columns.includes("text"));
  if (!text) return 0;
  const stats = await table.indexStats(text.name);
  return stats?.numUnindexedRows ?? 0;
}
