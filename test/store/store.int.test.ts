import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { makeArrowTable } from "@lancedb/lancedb";
import { Field, Schema, Utf8 } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/shared/errors.js";
import { reindexStore } from "../../src/core/jobs/reindex.js";
import { CHUNK_TOKENS } from "../../src/config/chunk-size.js";
import type { Embedder } from "../../src/providers/embedder.js";
import { createEmbedder } from "../../src/providers/create-providers.js";
import { fromArrowTable } from "../../src/store/convert.js";
import { SCHEMA_VERSION } from "../../src/store/migrations.js";
import { tableSchema } from "../../src/store/schema.js";
import {
  FRAGMENT_LIMIT,
  tablesNeedingMaintenance,
  UNINDEXED_FLOOR,
  VECTOR_INDEX_MIN_ROWS,
  VECTOR_SEGMENT_LIMIT,
} from "../../src/store/maintenance.js";
import { hybridSearch } from "../../src/core/retrieval/hybrid-search.js";
import { readRows } from "../../src/store/search.js";
import type { Store } from "../../src/store/store.js";
import { Maintenance } from "../../src/core/operations/maintenance.js";
import { takeProcessLock } from "../../src/store/process-lock.js";
import { isolatedEnv, openTestApp, runCli, settled, tempDir, TINY_BERT } from "../helpers.js";

/**
 * Writes one at a time, each a small fragment of its own: more than a table may gather before it is
 * due. Not many more: each is a commit of its own, ~50 ms of CPU.
 */
const MANY_WRITES = FRAGMENT_LIMIT + 8;

