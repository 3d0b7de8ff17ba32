import { createEmbedder } from "../../providers/create-providers.js";
import type { Embedder } from "../../providers/embedder.js";
import type { TableRows } from "../../store/rows.js";
import type { VectorTableKey } from "../../store/schema.js";
import type { Store } from "../../store/store.js";
import type { App } from "../app.js";
import { AppError } from "../../shared/errors.js";
import { takeReindexLock } from "../operations/reindex-lock.js";
import { runningServer } from "../../config/server-info.js";
import { Rechunker } from "./rechunk.js";

const PAGE = 256;

export interface ReindexProgress {
  /** Memories or chunks embedded again, or conversations re-chunked. */
  what: VectorTableKey | "conversations";
  done: number;
  total: number;
}

export interface ReindexResult {
  embedderId: string;
  embedderSpec: string;
  dims: number;
  /** The store's chunk size now. */
  chunkTokens: number;
  /** Whether the conversations were cut into chunks again. */
  rechunked: boolean;
  /** False when re-chunking with the store's own embedder, which leaves the memories' vectors as they were. */
  memoriesEmbedded: boolean;
  /** Rows in the new tables. */
  rows: Record<VectorTableKey, number>;
}

export interface ReindexTarget {
  embedder: Embedder;
  /** How to load the embedder again (the meta's `embedderSpec`). */
  spec: string;
  /** Cut every conversation again into chunks of at most this many tokens; without it, the chunks are kept. */
  chunkTokens?: number | undefined;
}

/**
 * Re-embeds every stored vector with `embedder`, and with `chunkTokens` first cuts the chat history
 * into chunks of that size again, into a new generation of the vector tables, then switches to it
 * in one meta write. Until that write the store keeps working on the old vectors and chunks, so an
 * interrupted reindex loses nothing; the next one starts its half-built tables afresh. Re-chunking
 * with the store's own embedder embeds only the chunks whose text changed, and no memory.
 */
export async function reindexStore(
  store: Store,
  target: ReindexTarget,
  onProgress: (progress: ReindexProgress) => void = () => undefined,
): Promise<ReindexResult> {
  const { embedder, spec, chunkTokens } = target;
  const from = store.meta.generation;
  const to = from + 1;
  const sameEmbedder = embedder.id === store.meta.embedderId && embedder.dims === store.meta.dims;
  const memoriesEmbedded = chunkTokens === undefined || !sameEmbedder;
  const vectors: Revector = memoriesEmbedded ? (rows) => reembed(rows, embedder) : async (rows) => rows;
  const rechunker =
    chunkTokens === undefined ? undefined : new Rechunker(store, { from, to, maxTokens: chunkTokens, embedder, sameEmbedder });
  await store.createGeneration(to, embedder.dims);
  await copyTable(store, "memories", from, to, vectors, onProgress);
  if (rechunker) await rechunker.copyAll((done, total) => onProgress({ what: "conversations", done, total }));
  else await copyTable(store, "chunks", from, to, vectors, onProgress);
  const made = { embedderId: embedder.id, embedderSpec: spec, dims: embedder.dims, chunkTokens: chunkTokens ?? store.meta.chunkTokens };
  const rows = await store.write(async () => {
    // Writes that landed while we copied: bring the new tables level, then switch.
    await catchUp(store, "memories", from, to, vectors);
    if (rechunker) await rechunker.catchUp();
    else await catchUp(store, "chunks", from, to, vectors);
    const counts = { memories: await store.countIn("memories", to, {}), chunks: await store.countIn("chunks", to, {}) };
    await store.switchGeneration(to, made);
    return counts;
  });
  await store.dropGeneration(from);
  return { ...made, rechunked: rechunker !== undefined, memoriesEmbedded, rows };
}

/** Gives copied rows their vectors in the new generation: the embedder's, or the ones they have. */
type Revector = <R extends TableRows[VectorTableKey]>(rows: R[]) => Promise<R[]>;

async function copyTable(
  store: Store,
  key: VectorTableKey,
  from: number,
  to: number,
  vectors: Revector,
  onProgress: (progress: ReindexProgress) => void,
): Promise<void> {
  const total = await store.countIn(key, from, {});
  let done = 0;
  for await (const page of store.pagesById(key, { size: PAGE, generation: from })) {
    await store.addIn(key, to, await vectors(page));
    done += page.length;
    onProgress({ what: key, done, total });
  }
}

async function catchUp(store: Store, key: VectorTableKey, from: number, to: number, vectors: Revector): Promise<void> {
  const stamp = (row: { id: string; updatedAt?: string }) => `${row.id}@${row.updatedAt ?? ""}`;
  const columns = key === "memories" ? ["id", "updatedAt"] : ["id"];
  const [oldRows, newRows] = await Promise.all([store.selectIn(key, from, {}, { columns }), store.selectIn(key, to, {}, { columns })]);
  const oldStamps = new Set(oldRows.map(stamp));
  const newStamps = new Set(newRows.map(stamp));
  const stale = newRows.filter((row) => !oldStamps.has(stamp(row))).map((row) => row.id);
  const missing = oldRows.filter((row) => !newStamps.has(stamp(row))).map((row) => row.id);
  if (stale.length > 0) await store.deleteIn(key, to, { id: stale });
  for (let start = 0; start < missing.length; start += PAGE) {
    const page = await store.selectIn(key, from, { id: missing.slice(start, start + PAGE) });
    await store.addIn(key, to, await vectors(page));
  }
}

async function reembed<R extends TableRows[VectorTableKey]>(rows: R[], embedder: Embedder): Promise<R[]> {
  const vectors = await embedder.embedDocuments(rows.map((row) => row.text));
  if (vectors.length !== rows.length) throw new AppError("internal", "The embedder returned a wrong number of vectors");
  return rows.map((row, index) => ({ ...row, vector: vectors[index]! }));
}

export interface ReindexRequest {
  /** Cut the chat history into chunks again, of the size config.json's `chunkTokens` sets. */
  rechunk?: boolean | undefined;
}

/**
 * `mnemo reindex [--embedder spec] [--rechunk]`: the embedder the config names (else the
 * store's own). Refuses while a server has the store open or another reindex runs. It takes its
 * lock before it looks for a server, and a server registers under that lock.
 */
export async function reindexApp(
  app: App,
  request: ReindexRequest,
  onProgress?: (progress: ReindexProgress) => void,
): Promise<ReindexResult> {
  const { config } = app;
  const chunkTokens = request.rechunk ? config.chunkTokens : undefined;
  const release = await takeReindexLock(config.paths.reindexLock);
  try {
    const server = runningServer(config.paths.serverInfo);
    if (server) {
      throw new AppError("conflict", `mnemo serve (pid ${server.pid}) has this store open`, {
        suggestion: "Stop the server, run `mnemo reindex`, then start it again.",
      });
    }
    const spec = config.embedder === "auto" ? app.context.store.meta.embedderSpec : config.embedder;
    const embedder = await createEmbedder(spec, config);
    try {
      return await reindexStore(app.context.store, { embedder, spec, chunkTokens }, onProgress);
    } finally {
      await embedder.close();
    }
  } finally {
    await release().catch(() => undefined);
  }
}
