import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { StoreInfo } from "../../schemas/account.js";
import type { ConversationRow } from "../../store/rows.js";
import { isRemoteUri } from "../../config/paths.js";
import type { CoreContext } from "../context.js";
import { chunkSizes } from "../chat-history/chunking.js";
import { besideMemoryJournal, notYetStored } from "../memories/pending-memories.js";
import { rerankerInUse } from "../../providers/create-providers.js";

type Statistics = StoreInfo["statistics"];

/** GET /api/info: the providers the store runs with, where it lives, and what the user has in it. */
export async function storeInfo(ctx: CoreContext, userId: string, userName: string): Promise<StoreInfo> {
  const { config, store } = ctx;
  return {
    user: userName,
    version: packageVersion(),
    dataDir: config.paths.dataDir,
    storeUri: config.storeUri,
    embedder: { id: store.meta.embedderId, spec: store.meta.embedderSpec, dims: store.meta.dims },
    chunks: chunkSizes(store.meta.chunkTokens, config.chunkTokens),
    reranker: await rerankerInUse(config),
    synthesizer: ctx.synthesizer.id,
    statistics: await statisticsWithJournal(ctx, userId),
    cacheBytes: store.cacheBytes(),
  };
}

/**
 * The memories still in the journal are counted beside the table's rows, as the buckets' counts do:
 * absorbing them first meant waiting for the write lock and embedding another process's records
 * (`mnemo info` in the middle of a server's burst of stores waited for the burst's end).
 */
function statisticsWithJournal(ctx: CoreContext, userId: string): Promise<Statistics> {
  return besideMemoryJournal(
    ctx,
    userId,
    async (pending, moved) => {
      const stored = await ctx.store.memo(`statistics:${userId}`, ["memories", "buckets", "conversations", "platforms"], () =>
        statistics(ctx, userId),
      );
      return { ...stored, memories: stored.memories + (await notYetStored(ctx, pending, moved)).length };
    },
    "rows",
  );
}

async function statistics(ctx: CoreContext, userId: string): Promise<Statistics> {
  const { store } = ctx;
  const mine = { userId };
  // One column scan of the conversations (20,000 rows: a few ms) gives every count but the memories'.
  const [memories, imageMemories, buckets, rows, platforms, diskBytes] = await Promise.all([
    store.count("memories", mine),
    store.count("memories", { userId, contentType: "image" }),
    store.count("buckets", mine),
    store.select("conversations", mine, { columns: ["platform", "status", "excluded", "pinned", "messageCount", "tokenCount"] }) as Promise<
      Pick<ConversationRow, "platform" | "status" | "excluded" | "pinned" | "messageCount" | "tokenCount">[]
    >,
    store.select("platforms", mine, { columns: ["id", "displayName"] }),
    dataDirBytes(ctx),
  ]);
  const byStatus = { queued: 0, processing: 0, ready: 0, failed: 0, rejected: 0 };
  const perPlatform = new Map<string, number>();
  let messages = 0;
  let tokens = 0;
  for (const row of rows) {
    byStatus[row.status]++;
    messages += row.messageCount;
    tokens += row.tokenCount;
    perPlatform.set(row.platform, (perPlatform.get(row.platform) ?? 0) + 1);
  }
  return {
    memories,
    imageMemories,
    buckets,
    conversations: rows.length,
    messages,
    tokens,
    byStatus,
    excluded: rows.filter((row) => row.excluded).length,
    pinned: rows.filter((row) => row.pinned).length,
    platforms: platforms
      .map((row) => ({
        id: row.id,
        ...(row.displayName ? { displayName: row.displayName } : {}),
        conversations: perPlatform.get(row.id) ?? 0,
      }))
      .sort((a, b) => b.conversations - a.conversations),
    diskBytes,
  };
}

/** The bytes of every file under the local data dir; null when the database lives in object storage. */
async function dataDirBytes(ctx: CoreContext): Promise<number | null> {
  if (isRemoteUri(ctx.config.storeUri)) return null;
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(
      entries.map(async (entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return walk(full);
        const { size } = await fs.promises.stat(full).catch(() => ({ size: 0 }));
        total += size; // after the await: `total += await …` would add to a total read before it
      }),
    );
  };
  await walk(ctx.config.paths.dataDir);
  return total;
}

let version: string | undefined;
function packageVersion(): string {
  version ??= (createRequire(import.meta.url)("../../../package.json") as { version: string }).version;
  return version;
}
