import { createEmbedder } from "../../providers/create-providers.js";
import type { Embedder } from "../../providers/embedder.js";
import type { TableRows } from "../../store/rows.js";
import type { VectorTableKey } from "../../store/schema.js";
import { VECTOR_TABLES } from "../../store/schema.js";
import { sqlIn, sqlString } from "../../store/sql.js";
import type { Store } from "../../store/store.js";
import type { App } from "../app.js";
import { AppError } from "../../shared/errors.js";
import { takeReindexLock } from "../operations/reindex-lock.js";
import { runningServer } from "../operations/server-info.js";

const PAGE = 256;

export interface ReindexProgress {
  table: VectorTableKey;
  done: number;
  total: number;
}

export interface ReindexResult {
  embedderId: string;
  embedderSpec: string;
  dims: number;
  rows: Record<VectorTableKey, number>;
}

/**
 * Re-embeds every stored vector with `embedder` into a new generation of the vector tables, then
 * switches to it in one meta write. Until that write, the store keeps working on the old vectors,
 * so an interrupted reindex loses nothing; the next one starts its half-built tables afresh.
 */
export async function reindexStore(
  store: Store,
  embedder: Embedder,
  spec: string,
  onProgress: (progress: ReindexProgress) => void = () => undefined,
): Promise<ReindexResult> {
  const from = store.meta.generation;
  const to = from + 1;
  await store.createGeneration(to, embedder.dims);
  const rows = { memories: 0, chunks: 0 } as Record<VectorTableKey, number>;
  for (const key of VECTOR_TABLES) {
    rows[key] = await copyTable(store, key, from, to, embedder, onProgress);
  }
  await store.write(async () => {
    // Writes that landed while we copied: bring the new tables level, then switch.
    for (const key of VECTOR_TABLES) await catchUp(store, key, from, to, embedder);
    await store.switchGeneration(to, { embedderId: embedder.id, embedderSpec: spec, dims: embedder.dims });
  });
  await store.dropGeneration(from);
  return { embedderId: embedder.id, embedderSpec: spec, dims: embedder.dims, rows };
}

async function copyTable(
  store: Store,
  key: VectorTableKey,
  from: number,
  to: number,
  embedder: Embedder,
  onProgress: (progress: ReindexProgress) => void,
): Promise<number> {
  const total = await store.countIn(key, from, "true");
  let done = 0;
  let after = "";
  for (;;) {
    const page = await store.selectIn(key, from, after ? `id > ${sqlString(after)}` : "true", {
      orderBy: [{ column: "id", ascending: true }],
      limit: PAGE,
    });
    if (page.length === 0) return done;
    await store.addIn(key, to, await reembed(page, embedder));
    done += page.length;
    after = page[page.length - 1]!.id;
    onProgress({ table: key, done, total });
  }
}

async function catchUp(store: Store, key: VectorTableKey, from: number, to: number, embedder: Embedder): Promise<void> {
  const stamp = (row: { id: string; updatedAt?: string }) => `${row.id}@${row.updatedAt ?? ""}`;
  const columns = key === "memories" ? ["id", "updatedAt"] : ["id"];
  const [oldRows, newRows] = await Promise.all([
    store.selectIn(key, from, "true", { columns }),
    store.selectIn(key, to, "true", { columns }),
  ]);
  const oldStamps = new Set(oldRows.map(stamp));
  const newStamps = new Set(newRows.map(stamp));
  const stale = newRows.filter((row) => !oldStamps.has(stamp(row))).map((row) => row.id);
  const missing = oldRows.filter((row) => !newStamps.has(stamp(row))).map((row) => row.id);
  if (stale.length > 0) await store.deleteIn(key, to, sqlIn("id", stale));
  for (let start = 0; start < missing.length; start += PAGE) {
    const page = await store.selectIn(key, from, sqlIn("id", missing.slice(start, start + PAGE)));
    await store.addIn(key, to, await reembed(page, embedder));
  }
}

async function reembed<R extends TableRows[VectorTableKey]>(rows: R[], embedder: Embedder): Promise<R[]> {
  const vectors = await embedder.embedDocuments(rows.map((row) => row.text));
  if (vectors.length !== rows.length) throw new AppError("internal", "The embedder returned a wrong number of vectors");
  return rows.map((row, index) => ({ ...row, vector: vectors[index]! }));
}

/**
 * `mnemo reindex [--embedder spec]`: refuses while a server has the store open or another reindex
 * runs. It takes its lock before it looks for a server, and a server registers under that lock.
 */
export async function reindexApp(
  app: App,
  target: string | undefined,
  onProgress?: (progress: ReindexProgress) => void,
): Promise<ReindexResult> {
  const release = await takeReindexLock(app.config.paths.reindexLock);
  try {
    const server = runningServer(app.config.paths.serverInfo);
    if (server) {
      throw new AppError("conflict", `mnemo serve (pid ${server.pid}) has this store open`, {
        suggestion: "Stop the server, run `mnemo reindex`, then start it again.",
      });
    }
    const spec = target ?? app.context.store.meta.embedderSpec;
    const embedder = await createEmbedder(spec, app.config);
    try {
      return await reindexStore(app.context.store, embedder, spec, onProgress);
    } finally {
      await embedder.close();
    }
  } finally {
    await release().catch(() => undefined);
  }
}
