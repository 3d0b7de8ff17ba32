import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { constants, crc32, createGzip, deflateRawSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import { exportAllUsers, exportUser } from "../../../src/core/jobs/export.js";
import { restoreExport, type RestoreSummary } from "../../../src/core/jobs/restore.js";
import { openMnemoExport } from "../../../src/importers/mnemo-export.js";
import { createEmbedder } from "../../../src/providers/create-providers.js";
import type { Embedder } from "../../../src/providers/embedder.js";
import { TABLE, type TableKey } from "../../../src/store/schema.js";
import { openTestApp, ROOT, settled, tempDir } from "../../helpers.js";

const IMAGE = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png"));

/** Every row of every table, sorted, with vectors as plain arrays; and every image file's bytes. */
async function dump(app: App): Promise<{ tables: Record<string, unknown[]>; images: Record<string, string> }> {
  const tables: Record<string, unknown[]> = {};
  for (const key of Object.keys(TABLE) as TableKey[]) {
    const columns = [...(await app.context.store.columns(key)), ...(key === "memories" || key === "chunks" ? ["vector"] : [])];
    const rows = await app.context.store.select(key, "true", { columns });
    tables[key] = rows
      .map((row) =>
        Object.fromEntries(Object.entries(row).map(([name, value]) => [name, value instanceof Float32Array ? [...value] : value])),
      )
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  const images: Record<string, string> = {};
  const root = app.config.paths.images;
  if (fs.existsSync(root)) {
    for (const file of fs.readdirSync(root, { recursive: true }) as string[]) {
      const full = path.join(root, file);
      if (fs.statSync(full).isFile()) images[file] = fs.readFileSync(full).toString("base64");
    }
  }
  return { tables, images };
}

async function writeExport(lines: AsyncIterable<string>, file: string): Promise<void> {
  const source = Readable.from(lines);
  if (file.endsWith(".gz")) await pipeline(source, createGzip(), fs.createWriteStream(file));
  else await pipeline(source, fs.createWriteStream(file));
}

/** The export of every user, plain. */
async function plainExport(): Promise<string> {
  const file = path.join(tempDir(), "plain.jsonl");
  await writeExport(await exportAllUsers(source.context), file);
  return file;
}

/**
 * A gzip file of `head` then `tail`, the head's deflate blocks ending at `flushedAt` (a sync flush:
 * everything before it decompresses whole, whatever happens to the bytes after it).
 */
function gzipWithBreak(head: string[], tail: string[]): { file: string; flushedAt: number } {
  const [first, rest] = [`${head.join("\n")}\n`, `${tail.join("\n")}\n`].map((text) => Buffer.from(text));
  const header = gzipSync(Buffer.alloc(0)).subarray(0, 10);
  const body = deflateRawSync(first!, { finishFlush: constants.Z_SYNC_FLUSH });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(Buffer.concat([first!, rest!])), 0);
  trailer.writeUInt32LE(first!.length + rest!.length, 4);
  const file = path.join(tempDir(), "export.jsonl.gz");
  fs.writeFileSync(file, Buffer.concat([header, body, deflateRawSync(rest!), trailer]));
  return { file, flushedAt: header.length + body.length };
}

async function restore(app: App, file: string, intoUser?: string): Promise<RestoreSummary> {
  return restoreExport(app.context, file, await openMnemoExport(file), { intoUser });
}

const chat = (id: string, title: string, texts: string[], platform = "custom") => ({
  platform,
  conversation: {
    id,
    title,
    createdAt: "2024-05-01T10:00:00Z",
    messages: texts.map((content, i) => ({
      id: `${id}-m${i}`,
      role: i % 2 === 0 ? "human" : "assistant",
      content,
      createdAt: `2024-05-01T10:0${i}:00Z`,
    })),
  },
});

let source: App;
let exported: string;
/** The bundled model, loaded once and lent to each test's store (~0.2 s of CPU a load): restoring is the subject, not the model. */
let embedder: Embedder;
const emptyStore = () => openTestApp({}, { embedder });

/**
 * A store with what a restore must keep: two users (one with a token), a bucket with a description,
 * an edited and moved memory (version 3, three history rows), an image memory, conversations on two
 * platforms with a display name, one re-uploaded (revision 2), one pinned, one excluded.
 */
beforeAll(async () => {
  source = await openTestApp();
  embedder = await createEmbedder("bundled", source.config);
  await source.indexer.start();
  const me = await source.service();
  await me.buckets.create({ name: "Travel", description: "trips and tickets" });
  const { memoryId } = await me.memories.store({ text: "The tram 28 goes up to Graça", source: "test" });
  await me.memories.update({ memoryId, text: "The tram 28 goes up to Graça and Estrela" });
  await me.memories.update({ memoryId, bucketName: "Travel" });
  await me.memories.store({ text: "My dentist is Dr Silva" });
  await me.memories.storeImage({ data: IMAGE.toString("base64"), description: "the logo draft", filename: "logo.png" });
  await me.conversations.uploadMany([
    chat("c1", "Lisbon trip", ["What should I see in Lisbon?", "Take tram 28 through Alfama."]),
    chat("c2", "Snake care", ["My python won't eat", "Check the terrarium temperature."]),
    { ...chat("c3", "Sourdough", ["My starter is flat", "Feed it twice a day."], "chatgpt"), platformDisplayName: "ChatGPT" },
  ]);
  await settled(me);
  await me.conversations.upload(
    chat("c1", "Lisbon trip", ["What should I see in Lisbon?", "Take tram 28 through Alfama.", "And the food?"]),
  );
  await settled(me);
  const list = await me.conversations.list({});
  const idOf = (title: string) => list.items.find((item) => item.title === title)!.id;
  await me.conversations.pin({ ids: [idOf("Lisbon trip")], pinned: true });
  await me.conversations.exclude({ ids: [idOf("Snake care")], excluded: true });
  await source.users.add("alice");
  await source.users.rotateToken("alice");
  const alice = await source.service("alice");
  await alice.memories.store({ text: "Alice likes green tea" });
  await alice.conversations.upload(chat("a1", "Tea", ["Which green tea?", "Try sencha."]));
  await settled(alice);
  exported = path.join(tempDir(), "all.jsonl.gz");
  await writeExport(await exportAllUsers(source.context), exported);
});

afterAll(async () => {
  await source?.close();
  await embedder?.close();
});

describe("export and restore", () => {
  it("restores an export of every user into an empty store exactly, table by table and field by field", async () => {
    const target = await emptyStore();
    try {
      const summary = await restore(target, exported);
      expect(summary.problems).toEqual([]);
      expect(summary.complete).toBe(true);
      expect(summary.vectors).toBe("carried");
      expect(summary.users).toEqual([
        { name: "default", created: true },
        { name: "alice", created: true },
      ]);
      const before = await dump(source);
      const after = await dump(target);
      for (const key of Object.keys(before.tables)) expect(after.tables[key], key).toEqual(before.tables[key]);
      expect(Object.values(after.images)).toEqual([IMAGE.toString("base64")]);
      expect(after.images).toEqual(before.images);
      // Tokens keep working: alice's token hash came with her.
      const aliceBefore = (before.tables["users"] as { name: string; tokenHash: string }[]).find((user) => user.name === "alice")!;
      expect(aliceBefore.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await target.close();
    }
  });

  it("restored data is searchable and readable through the service as before", async () => {
    const target = await emptyStore();
    try {
      await restore(target, exported);
      const [a, b] = [await source.service(), await target.service()];
      // The same but for the data dir in the image's file:// URL.
      const listed = async (service: typeof a) =>
        JSON.stringify(await service.memories.listV2({ all: true, includeIds: true })).replaceAll(/file:\/\/[^"]*\/images\//g, "images/");
      expect(await listed(b)).toEqual(await listed(a));
      expect(await b.conversations.list({})).toEqual(await a.conversations.list({}));
      const query = { query: "tram 28 Alfama", skipRerank: true };
      expect((await b.search(query)).results).toEqual((await a.search(query)).results);
      const [memory] = (await a.memories.listV2({ all: true, includeIds: true })).memories.filter(
        (m) => typeof m === "object" && m.text.includes("Estrela"),
      ) as { id: string }[];
      expect(await b.memories.history(memory!.id)).toEqual(await a.memories.history(memory!.id));
    } finally {
      await target.close();
    }
  });

  it("restoring the same file twice adds nothing", async () => {
    const target = await emptyStore();
    try {
      await restore(target, exported);
      const once = await dump(target);
      const again = await restore(target, exported);
      expect(again.added).toEqual({ bucket: 0, memory: 0, platform: 0, conversation: 0 });
      expect(again.present).toMatchObject({ memory: 4, conversation: 4, platform: 3 });
      expect(await dump(target)).toEqual(once);
    } finally {
      await target.close();
    }
  });

  it("into a store that holds part of it, adds what is missing and leaves what is there", async () => {
    const target = await emptyStore();
    try {
      await restore(target, exported);
      const me = await target.service();
      const memories = (await me.memories.listV2({ all: true, includeIds: true })).memories as { id: string; text: string }[];
      const dentist = memories.find((m) => m.text.includes("dentist"))!;
      await me.memories.delete(dentist.id);
      const tram = memories.find((m) => m.text.includes("tram"))!;
      await me.memories.update({ memoryId: tram.id, text: "The tram 28: take it early" });
      const { memoryId: newer } = await me.memories.store({ text: "A memory made after the export" });
      const chats = await me.conversations.list({});
      const snake = chats.items.find((item) => item.title === "Snake care")!;
      await me.conversations.delete({ ids: [snake.id] });
      // The same conversation imported again from its platform's export: a new internal id.
      await me.conversations.upload(chat("c3", "Sourdough", ["My starter is flat", "Feed it twice a day."], "chatgpt"));

      const summary = await restore(target, exported);
      expect(summary.added).toMatchObject({ memory: 1, conversation: 1 });
      const after = (await me.memories.listV2({ all: true, includeIds: true })).memories as { id: string; text: string }[];
      expect(after.map((m) => m.id).sort()).toEqual([...memories.map((m) => m.id), newer].sort());
      expect(after.find((m) => m.id === tram.id)!.text).toBe("The tram 28: take it early");
      const titles = (await me.conversations.list({})).items.map((item) => item.title).sort();
      expect(titles).toEqual(["Lisbon trip", "Snake care", "Sourdough"]);
      expect((await me.conversations.list({})).items.find((item) => item.title === "Snake care")!.id).toBe(snake.id);
    } finally {
      await target.close();
    }
  });

  it("a bucket renamed since the file was written is the same bucket, not a second one of the old name", async () => {
    const target = await emptyStore();
    try {
      await restore(target, exported);
      const me = await target.service();
      const travel = (await me.buckets.list()).find((bucket) => bucket.name === "Travel")!;
      await me.buckets.rename(Number(travel.id), { name: "Journeys" });
      const summary = await restore(target, exported);
      expect(summary.added).toEqual({ bucket: 0, memory: 0, platform: 0, conversation: 0 });
      const names = (await me.buckets.list()).map((bucket) => bucket.name).sort();
      expect(names).toEqual(["General", "Journeys"]);
    } finally {
      await target.close();
    }
  });

  it("puts back the picture of an image memory the store holds with its file cut short or gone", async () => {
    const target = await emptyStore();
    try {
      await restore(target, exported);
      const root = target.config.paths.images;
      const [file] = (fs.readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith(".png"));
      fs.truncateSync(path.join(root, file!), 40);
      const summary = await restore(target, exported);
      expect(summary.pictures).toBe(1);
      expect(summary.added).toEqual({ bucket: 0, memory: 0, platform: 0, conversation: 0 });
      expect(fs.readFileSync(path.join(root, file!))).toEqual(IMAGE);
      fs.rmSync(path.join(root, file!));
      expect((await restore(target, exported)).pictures).toBe(1);
      expect((await restore(target, exported)).pictures).toBe(0);
    } finally {
      await target.close();
    }
  });

  it("without vectors, rebuilds the chunks and ends where the original was", async () => {
    const file = path.join(tempDir(), "novectors.jsonl");
    const me = await source.service();
    await writeExport(await me.export({ vectors: false }), file);
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toMatch(/"vector"/);
    const target = await emptyStore();
    try {
      await target.indexer.start();
      const summary = await restore(target, file);
      expect(summary.vectors).toBe("recomputed");
      expect(summary.queued).toBe(3); // every conversation was ready
      const restored = await target.service();
      await settled(restored);
      const strip = (rows: unknown[]) => (rows as Record<string, unknown>[]).map(({ vector: _vector, ...rest }) => rest);
      const before = await dump(source);
      const after = await dump(target);
      const mine = (rows: unknown[], userId: string) => (rows as { userId: string }[]).filter((row) => row.userId === userId);
      const userId = (before.tables["users"] as { id: string; name: string }[]).find((user) => user.name === "default")!.id;
      expect(strip(mine(after.tables["chunks"]!, userId))).toEqual(strip(mine(before.tables["chunks"]!, userId)));
      expect(mine(after.tables["conversations"]!, userId)).toEqual(mine(before.tables["conversations"]!, userId));
    } finally {
      await target.close();
    }
  });

  it("a one-user export goes into the user named with --user, keeping that user's token", async () => {
    const file = path.join(tempDir(), "alice.jsonl");
    await writeExport(await exportUser(source.context, (await source.users.resolve("alice")).id), file);
    const target = await emptyStore();
    try {
      await target.users.add("bob");
      const summary = await restore(target, file, "bob");
      expect(summary.users).toEqual([{ name: "bob", created: false }]);
      const bob = await target.service("bob");
      expect((await bob.memories.list({ all: true, v: 1 })) as string[]).toEqual(["Alice likes green tea"]);
      expect((await target.users.resolve("bob")).hasToken).toBe(false);
      await expect(restore(target, exported, "bob")).rejects.toThrow(/--user: restores a one-user export/);
    } finally {
      await target.close();
    }
  });

  it("a file cut short restores what it holds and says so; a damaged line is skipped alone", async () => {
    const plain = path.join(tempDir(), "plain.jsonl");
    await writeExport(await exportAllUsers(source.context), plain);
    const lines = fs.readFileSync(plain, "utf8").split("\n");
    const cut = path.join(tempDir(), "cut.jsonl");
    fs.writeFileSync(cut, lines.slice(0, 8).join("\n"));
    const damaged = path.join(tempDir(), "damaged.jsonl");
    fs.writeFileSync(damaged, lines.map((line, i) => (i === 3 ? line.slice(0, 40) : line)).join("\n"));
    const target = await emptyStore();
    try {
      const short = await restore(target, cut);
      expect(short.complete).toBe(false);
      expect(short.problems.join("\n")).toMatch(/cut short/);
      const skipped = await restore(target, damaged);
      expect(skipped.complete).toBe(true);
      expect(skipped.problems).toEqual([expect.stringMatching(/line 4: not JSON/)]);
    } finally {
      await target.close();
    }
  });

  it("a .gz cut or bit-flipped after the memories restores every record before the break, in every table, and says where it stopped", async () => {
    const lines = fs
      .readFileSync(await plainExport(), "utf8")
      .split("\n")
      .filter(Boolean);
    // The break lands after the first user's memories and platforms, before their conversations:
    // everything up to there is flushed into the gzip stream, so it decompresses whole.
    const whole = lines.findIndex((line) => line.startsWith('{"type":"conversation"'));
    const before = lines.slice(0, whole);
    const { file, flushedAt } = gzipWithBreak(before, lines.slice(whole));
    const cut = path.join(tempDir(), "cut.jsonl.gz");
    fs.writeFileSync(cut, fs.readFileSync(file).subarray(0, flushedAt + 20));
    const flipped = path.join(tempDir(), "flipped.jsonl.gz");
    const bytes = fs.readFileSync(file);
    bytes[flushedAt + 40]! ^= 0xff;
    fs.writeFileSync(flipped, bytes);
    const memories = before.filter((line) => line.startsWith('{"type":"memory"')).length;
    expect(memories).toBe(3);
    for (const damaged of [cut, flipped]) {
      const target = await emptyStore();
      try {
        const summary = await restore(target, damaged);
        expect(summary.added, damaged).toMatchObject({ memory: 3, bucket: 2, platform: 2, conversation: 0 });
        expect(summary.complete).toBe(false);
        expect(summary.problems.join("\n")).toMatch(
          /stops being readable after line \d+ \(.+\): what could be read before line \d+ is restored, nothing after it/,
        );
        const me = await target.service();
        expect(((await me.memories.listV2({ all: true })).memories as string[]).length).toBe(3);
      } finally {
        await target.close();
      }
    }
  });

  it("refuses a file of a newer format version, and a file that is not an export, naming the file", async () => {
    const newer = path.join(tempDir(), "v2.jsonl");
    fs.writeFileSync(newer, `${JSON.stringify({ format: "mnemo-export", version: 2 })}\n`);
    await expect(openMnemoExport(newer)).rejects.toThrow(/version 2 of mnemo's export format; this mnemo reads version 1/);
    const other = path.join(tempDir(), "other.jsonl");
    fs.writeFileSync(other, '{"hello":1}\n');
    await expect(openMnemoExport(other)).rejects.toThrow(/other\.jsonl: not a mnemo export/);
  });
});
