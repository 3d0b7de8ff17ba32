import * as lancedb from "@lancedb/lancedb";
import { createTextIndex } from "./migrations.js";
import { TABLE, VECTOR_TABLES, type TableKey, type VectorTableKey } from "./schema.js";
import type { Store } from "./store.js";
import { retryOnCommitConflict } from "./write-lock.js";

/** Small fragments a table may gather before compaction is due. */
export const FRAGMENT_LIMIT = 32;
/**
 * Rows the text index may leave uncovered before it is due again: a few hundred, or 5% of the
 * table, a new table's first rows too. Uncovered rows are searched by a slower scan whose BM25
 * statistics are poorer, and the text leg ranks them itself (search.ts).
 */
export const UNINDEXED_FLOOR = 500;
const UNINDEXED_SHARE = 0.05;
/**
 * Below this many rows a table's vectors are scanned, not indexed: a scan reads every vector, and
 * LanceDB's scan costs ~1.2 ms of CPU per 1,000 rows of 512 dims (12 ms at 10k memories, 4 at 2k),
 * against ~2.8 ms for HNSW at 10k and 2.9 at 2k (+2 for the exact similarities fusion reads).
 * Each maintenance run that folds rows in gives HNSW a segment: at 10k, 4–7 ms after six runs, still
 * under a scan, and maintenance rebuilds it past VECTOR_SEGMENT_LIMIT (3.5 s of CPU at 10k, in its
 * own process). In process, a memory search of 10k compacted memories cost 28 ms of CPU scanned, 16 indexed.
 */
export const VECTOR_INDEX_MIN_ROWS: Record<VectorTableKey, number> = { memories: 5_000, chunks: 5_000 };
/**
 * When a table written in many small commits (the journal's: memories and their history) is
 * compacted by the process that writes it, between the runs of `mnemo maintain`: past this many
 * fragments, or rows the text index does not cover. At 10k memories, 2 small commits made a
 * search cost 1.25 times as much, 16 twice; a run of these costs ~0.1-0.2 s of CPU.
 */
const COMPACT_SOON = { fragments: 4, unindexedRows: 64 } as const;
/**
 * Rows per HNSW graph when the vector index is built. One graph over a whole 600 MB import (290k
 * chunks of 512 dims) took 744 MB to build; graphs of ~32k rows took 375 MB, in half the time.
 * Queries probe up to 20 partitions, so until 640k rows they still search every graph.
 */
const ROWS_PER_VECTOR_PARTITION = 32_000;
/**
 * Segments the vector index may have before maintenance rebuilds it as one: 8 while no indexing is
 * pending, 64 while one is (a rebuild then would soon be undone, at the cost of a whole build).
 * Each maintenance run that adds rows gives the index one more segment: LanceDB neither merges
 * them nor compacts fragments across them, and every search visits each one. A 290k-chunk
 * import through the server left 388, and a query took 400 ms instead of 10.
 */
export const VECTOR_SEGMENT_LIMIT = { idle: 8, busy: 64 } as const;
/** Versions younger than this are kept, so a reader that is mid-query never loses its files. */
const KEEP_VERSIONS_MS = 60_000;

const SCALAR_INDEXES: Partial<Record<TableKey, { column: string; kind: "bitmap" | "btree" }[]>> = {
  memories: [{ column: "userId", kind: "bitmap" }],
  chunks: [
    { column: "userId", kind: "bitmap" },
    { column: "conversationId", kind: "btree" },
  ],
  conversations: [
    { column: "userId", kind: "bitmap" },
    { column: "id", kind: "btree" },
  ],
  messages: [{ column: "id", kind: "btree" }],
};

const ALL_TABLES = Object.keys(TABLE) as TableKey[];

/** Whether any table is due: it stops at the first (a writing CLI command asks this as it closes). */
export async function needsMaintenance(store: Store): Promise<boolean> {
  for (const key of ALL_TABLES) if (await tableNeedsMaintenance(await store.table(key), key, VECTOR_SEGMENT_LIMIT.idle)) return true;
  return false;
}

/**
 * The tables with too many small fragments, rows their text index does not cover, a vector index
 * in too many segments, or none though they have grown into one.
 */
export async function tablesNeedingMaintenance(store: Store, segmentLimit: number = VECTOR_SEGMENT_LIMIT.idle): Promise<TableKey[]> {
  const due: TableKey[] = [];
  for (const key of ALL_TABLES) if (await tableNeedsMaintenance(await store.table(key), key, segmentLimit)) due.push(key);
  return due;
}

/**
 * Whether a table that takes many small commits is due for `compactTable`: cheap enough to run in
 * the process that writes it, right after its writes.
 */
export async function compactionDue(store: Store, key: TableKey): Promise<boolean> {
  const table = await store.table(key);
  if ((await table.stats()).fragmentStats.numSmallFragments > COMPACT_SOON.fragments) return true;
  if (!isVectorTable(key)) return false;
  return (await textIndexCoverage(table)).unindexed >= COMPACT_SOON.unindexedRows;
}