async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("the store", () => {
  it("records its schema version and embedder in meta", async () => {
    const app = await openTestApp();
    expect(app.context.store.meta).toMatchObject({
      schemaVersion: SCHEMA_VERSION,
      embedderId: "bundled",
      embedderSpec: "bundled",
      dims: 512,
      chunkTokens: CHUNK_TOKENS.default,
      generation: 0,
    });
    await app.close();
  });

  it("refuses a folder that is not a mnemo store and leaves it untouched", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "thesis.docx"), "precious");
    const error = await failure(openTestApp({ store: dir }));
    expect(error.code, "a bad --store: exit 2").toBe("invalid_input");
    expect(error.message).toMatch(/is not a mnemo store/);
    expect(error.suggestion).toMatch(/--store/);
    expect(fs.readdirSync(dir)).toEqual(["thesis.docx"]);
  });

  it("says which folder it cannot make, where a file system answers ENOENT for a parent that exists (Node's recursive mkdir spun there)", async () => {
    const error = await failure(openTestApp({ store: "/proc/mnemo-no-store/here" }));
    expect(error.message).toBe("Cannot make the store's folder /proc/mnemo-no-store/here: /proc/mnemo-no-store cannot be created (ENOENT)");
    expect(error.suggestion).toMatch(/--store/);
  });

  it("makes a new data dir readable by its owner only", async () => {
    const store = path.join(tempDir(), "new", "store");
    const app = await openTestApp({ store });
    await app.close();
    expect(fs.statSync(store).mode & 0o777).toBe(0o700);

    const empty = tempDir();
    fs.chmodSync(empty, 0o755);
    await (await openTestApp({ store: empty })).close();
    expect(fs.statSync(empty).mode & 0o777).toBe(0o700); // an empty folder made into a store, too
  });

  it("refuses to open a store with another embedder, naming the fix", async () => {
    const store = path.join(tempDir(), "store");
    const first = await openTestApp({ store });
    await (await first.service()).memories.store({ text: "kept safe" });
    await first.close();
    const error = await failure(openTestApp({ store, embedder: `transformers:${TINY_BERT}` }));
    expect(error.code).toBe("store_mismatch");
    expect(error.message).toMatch(/made by bundled/);
    expect(error.suggestion).toMatch(/mnemo reindex --embedder transformers:/);
    const again = await openTestApp({ store, embedder: "auto" });
    expect(await (await again.service()).memories.list({ v: 1 })).toEqual(["kept safe"]);
    await again.close();
  });

  // Seconds: the 3 s it gives a hub that does not answer. Before, it waited 15 s (the download's
  // deadline), and the first import into a new store stored nothing meanwhile.
  it("auto takes the bundled model after 3 s of a hub that does not answer, says why, and the store works", async () => {
    const silent = net.createServer(() => undefined); // takes the connection, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const before = process.env["HF_ENDPOINT"];
    process.env["HF_ENDPOINT"] = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/`;
    try {
      const notices: string[] = [];
      const store = path.join(tempDir(), "store");
      const app = await openTestApp({ store, embedder: "auto" }, { onNotice: (n) => notices.push(n) }, isolatedEnv({ MNEMO_MODELS: "" }));
      expect(app.context.store.meta).toMatchObject({ embedderSpec: "bundled", dims: 512 });
      expect(notices.join()).toMatch(
        /Xenova\/all-MiniLM-L6-v2 is not downloaded and 127\.0\.0\.1:\d+ did not answer \(no response from .* within 3s\)/,
      );
      const service = await app.service();
      await service.memories.store({ text: "The spare key is under the blue flowerpot" });
      expect((await service.memories.list({ v: 1, query: "where is the key" }))[0]).toMatch(/blue flowerpot/);
      await app.close();
    } finally {
      if (before === undefined) delete process.env["HF_ENDPOINT"];
      else process.env["HF_ENDPOINT"] = before;
      silent.close();
    }
  }, 60_000);

  it("auto picks the default transformers model when it is cached, else the bundled one, and records it", async () => {
    const offline = path.join(tempDir(), "store");
    fs.mkdirSync(offline, { recursive: true });
    fs.writeFileSync(path.join(offline, "config.json"), JSON.stringify({ allowDownload: false }));
    const notices: string[] = [];
    const first = await openTestApp({ store: offline, embedder: "auto" }, { onNotice: (n) => notices.push(n) });
    expect(first.context.store.meta.embedderSpec).toBe("bundled");
    // Downloads are off here: the notice says so, and how to have the model, rather than that a download failed.
    expect(notices.join()).toMatch(
      /uses the bundled embedder \(Xenova\/all-MiniLM-L6-v2 is not in .*Xenova\/all-MiniLM-L6-v2 and downloads are off \(allowDownload: false in config\.json\); .*set allowDownload to true or put its files in that folder/,
    );
    expect(notices.join()).not.toMatch(/could not be downloaded/);
    await first.close();

    const cached = path.join(tempDir(), "store");
    fs.cpSync(TINY_BERT, path.join(cached, "models", "Xenova", "all-MiniLM-L6-v2"), { recursive: true });
    fs.writeFileSync(path.join(cached, "config.json"), JSON.stringify({ allowDownload: false }));
    // Without $MNEMO_MODELS: in the data dir's own models folder, where a store keeps them by default.
    const second = await openTestApp({ store: cached, embedder: "auto" }, {}, isolatedEnv({ MNEMO_MODELS: "" }));
    expect(second.context.store.meta).toMatchObject({
      embedderSpec: "transformers:Xenova/all-MiniLM-L6-v2",
      embedderId: "transformers:Xenova/all-MiniLM-L6-v2",
      dims: 32,
    });
    await second.close();
  });

  it("uses a transformers model from a local folder, offline", async () => {
    const app = await openTestApp({ embedder: `transformers:${TINY_BERT}` });
    expect(app.context.store.meta.embedderId).toMatch(/^transformers:tiny-bert-/);
    expect(app.context.store.meta.dims).toBe(32);
    const service = await app.service();
    await service.memories.storeMany([{ text: "the cat sat on the mat" }, { text: "stock markets fell sharply today" }]);
    const [top] = await service.memories.list({ query: "cat on a mat", v: 1 });
    expect(top).toBe("the cat sat on the mat");
    await app.close();
  });

  it("a loaded embedder given to the app serves a new store that chooses it and outlives the app; another choice loads its own", async () => {
    const probe = await openTestApp();
    const loaded = await createEmbedder("bundled", probe.config);
    await probe.close();
    try {
      // auto, offline: the bundled model it falls back to is the one given.
      const offline = path.join(tempDir(), "store");
      fs.mkdirSync(offline, { recursive: true });
      fs.writeFileSync(path.join(offline, "config.json"), JSON.stringify({ allowDownload: false }));
      const app = await openTestApp({ store: offline, embedder: "auto" }, { embedder: loaded });
      expect(app.context.store.meta.embedderSpec).toBe("bundled");
      expect(app.context.embedder.embedQuery).toBe(loaded.embedQuery);
      await (await app.service()).memories.store({ text: "the cat sat on the mat" });
      await app.close();
      expect(await loaded.embedQuery("still open")).toHaveLength(512);

      const other = await openTestApp({ embedder: `transformers:${TINY_BERT}` }, { embedder: loaded });
      expect(other.context.store.meta.dims).toBe(32);
      expect(other.context.embedder.embedQuery).not.toBe(loaded.embedQuery);
      await other.close();
    } finally {
      await loaded.close();
    }
  });
});

describe("LanceDB's caches", () => {
  it("are the store's bounded session: a search after many writes fills them", async () => {
    const app = await openTestApp();
    const service = await app.service();
    const { store } = app.context;
    for (let i = 0; i < MANY_WRITES; i++) await service.memories.store({ text: `single write ${i}` });
    await service.memories.store({ text: "The lighthouse keeper feeds the gulls at dawn" });
    const [top] = await service.memories.list({ query: "who feeds the gulls?", v: 1 });
    expect(top).toBe("The lighthouse keeper feeds the gulls at dawn");
    // A session LanceDB does not use reports nothing cached (0.37 ignored the one mnemo gave it).
    expect(store.cacheBytes()).toBeGreaterThan(0);
    expect(store.cacheBytes()).toBeLessThanOrEqual(576 * 1024 * 1024);
    expect((await service.memories.list({ all: true, v: 1 })).length).toBe(MANY_WRITES + 1);
    await app.close();
  });

  it("start afresh on renewCaches; the old connection closes once its queries have had time to finish", async () => {
    const app = await openTestApp();
    const service = await app.service();
    const { store } = app.context;
    for (let i = 0; i < 30; i++) await service.memories.store({ text: `note ${i} about the garden` });
    await service.memories.list({ query: "garden", v: 1 });
    const before = store.cacheBytes();
    const old = await store.table("memories");
    const renewed = store.renewCaches(300);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.cacheBytes()).toBeLessThan(before);
    expect(old.isOpen()).toBe(true); // a query started on it may still be running
    await renewed;
    expect(old.isOpen()).toBe(false);
    expect(await store.table("memories")).not.toBe(old);
    expect((await service.memories.list({ query: "note 7 about the garden", v: 1 }))[0]).toBe("note 7 about the garden");
    await app.close();
  });
});

describe("a panic inside LanceDB", () => {
  const PANIC = 'Failed to get next batch from stream: task 7 panicked with message "a fault that passes"';

  it("on a read is tried once more before the table is called damaged, and a panic every time is damage", async () => {
    const app = await openTestApp();
    const { store } = app.context;
    let calls = 0;
    const count = await store.guard("memories", async (table) => {
      if (++calls === 1) throw new Error(PANIC);
      return table.countRows();
    });
    expect([count, calls]).toEqual([0, 2]);
    expect(await store.guard("memories", (table) => table.countRows())).toBe(0); // not recorded as damage
    const always = store.guard("memories", async () => {
      throw new Error(PANIC);
    });
    await expect(always).rejects.toMatchObject({ table: "memories", what: expect.stringMatching(/cannot be decoded/) });
    await app.close();
  });

  it("in a write section is not tried twice: what it wrote may have been written", async () => {
    const app = await openTestApp();
    const { store } = app.context;
    let calls = 0;
    const write = store.write(() =>
      store.guard("memories", async () => {
        calls++;
        throw new Error(PANIC);
      }),
    );
    await expect(write).rejects.toMatchObject({ what: expect.stringMatching(/cannot be decoded/) });
    expect(calls).toBe(1);
    await app.close();
  });
});

describe("migrations", () => {
  /** Rewrites a current store into schema 1's shape: each conversation's messages in its own row. */
  async function downgradeToSchema1(store: string): Promise<void> {
    const db = await lancedb.connect(path.join(store, "db"));
    const conversations = fromArrowTable(await (await db.openTable("conversations")).query().toArrow());
    const messages = await (await db.openTable("conversation_messages")).query().toArray();
    const byId = new Map(messages.map((row) => [row.id as string, row.messagesJson as string]));
    const oldRows = conversations.map((row) => ({ ...row, messagesJson: byId.get(`${row.id}:${row.revision}`)! }));
    const oldSchema = new Schema([...tableSchema("conversations", 512).fields, new Field("messagesJson", new Utf8(), false)]);
    await db.dropTable("conversations");
    await db.dropTable("conversation_messages");
    await db.createTable("conversations", makeArrowTable(oldRows, { schema: oldSchema }));
    const meta = await db.openTable("meta");
    await meta.update({ where: "key = 'schemaVersion'", values: { value: "1" } });
    db.close();
  }

  it("brings a schema-1 store forward: messages move to their own table, nothing is lost", async () => {
    const store = path.join(tempDir(), "store");
    const first = await openTestApp({ store });
    first.indexer.start();
    const before = await first.service();
    const upload = (messages: { id: string; role: "human" | "assistant"; content: string }[]) => ({
      conversation: { id: "trip", title: "Lisbon trip", createdAt: "2024-05-01T10:00:00Z", messages },
    });
    const { conversationId } = await before.conversations.upload(
      upload([
        { id: "m1", role: "human", content: "Which tram goes up to the castle in Lisbon?" },
        { id: "m2", role: "assistant", content: "Tram 28 passes close to São Jorge castle." },
      ]),
    );
    await settled(before);
    const detail = await before.conversations.get(conversationId);
    await first.close();

    await downgradeToSchema1(store);
    const second = await openTestApp({ store });
    second.indexer.start();
    const after = await second.service();
    expect(second.context.store.meta.schemaVersion).toBe(SCHEMA_VERSION);
    expect((await (await second.context.store.table("conversations")).schema()).fields.map((f) => f.name)).not.toContain("messagesJson");
    expect(await after.conversations.get(conversationId)).toEqual(detail);
    expect((await after.search({ query: "tram castle" })).results[0]?.conversationId).toBe(conversationId);

    // The migrated conversation takes a re-upload like any other: merged, re-indexed, one messages row.
    const again = await after.conversations.upload(upload([{ id: "m3", role: "human", content: "And a pastel de nata near Belém?" }]));
    expect(again.change).toBe("updated");
    await settled(after);
    expect((await after.conversations.get(conversationId)).messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect(await second.context.store.count("messages", "true")).toBe(1);
    await second.close();
  });
});

describe("reindex", () => {
  it("re-embeds every memory and chunk with a new embedder and switches in one step", async () => {
    const app = await openTestApp();
    app.indexer.start();
    const service = await app.service();
    await service.memories.storeMany([{ text: "the cat sat on the mat" }, { text: "stock markets fell sharply today" }]);
    await service.conversations.upload({
      conversation: {
        id: "c",
        title: "Garden",
        createdAt: "2024-01-01T00:00:00Z",
        messages: [{ id: "1", role: "human", content: "the garden needs water" }],
      },
    });
    await settled(service);
    const embedder = await createEmbedder(`transformers:${TINY_BERT}`, app.config);
    const result = await reindexStore(app.context.store, { embedder, spec: `transformers:${TINY_BERT}` });
    await embedder.close();
    expect(result.rows).toEqual({ memories: 2, chunks: 1 });
    expect(app.context.store.meta).toMatchObject({ generation: 1, dims: 32, embedderSpec: `transformers:${TINY_BERT}` });
    await app.close();

    const reopened = await openTestApp({ store: app.config.paths.dataDir, embedder: "auto" });
    const [top] = await (await reopened.service()).memories.list({ query: "markets fell", v: 1 });
    expect(top).toBe("stock markets fell sharply today");
    expect((await (await reopened.service()).search({ query: "garden water" })).results[0]?.title).toBe("Garden");
    await reopened.close();
    const db = await lancedb.connect(path.join(app.config.paths.dataDir, "db"));
    expect(await db.tableNames()).not.toContain("memories");
    db.close();
  });

  it("interrupted, it leaves the store working on the old vectors", async () => {
    const app = await openTestApp();
    const service = await app.service();
    await service.memories.storeMany(Array.from({ length: 300 }, (_, i) => ({ text: `memory ${i} about gardening` })));
    const real = await createEmbedder(`transformers:${TINY_BERT}`, app.config);
    let calls = 0;
    const crashing: Embedder = {
      ...real,
      embedDocuments: async (texts) => {
        if (++calls === 2) throw new Error("power cut");
        return real.embedDocuments(texts);
      },
    };
    await expect(reindexStore(app.context.store, { embedder: crashing, spec: `transformers:${TINY_BERT}` })).rejects.toThrow("power cut");
    expect(app.context.store.meta).toMatchObject({ generation: 0, embedderId: "bundled" });
    expect(await service.memories.list({ query: "memory 7 about gardening", v: 1 })).toHaveLength(5);
    expect((await service.memories.list({ all: true, v: 1 })).length).toBe(300);
    // A later run starts the half-built tables afresh and completes.
    const result = await reindexStore(app.context.store, { embedder: real, spec: `transformers:${TINY_BERT}` });
    expect(result.rows.memories).toBe(300);
    expect((await service.memories.list({ all: true, v: 1 })).length).toBe(300);
    await real.close();
    await app.close();
  });
});

describe("what an interrupted reindex left", () => {
  it("goes with the next maintenance (even --if-needed), never while a reindex runs", async () => {
    const app = await openTestApp();
    const service = await app.service();
    await service.memories.store({ text: "the cat sat on the mat" });
    await app.context.store.createGeneration(1, 32); // what a reindex cut short leaves beside generation 0
    const onDisk = async () => {
      const db = await lancedb.connect(path.join(app.config.paths.dataDir, "db"));
      const names = await db.tableNames();
      db.close();
      return names;
    };

    const reindexRuns = await takeProcessLock(app.config.paths.reindexLock, { stale: 60_000, update: 10_000 });
    expect(await app.maintenance.run()).toBe(true);
    expect(await onDisk()).toEqual(expect.arrayContaining(["memories_g1", "chunks_g1"]));
    await reindexRuns();

    expect(await app.maintenance.runIfNeeded()).toBe(true);
    const names = await onDisk();
    expect(names).not.toContain("memories_g1");
    expect(names).not.toContain("chunks_g1");
    expect(names).toEqual(expect.arrayContaining(["memories", "chunks"]));
    expect(await service.memories.list({ query: "cat on the mat", v: 1 })).toContain("the cat sat on the mat");
    await app.close();
  });
});

/** A tiny-bert store with `count` memories, stored in batches: enough rows for a vector index. */
async function appWithNotes(count: number) {
  const app = await openTestApp({ embedder: `transformers:${TINY_BERT}` });
  const service = await app.service();
  const texts = Array.from({ length: count }, (_, i) => `note ${i} about topic ${i % 97}`);
  for (let start = 0; start < texts.length; start += 500) {
    await service.memories.storeMany(texts.slice(start, start + 500).map((text) => ({ text })));
  }
  return { app, service, texts };
}

/**
 * Stores that took single writes, `single write <i>` each a commit of its own: FRAGMENT_LIMIT of them
 * (one short of due), and MANY_WRITES (due). Written once for the tests below (~50 ms of CPU a
 * commit), each test opening a copy of its own.
 */
const singleWrites = { almostDue: "", due: "" };

async function writeSingly(store: string, from: number, to: number): Promise<void> {
  const writer = await openTestApp({ store });
  const service = await writer.service();
  for (let i = from; i < to; i++) await service.memories.storeMany([{ text: `single write ${i}` }]);
  await writer.close();
}

/** A copy of one of the singleWrites stores, closed as it is. */
function copyOf(fixture: string): string {
  const store = path.join(tempDir(), "store");
  fs.cpSync(fixture, store, { recursive: true });
  return store;
}

describe("maintenance", () => {
  beforeAll(async () => {
    singleWrites.almostDue = path.join(tempDir(), "store");
    await writeSingly(singleWrites.almostDue, 0, FRAGMENT_LIMIT);
    singleWrites.due = copyOf(singleWrites.almostDue);
    await writeSingly(singleWrites.due, FRAGMENT_LIMIT, MANY_WRITES);
  });

  it("compacts a store that took many single commits", async () => {
    const app = await openTestApp({ store: copyOf(singleWrites.due) });
    const service = await app.service();
    const table = await app.context.store.table("memories");
    expect((await table.stats()).fragmentStats.numFragments).toBeGreaterThanOrEqual(MANY_WRITES);
    expect(await app.maintenance.runIfNeeded()).toBe(true);
    expect((await table.stats()).fragmentStats.numFragments).toBeLessThanOrEqual(2);
    expect((await service.memories.list({ all: true, v: 1 })).length).toBe(MANY_WRITES);
    const [top] = await service.memories.list({ query: "single write 27", v: 1 });
    expect(top).toBe("single write 27");
    await app.close();
  });

  it("a server that starts on a store left due has it maintained without waiting for a write", async () => {
    const server = await openTestApp({ store: copyOf(singleWrites.due) }, { maintenance: "background" });
    const table = await server.context.store.table("memories");
    expect((await table.stats()).fragmentStats.numFragments).toBeGreaterThanOrEqual(MANY_WRITES);
    // It looks 2 s after it opens, and a `mnemo maintain` process of its own does the work.
    const deadline = Date.now() + 30_000;
    while ((await table.stats()).fragmentStats.numFragments > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await table.stats()).fragmentStats.numFragments).toBe(1);
    // Then it drops the caches that hold the indexes' old versions: a new connection, a new handle.
    while ((await server.context.store.table("memories")) === table && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await server.context.store.table("memories")).not.toBe(table);
    expect((await (await server.service()).memories.list({ query: "single write 7", v: 1 }))[0]).toBe("single write 7");
    await server.close();
  });

  it("a server compacts the memory tables itself as small commits pile up, long before a maintenance run is due", async () => {
    const app = await openTestApp({}, { maintenance: "background" });
    const service = await app.service();
    const { store } = app.context;
    await service.memories.storeMany(Array.from({ length: 50 }, (_, i) => ({ text: `indexed note ${i}` })));
    await app.maintenance.run();
    for (let i = 0; i < 8; i++) await service.memories.storeMany([{ text: `small commit ${i}` }]);
    // Nowhere near what starts a `mnemo maintain` (32 fragments, 500 rows the text index misses).
    expect(await tablesNeedingMaintenance(store)).toEqual([]);
    // Without it each table would hold 9 fragments; it compacts once more than 4 pile up.
    const fragments = async (key: "memories" | "memoryHistory") => (await (await store.table(key)).stats()).fragmentStats.numFragments;
    const deadline = Date.now() + 30_000;
    while (((await fragments("memories")) > 5 || (await fragments("memoryHistory")) > 5) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await fragments("memories")).toBeLessThanOrEqual(5);
    expect(await fragments("memoryHistory")).toBeLessThanOrEqual(5);
    const text = await (await store.table("memories")).indexStats("text_idx");
    expect(text?.numUnindexedRows).toBeLessThanOrEqual(4);
    expect((await service.memories.list({ query: "small commit 5", v: 1 }))[0]).toBe("small commit 5");
    await app.close();
  });

  it("a command that leaves its store due starts `mnemo maintain --if-needed` in a process of its own as it closes", async () => {
    // As many single commits as a table may gather before it is due: the command's write is one more.
    const store = copyOf(singleWrites.almostDue);
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const writer = await openTestApp({ store }, {}, env);
    expect(await tablesNeedingMaintenance(writer.context.store)).toEqual([]);
    await writer.close();
    const remembered = await runCli(["remember", "--no-date", "the write that makes it due"], { env });
    expect(remembered.code, remembered.stderr).toBe(0);
    const reader = await openTestApp({ store }, {}, env);
    const table = await reader.context.store.table("memories");
    // The process compacts one table after another: memories, then its history.
    const done = async () =>
      (await table.stats()).fragmentStats.numFragments === 1 && (await tablesNeedingMaintenance(reader.context.store)).length === 0;
    const deadline = Date.now() + 30_000;
    while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await table.stats()).fragmentStats.numFragments).toBe(1);
    expect(await tablesNeedingMaintenance(reader.context.store)).toEqual([]);
    await reader.close();
  });

  it("optimizes only the tables that need it", async () => {
    const app = await openTestApp({ store: copyOf(singleWrites.due) });
    const service = await app.service();
    // A few uploads: a few small fragments in the conversations table, not enough to be due.
    for (const id of ["a", "b", "c", "d"]) {
      await service.conversations.upload({
        conversation: { id, title: id, createdAt: "2024-05-01T10:00:00Z", messages: [{ id: "1", role: "human", content: "hello" }] },
      });
    }
    const { store } = app.context;
    const due = await tablesNeedingMaintenance(store);
    expect(due).toContain("memories");
    expect(due).not.toContain("conversations");
    const conversations = await store.table("conversations");
    const version = await conversations.version();
    expect(await app.maintenance.runIfNeeded()).toBe(true);
    expect(await tablesNeedingMaintenance(store)).toEqual([]);
    expect(await conversations.version()).toBe(version);
    // `mnemo maintain` still optimizes every table.
    expect(await app.maintenance.run()).toBe(true);
    expect(await conversations.version()).toBeGreaterThan(version);
    await app.close();
  });

  describe("on a table grown past the size that wants a vector index", () => {
    // One table for both tests: its 5,100 rows and their index take seconds of CPU to build.
    let notes: Awaited<ReturnType<typeof appWithNotes>>;
    let indexTypesBefore: string[];
    let firstRun: boolean;
    beforeAll(async () => {
      notes = await appWithNotes(VECTOR_INDEX_MIN_ROWS.memories + 100);
      const table = await notes.app.context.store.table("memories");
      indexTypesBefore = (await table.listIndices()).map((index) => index.indexType);
      firstRun = await notes.app.maintenance.runIfNeeded();
    });
    afterAll(() => notes?.app.close());

    it("compacts a table that has grown past the threshold, then gives it a vector index that search goes through", async () => {
      const { app, service, texts } = notes;
      const table = await app.context.store.table("memories");
      expect(indexTypesBefore).not.toContain("IvfHnswSq");
      expect(firstRun).toBe(true);
      expect((await table.stats()).fragmentStats.numFragments).toBe(1);
      const vector = (await table.listIndices()).find((index) => index.columns.includes("vector"));
      expect(vector?.indexType).toBe("IvfHnswSq");
      expect((await table.indexStats(vector!.name))?.numIndexedRows).toBe(texts.length);
      const [top] = await service.memories.list({ query: "note 4321 about topic 53", v: 1 });
      expect(top).toBe("note 4321 about topic 53");
    });

    it("rebuilds a vector index that maintenance runs split into too many segments, and compacts the fragments they kept apart", async () => {
      const { app, service, texts } = notes;
      const { store } = app.context;
      const table = await store.table("memories");
      const segments = async () => (await table.indexStats("vector_idx"))?.numIndices ?? 0;
      expect(await segments()).toBe(1);
      // Each round writes more rows than the text index may leave uncovered, so the table is due, and
      // its run adds a segment for the new rows.
      const perRound = UNINDEXED_FLOOR + 1;
      for (let round = 1; round <= VECTOR_SEGMENT_LIMIT.idle; round++) {
        await service.memories.storeMany(Array.from({ length: perRound }, (_, i) => ({ text: `round ${round} write ${i}` })));
        expect(await app.maintenance.runIfNeeded()).toBe(true);
        expect(await segments()).toBe(round + 1);
      }
      expect((await table.stats()).fragmentStats.numFragments).toBe(VECTOR_SEGMENT_LIMIT.idle + 1);
      expect(await tablesNeedingMaintenance(store)).toEqual(["memories"]);
      expect(await tablesNeedingMaintenance(store, VECTOR_SEGMENT_LIMIT.busy)).toEqual([]);
      expect(await app.maintenance.runIfNeeded()).toBe(true);
      expect(await segments()).toBe(1);
      expect((await table.stats()).fragmentStats.numFragments).toBe(1);
      expect((await table.indexStats("vector_idx"))?.numIndexedRows).toBe(texts.length + perRound * VECTOR_SEGMENT_LIMIT.idle);
      const [top] = await service.memories.list({ query: "round 3 write 17", v: 1 });
      expect(top).toBe("round 3 write 17");
    });
  });

  it("a row that a compaction moved is not read at its old address", async () => {
    const app = await openTestApp({ store: copyOf(singleWrites.due) });
    const { store } = app.context;
    const table = await store.table("memories");
    const found = await table.query().select(["id"]).withRowId().limit(5).toArray();
    const rowIds = found.map((row) => BigInt(row["_rowid"]));
    expect([...(await readRows(store, "memories", rowIds, ["id"])).keys()]).toEqual(rowIds);
    expect(await app.maintenance.runIfNeeded()).toBe(true);
    expect((await readRows(store, "memories", rowIds, ["id"])).size).toBe(0);
    await app.close();
  });

  it("a search that straddles a compaction searches again and reads its rows where they are now", async () => {
    const app = await openTestApp({ store: copyOf(singleWrites.due) });
    const { store } = app.context;
    const user = await app.users.resolve("default");
    // The compaction commits after the legs found their rows and before the rows are read.
    const columns = store.columns.bind(store);
    let compactions = 0;
    store.columns = async (key) => {
      if (compactions === 0 && (await app.maintenance.runIfNeeded())) compactions++;
      return columns(key);
    };
    const vector = await app.context.embedder.embedQuery("single write 27");
    const hits = await hybridSearch(store, "memories", { vector, text: "single write 27", where: { userId: user.id }, limit: 5 });
    expect(compactions).toBe(1);
    expect(hits).toHaveLength(5);
    expect(hits[0]?.row.text).toBe("single write 27");
    await app.close();
  });

  it("a background look that fails (the store cannot be read) leaves the process running", async () => {
    const losing = { table: async () => Promise.reject(new Error("Retryable commit conflict")) } as unknown as Store;
    const maintenance = new Maintenance(
      losing,
      path.join(tempDir(), "maintenance.lock"),
      path.join(tempDir(), "reindex.lock"),
      "background",
      tempDir(),
    );
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    maintenance.afterWrite();
    await new Promise((resolve) => setTimeout(resolve, 2_300)); // the run starts 2 s after a burst of writes
    await maintenance.close();
    process.off("unhandledRejection", listener);
    expect(unhandled).toEqual([]);
  });
});
