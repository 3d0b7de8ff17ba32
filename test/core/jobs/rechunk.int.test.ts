import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as lancedb from "@lancedb/lancedb";
import { describe, expect, it } from "vitest";
import { CHUNK_TOKENS } from "../../../src/config/chunk-size.js";
import type { App, MnemoService } from "../../../src/core/index.js";
import { exportUser } from "../../../src/core/jobs/export.js";
import { reindexApp, reindexStore } from "../../../src/core/jobs/reindex.js";
import { restoreExport } from "../../../src/core/jobs/restore.js";
import { openMnemoExport } from "../../../src/importers/mnemo-export.js";
import { createEmbedder } from "../../../src/providers/create-providers.js";
import type { Embedder } from "../../../src/providers/embedder.js";
import type { ChunkRow } from "../../../src/store/rows.js";
import { chatAbout, openAppWithChats, openTestApp, settled, TINY_BERT, tempDir } from "../../helpers.js";

const CHATS = [chatAbout("bread", "sourdough starter"), chatAbout("bikes", "derailleur tuning"), chatAbout("tea", "oolong brewing")];

async function liveChunks(app: App): Promise<ChunkRow[]> {
  return app.context.store.select("chunks", "true");
}

/** Each conversation's message ids, as its chunks hold them, in order. */
function messagesByConversation(chunks: ChunkRow[]): Record<string, string[]> {
  const byId: Record<string, string[]> = {};
  for (const chunk of [...chunks].sort((a, b) => a.chunkIndex - b.chunkIndex)) {
    const ids = (byId[chunk.conversationId] ??= []);
    for (const id of chunk.messageIds) if (ids[ids.length - 1] !== id) ids.push(id);
  }
  return byId;
}

const largest = (chunks: ChunkRow[]) => Math.max(...chunks.map((chunk) => chunk.tokenCount));

/** Search's first hit for a topic's secret, and whether it holds it. */
async function topHit(service: MnemoService, topic: string) {
  const [hit] = (await service.search({ query: `${topic} secret` })).results;
  return { conversationId: hit?.conversationId, holds: hit?.text.includes(`The ${topic} secret is patience`) ?? false };
}

/** The store's id of the conversation uploaded with this platform id. */
async function idOf(app: App, platformId: string): Promise<string> {
  const rows = await app.context.store.select("conversations", `platformConversationId = '${platformId}'`, { columns: ["id"] });
  return rows[0]!.id;
}

async function chunksOf(app: App, platformId: string): Promise<ChunkRow[]> {
  const id = await idOf(app, platformId);
  return (await liveChunks(app)).filter((chunk) => chunk.conversationId === id);
}

/** The app closed, config.json given these settings, and the store opened again (its index worker running), as a user would. */
async function reopen(app: App, settings: Record<string, unknown>): Promise<{ app: App; service: MnemoService }> {
  const dataDir = app.config.paths.dataDir;
  await app.close();
  fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify(settings));
  const reopened = await openTestApp({ store: dataDir });
  reopened.indexer.start();
  return { app: reopened, service: await reopened.service() };
}