/**
 * Compacts a table, folds new rows into its indexes and drops its old versions, as a maintenance
 * run does, and creates any scalar or text index it lacks, but never a vector index: building one
 * takes seconds and hundreds of MB, for `mnemo maintain` in a process of its own.
 */
export async function compactTable(store: Store, key: TableKey): Promise<void> {
  await optimizeTable(store, key);
  await ensureIndexes(key, await store.table(key), { vector: false });
}

async function tableNeedsMaintenance(table: lancedb.Table, key: TableKey, segmentLimit: number): Promise<boolean> {
  const stats = await table.stats();
  if (stats.fragmentStats.numSmallFragments > FRAGMENT_LIMIT) return true;
  if (!isVectorTable(key)) return false;
  const segments = await segmentsOf(table, await indexOn(table, "vector"));
  if (segments > segmentLimit) return true;
  if (segments === 0 && stats.numRows >= VECTOR_INDEX_MIN_ROWS[key]) return true;
  const { indexed, unindexed } = await textIndexCoverage(table);
  return unindexed > Math.max(UNINDEXED_FLOOR, indexed * UNINDEXED_SHARE);
}

/**
 * Compacts small fragments, folds new rows into the indexes, drops old versions, and creates the
 * indexes a table has grown into. Runs beside writers: a commit conflict is retried, not fatal.
 * Compacting before creating an index spares LanceDB remapping the new index onto the compacted
 * rows: after a 290k-chunk import, 88 s and 771 MB instead of 151 s and 1,253 MB.
 */
export async function optimizeStore(
  store: Store,
  keys: TableKey[] = ALL_TABLES,
  segmentLimit: number = VECTOR_SEGMENT_LIMIT.idle,
): Promise<void> {
  // One table that keeps losing to writers (a compaction against a stream of status updates) must
  // not keep the others from being optimized; its error is reported once the rest are done.
  const failures: unknown[] = [];
  for (const key of keys) {
    await dropSegmentedVectorIndex(store, key, segmentLimit).catch((error: unknown) => failures.push(error));
    await optimizeTable(store, key).catch((error: unknown) => failures.push(error));
    await store
      .table(key)
      .then((table) => ensureIndexes(key, table))
      .catch((error: unknown) => failures.push(error));
  }
  if (failures.length > 0) throw failures[0];
}

/**
 * Compacts one table's small fragments, folds new rows into its existing indexes and drops its old
 * versions (the index worker runs it on the queue, whose status changes fragment it fast).
 */
export async function optimizeTable(store: Store, key: TableKey): Promise<void> {
  const table = await store.table(key);
  await retryOnCommitConflict(() => table.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) }));
}

/**
 * Drops a vector index that has too many segments, so that the compaction after it can merge the
 * fragments they kept apart and ensureIndexes builds it again as one. Meanwhile vector search scans
 * (160 ms at 290k chunks, against 400 ms through 388 segments). A rebuild in place (replace) kept
 * the index but took 65 s, and the compaction after it 133 s and 1.1 GB to remap it; dropping it
 * first, 4 s to compact and 51 s to build.
 */
async function dropSegmentedVectorIndex(store: Store, key: TableKey, segmentLimit: number): Promise<void> {
  if (!isVectorTable(key)) return;
  const table = await store.table(key);
  const index = await indexOn(table, "vector");
  if (!index || (await segmentsOf(table, index)) <= segmentLimit) return;
  await retryOnCommitConflict(() => table.dropIndex(index.name));
}

async function ensureIndexes(key: TableKey, table: lancedb.Table, { vector = true } = {}): Promise<void> {
  const existing = new Set((await table.listIndices()).flatMap((index) => index.columns));
  const rows = await table.countRows();
  if (isVectorTable(key)) {
    if (!existing.has("text")) await retryOnCommitConflict(() => createTextIndex(table));
    if (vector && !existing.has("vector") && rows >= VECTOR_INDEX_MIN_ROWS[key]) {
      await retryOnCommitConflict(() =>
        table.createIndex("vector", {
          config: lancedb.Index.hnswSq({ distanceType: "cosine", numPartitions: Math.ceil(rows / ROWS_PER_VECTOR_PARTITION) }),
        }),
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

function isVectorTable(key: TableKey): key is VectorTableKey {
  return (VECTOR_TABLES as readonly string[]).includes(key);
}

/** The index on `column`, if the table has one. */
export async function indexOn(table: lancedb.Table, column: string): Promise<lancedb.IndexConfig | undefined> {
  return (await table.listIndices()).find((index) => index.columns.includes(column));
}

/** An index's segments: for the vector index, one per build or per maintenance run that added rows; 0 without one. */
async function segmentsOf(table: lancedb.Table, index: lancedb.IndexConfig | undefined): Promise<number> {
  return (index && (await table.indexStats(index.name))?.numIndices) || 0;
}

async function textIndexCoverage(table: lancedb.Table): Promise<{ indexed: number; unindexed: number }> {
  const text = await indexOn(table, "text");
  const stats = text && (await table.indexStats(text.name));
  return { indexed: stats?.numIndexedRows ?? 0, unindexed: stats?.numUnindexedRows ?? 0 };
}