describe("mnemo reindex --rechunk", () => {
  it("the size set takes effect at the re-chunk: every conversation cut again, ids kept, the same text found, memories left as they were", async () => {
    const first = await openAppWithChats(CHATS);
    await first.service.memories.store({ text: "my sister lives in Porto" });
    expect(first.app.context.store.meta.chunkTokens).toBe(CHUNK_TOKENS.default);
    const { app, service } = await reopen(first.app, { chunkTokens: 48 });
    const { store } = app.context;

    // Until the re-chunk the store keeps its size, for what comes in too, and says so.
    expect((await service.info()).chunks).toEqual({
      tokens: 192,
      setting: 48,
      note: "The chat history is cut into chunks of up to 192 tokens, but config.json's chunkTokens is 48: `mnemo reindex --rechunk` cuts it again (until then new conversations are cut at 192 too)",
    });
    await service.conversations.upload(chatAbout("kites", "kite flying"));
    await settled(service);
    expect(largest(await chunksOf(app, "kites"))).toBeGreaterThan(48);

    const before = await liveChunks(app);
    const conversationIds = (await store.select("conversations", "true", { columns: ["id"] })).map((row) => row.id).sort();
    const memoryBefore = (await store.select("memories", "true"))[0]!;
    const found = await topHit(service, "sourdough starter");
    expect(found.holds).toBe(true);

    const progress: string[] = [];
    const result = await reindexApp(app, { rechunk: true }, ({ what, done, total }) => progress.push(`${what} ${done}/${total}`));
    expect(result).toMatchObject({ rechunked: true, memoriesEmbedded: false, chunkTokens: 48, embedderId: "bundled" });
    expect(progress).toEqual(["memories 1/1", "conversations 4/4"]);
    expect(store.meta).toMatchObject({ chunkTokens: 48, generation: 1, embedderId: "bundled" });
    expect((await service.info()).chunks).toEqual({ tokens: 48, setting: 48 });

    const after = await liveChunks(app);
    expect(result.rows).toEqual({ memories: 1, chunks: after.length });
    expect(after.length).toBeGreaterThan(before.length);
    expect(largest(after)).toBeLessThanOrEqual(48);
    // Every message is in the new chunks, in order, of the same conversations.
    expect(messagesByConversation(after)).toEqual(messagesByConversation(before));
    expect((await store.select("conversations", "true", { columns: ["id"] })).map((row) => row.id).sort()).toEqual(conversationIds);
    expect(await topHit(service, "sourdough starter")).toEqual(found);
    expect((await topHit(service, "kite flying")).holds).toBe(true);
    // Re-chunking with the store's own embedder leaves the memories' vectors as they were.
    const memoryAfter = (await store.select("memories", "true"))[0]!;
    expect(memoryAfter.id).toBe(memoryBefore.id);
    expect([...memoryAfter.vector]).toEqual([...memoryBefore.vector]);
    expect(await service.memories.list({ query: "where does my sister live", v: 1 })).toContain("my sister lives in Porto");

    // What comes in afterwards is cut at the store's new size.
    await service.conversations.upload(chatAbout("kayaks", "kayak rolling"));
    await settled(service);
    const kayaks = await chunksOf(app, "kayaks");
    expect(kayaks.length).toBeGreaterThan(2);
    expect(largest(kayaks)).toBeLessThanOrEqual(48);
    await app.close();
  });

  it("with another embedder at once: the new chunks and the memories embedded by it", async () => {
    const { app, service } = await openAppWithChats([chatAbout("bread", "sourdough starter")]);
    await service.memories.store({ text: "my sister lives in Porto" });
    const tiny = await createEmbedder(`transformers:${TINY_BERT}`, app.config);
    const result = await reindexStore(app.context.store, { embedder: tiny, spec: `transformers:${TINY_BERT}`, chunkTokens: 64 });
    await tiny.close();
    expect(result).toMatchObject({ rechunked: true, memoriesEmbedded: true, chunkTokens: 64, dims: 32 });
    expect(app.context.store.meta).toMatchObject({ chunkTokens: 64, dims: 32, embedderSpec: `transformers:${TINY_BERT}` });
    const chunks = await liveChunks(app);
    expect(largest(chunks)).toBeLessThanOrEqual(64);
    expect(chunks.every((chunk) => chunk.vector.length === 32)).toBe(true);
    expect((await app.context.store.select("memories", "true"))[0]!.vector).toHaveLength(32);
    await app.close();
  });

  it("takes a store made before the chunk size was recorded as chunked at 192 tokens", async () => {
    const { app } = await openAppWithChats([chatAbout("bread", "sourdough starter", 2)]);
    const dataDir = app.config.paths.dataDir;
    await app.close();
    const db = await lancedb.connect(path.join(dataDir, "db"));
    const meta = await db.openTable("meta");
    await meta.delete("key = 'chunkTokens'");
    meta.close();
    db.close();
    const reopened = await openTestApp({ store: dataDir });
    expect(reopened.context.store.meta.chunkTokens).toBe(192);
    await reopened.close();
  });

  it("interrupted, it changes nothing: the store keeps its chunks, its size and its search; run again, it completes", async () => {
    const { app, service } = await openAppWithChats(CHATS);
    const { store } = app.context;
    const before = (await liveChunks(app)).map((chunk) => chunk.id).sort();
    const found = await topHit(service, "derailleur tuning");
    expect(found.holds).toBe(true);
    const real = await createEmbedder("bundled", app.config);
    const crashing: Embedder = {
      ...real,
      embedDocuments: async () => {
        throw new Error("power cut");
      },
    };
    await expect(reindexStore(store, { embedder: crashing, spec: "bundled", chunkTokens: 48 })).rejects.toThrow("power cut");
    expect(store.meta).toMatchObject({ chunkTokens: CHUNK_TOKENS.default, generation: 0 });
    expect((await liveChunks(app)).map((chunk) => chunk.id).sort()).toEqual(before);
    expect(await topHit(service, "derailleur tuning")).toEqual(found);
    // A later run starts the half-built tables afresh and completes.
    await reindexStore(store, { embedder: real, spec: "bundled", chunkTokens: 48 });
    expect(store.meta.chunkTokens).toBe(48);
    expect(largest(await liveChunks(app))).toBeLessThanOrEqual(48);
    expect(await topHit(service, "derailleur tuning")).toEqual(found);
    await real.close();
    await app.close();
  });

  it("brings in what changed while it copied: a conversation excluded, one deleted, one uploaded", async () => {
    const { app, service } = await openAppWithChats(CHATS);
    const { store } = app.context;
    const real = await createEmbedder("bundled", app.config);
    let changed = false;
    const changing: Embedder = {
      ...real,
      embedDocuments: async (texts) => {
        if (!changed) {
          changed = true;
          await service.conversations.exclude({ ids: [await idOf(app, "tea")], excluded: true });
          await service.conversations.delete({ ids: [await idOf(app, "bikes")] });
          await service.conversations.upload(chatAbout("kites", "kite flying"));
          await settled(service); // indexed by the app's worker, at the old size, into the live tables
        }
        return real.embedDocuments(texts);
      },
    };
    await reindexStore(store, { embedder: changing, spec: "bundled", chunkTokens: 48 });
    expect(changed).toBe(true);
    const after = await liveChunks(app);
    expect(largest(after)).toBeLessThanOrEqual(48);
    const byConversation = new Map<string, ChunkRow[]>();
    for (const chunk of after) byConversation.set(chunk.conversationId, [...(byConversation.get(chunk.conversationId) ?? []), chunk]);
    expect(byConversation.has(await idOf(app, "bread"))).toBe(true);
    expect(byConversation.get(await idOf(app, "tea"))!.every((chunk) => !chunk.active)).toBe(true);
    expect(byConversation.size).toBe(3); // bread, tea (inactive), kites: bikes is gone
    expect((await topHit(service, "kite flying")).holds).toBe(true);
    expect((await topHit(service, "oolong brewing")).holds).toBe(false);
    await real.close();
    await app.close();
  });

  it("an export's chunks go into a store of their size as they are, and are cut again in a store of another", async () => {
    const { app, service } = await openAppWithChats(CHATS);
    await service.memories.store({ text: "my sister lives in Porto" });
    const file = path.join(tempDir(), "export.jsonl");
    const lines = await exportUser(app.context, (await app.users.resolve("default")).id);
    await pipeline(Readable.from(lines), fs.createWriteStream(file));
    const exported = await liveChunks(app);
    await app.close();

    for (const chunkTokens of [192, 48]) {
      const { app: target, service: targetService } = await openAppWithChats([], { chunkTokens });
      const summary = await restoreExport(target.context, file, await openMnemoExport(file));
      expect(summary).toMatchObject({ vectors: "carried", chunks: chunkTokens === 192 ? "carried" : "recomputed" });
      expect(summary.queued).toBe(chunkTokens === 192 ? 0 : CHATS.length);
      await settled(targetService);
      const restored = await liveChunks(target);
      if (chunkTokens === 192) expect(restored.map((chunk) => chunk.id).sort()).toEqual(exported.map((chunk) => chunk.id).sort());
      else expect(largest(restored)).toBeLessThanOrEqual(48);
      expect(messagesByConversation(restored)).toEqual(messagesByConversation(exported));
      expect((await topHit(targetService, "oolong brewing")).holds).toBe(true);
      await target.close();
    }
  });
});
