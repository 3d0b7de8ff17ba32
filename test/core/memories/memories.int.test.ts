import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import { AppError } from "../../../src/shared/errors.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { MemoryObject } from "../../../src/schemas/memories.js";
import { openTestApp, ROOT } from "../../helpers.js";

let app: App;
let service: MnemoService;

beforeAll(async () => {
  app = await openTestApp();
  service = await app.service();
});
afterAll(async () => {
  await app.close();
});

async function expectError(work: Promise<unknown>, code: AppError["code"], message?: RegExp): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  if (message) expect((error as AppError).message).toMatch(message);
  return error as AppError;
}

async function objects(query: Parameters<MnemoService["memories"]["listV2"]>[0] = {}): Promise<MemoryObject[]> {
  return (await service.memories.listV2({ includeIds: true, ...query })).memories as MemoryObject[];
}

describe("storing memories", () => {
  it("returns ok and an encoded id, into the default bucket", async () => {
    const result = await service.memories.store({ text: "2026-01-02 I like green tea" });
    expect(result.done).toBe("ok");
    expect(result.memoryId).toMatch(/^mem_[0-9A-Z]{26}$/);
    const [memory] = await objects({ count: 1 });
    expect(memory).toMatchObject({ id: result.memoryId, text: "2026-01-02 I like green tea" });
    expect(memory!.metadata).toMatchObject({ bucketId: 1, bucketName: "General" });
  });

  it("stores into an existing bucket and refuses an unknown one", async () => {
    const { bucket } = await service.buckets.create({ name: "Work" });
    const { memoryId } = await service.memories.store({ text: "standup at 9:30", bucketId: Number(bucket.id) });
    expect((await objects({ bucketId: Number(bucket.id) })).map((m) => m.id)).toEqual([memoryId]);
    await expectError(service.memories.store({ text: "lost", bucketId: 999 }), "not_found", /bucketId/);
  });

  it("a user whose default bucket is not there yet (added by another process, or cut between its two commits) gets it with the first memory", async () => {
    const users = await app.users.add("halfway");
    const halfway = await app.service("halfway");
    await app.context.store.write(() => app.context.store.delete("buckets", { userId: users.id }));
    const single = await halfway.memories.store({ text: "the first memory" });
    expect(single.done).toBe("ok");
    await app.context.store.write(() => app.context.store.delete("buckets", { userId: users.id }));
    const batch = await halfway.memories.storeMany([{ text: "a batch" }, { text: "of two" }]);
    expect(batch.memoryIds).toHaveLength(2);
    expect((await halfway.buckets.list()).map((bucket) => [bucket.id, bucket.name])).toEqual([["1", "General"]]);
    expect((await halfway.memories.listV2({ all: true })).memories).toHaveLength(3);
  });

  it("rejects empty and whitespace text, naming the field", async () => {
    const before = (await service.memories.listV2({ all: true })).memories.length;
    await expectError(service.memories.store({ text: "" }), "invalid_input", /^text:/);
    await expectError(service.memories.store({ text: "   \n " }), "invalid_input", /^text:/);
    await expectError(service.memories.store({ text: "x".repeat(20_001) }), "invalid_input", /^text:/);
    await expectError(service.memories.store({ text: "ok", bucketId: 0 }), "invalid_input", /^bucketId:/);
    await expectError(service.memories.store({ text: "ok", bucketId: 1.5 }), "invalid_input", /^bucketId:/);
    expect((await service.memories.listV2({ all: true })).memories.length).toBe(before);
  });

  it("refuses text that shows nothing (zero-width spaces, direction marks, NUL) as empty, on store, edit and search", async () => {
    const { memoryId } = await service.memories.store({ text: "2026-01-02 the spare key is under the blue pot" });
    const before = (await service.memories.listV2({ all: true })).memories.length;
    for (const text of ["\u200b\u200b", "\u200f\u202e", "\u0000", " \ufeff\u2060 "]) {
      await expectError(service.memories.store({ text }), "invalid_input", /^text: must not be empty: it holds only invisible characters/);
      await expectError(service.memories.update({ memoryId, text }), "invalid_input", /^text: must not be empty/);
      await expectError(service.memories.listV2({ query: text }), "invalid_input", /^query: must not be empty/);
      await expectError(service.search({ query: text }), "invalid_input", /^query: must not be empty/);
      await expectError(service.recall({ query: text }), "invalid_input", /^query: must not be empty/);
      await expectError(service.buckets.create({ name: text }), "invalid_input", /^name: must not be empty/);
    }
    expect((await service.memories.listV2({ all: true })).memories.length).toBe(before);
    expect((await service.memories.history(memoryId)).total).toBe(1);
    // Emoji joined by ZWJ, and marks inside words, are text.
    expect((await service.memories.store({ text: "👩\u200d👩\u200d👧 family\u200f" })).done).toBe("ok");
  });

  it("stores a batch with one commit and returns every id", async () => {
    const { memoryIds } = await service.memories.storeMany([{ text: "batch one" }, { text: "batch two" }]);
    expect(memoryIds).toHaveLength(2);
    const stored = await objects({ all: true });
    expect(stored.map((m) => m.id)).toEqual(expect.arrayContaining(memoryIds));
  });
});

describe("a write cut between its two tables", () => {
  it("an edit never leaves a memory without its versions: history is written first", async () => {
    const own = await openTestApp();
    const mine = await own.service();
    const kept = await mine.memories.store({ text: "The spare key is under the blue pot" });
    await own.context.store.settle(); // absorbed from the journal
    const store = own.context.store;
    const upsert = store.upsert.bind(store);
    // As if the process died after the history commit: the memories table's write never happens.
    store.upsert = (async () => {
      throw new Error("killed");
    }) as typeof store.upsert;
    await expect(mine.memories.update({ memoryId: kept.memoryId, text: "The spare key is with the neighbour" })).rejects.toThrow("killed");
    store.upsert = upsert;
    const all = await mine.memories.listV2({ all: true, includeIds: true });
    expect(all.memories.map((m) => (typeof m === "string" ? m : m.text))).toEqual(["The spare key is under the blue pot"]);
    // The memory that exists has every version it went through, and the text it was edited to is not lost.
    const history = await mine.memories.history(kept.memoryId);
    expect(history.versions.map((v) => v.text)).toEqual(["The spare key is under the blue pot", "The spare key is with the neighbour"]);
    await own.close();
  });

  it("a new memory whose absorb is cut between the tables is stored once, with its one first version", async () => {
    const own = await openTestApp();
    const mine = await own.service();
    const store = own.context.store;
    const add = store.add.bind(store);
    store.add = (async (table: string, rows: unknown[]) => {
      if (table === "memories") throw new Error("killed");
      return add(table as never, rows as never);
    }) as typeof store.add;
    // Acknowledged once it is in the journal; the commit into the tables fails after the history's.
    const stored = await mine.memories.store({ text: "The boiler is serviced every October" });
    await expect(store.write(async () => undefined)).rejects.toThrow("killed");
    store.add = add;
    const all = await mine.memories.listV2({ all: true, includeIds: true });
    expect((all.memories as MemoryObject[]).map((m) => [m.id, m.text])).toEqual([
      [stored.memoryId, "The boiler is serviced every October"],
    ]);
    expect((await mine.memories.history(stored.memoryId)).versions.map((v) => v.version)).toEqual([1]);
    await own.close();
  });
});

describe("listing memories", () => {
  let isolated: App;
  let svc: MnemoService;
  beforeAll(async () => {
    isolated = await openTestApp();
    svc = await isolated.service();
    for (let i = 1; i <= 12; i++) await svc.memories.store({ text: `note number ${i}` });
  });
  afterAll(async () => isolated.close());

  it("latest: newest first, count defaults to 10, skip pages", async () => {
    const latest = await svc.memories.list({ latest: true });
    expect(latest).toHaveLength(10);
    expect(latest[0]).toMatchObject({ text: "note number 12", metadata: { bucketId: 1 } });
    const page = await svc.memories.list({ latest: true, count: 3, skip: 3, v: 1 });
    expect(page).toEqual(["note number 9", "note number 8", "note number 7"]);
  });

  it("no mode means latest; all returns everything", async () => {
    expect(await svc.memories.list({ v: 1 })).toHaveLength(10);
    expect(await svc.memories.list({ all: true, v: 1 })).toHaveLength(12);
  });

  it("v=1 gives plain strings, v=2 objects with metadata.bucketId", async () => {
    const v1 = await svc.memories.list({ count: 2, v: 1 });
    expect(v1).toEqual(["note number 12", "note number 11"]);
    const v2 = await svc.memories.list({ count: 1, v: 2 });
    expect(v2).toEqual([{ text: "note number 12", metadata: { bucketId: 1 } }]);
  });

  it("query mode pages through one order: a page is the same whatever the count, and pages neither repeat nor skip", async () => {
    const own = await openTestApp();
    const service = await own.service();
    const words = (i: number, list: string) => list.split(" ")[i % list.split(" ").length];
    for (let i = 0; i < 90; i++) {
      const text = `The ${words(i, "red brown grey white black")} ${words(i * 7, "fox cat owl dog hare badger crow")} sat in the ${words(i * 3, "garden forest field barn meadow river orchard pond hedge lane shed")} at ${words(i * 5, "dawn noon dusk night")}.`;
      await service.memories.store({ text });
    }
    const ids = async (count: number, skip = 0) =>
      (
        (await service.memories.listV2({ query: "a red fox in the garden at dusk", count, skip, includeIds: true })).memories as {
          id: string;
        }[]
      ).map((m) => m.id);
    const twenty = await ids(20);
    expect(twenty).toHaveLength(20);
    expect((await ids(10)).slice(0, 5)).toEqual(await ids(5));
    expect([...(await ids(5)), ...(await ids(5, 5)), ...(await ids(5, 10)), ...(await ids(5, 15))]).toEqual(twenty);
    await own.close();
  });

  it("query mode returns at most the 5 most relevant, each with a score", async () => {
    const hits = await svc.memories.list({ query: "note number 7" });
    expect(hits).toHaveLength(5);
    for (const hit of hits as { score?: number }[]) {
      expect(hit.score).toBeGreaterThan(0);
      expect(hit.score).toBeLessThanOrEqual(1);
    }
    expect(hits[0]).toMatchObject({ text: "note number 7" });
  });

  it("v2 list: strings unless includeIds, and the buckets with memory counts", async () => {
    const plain = await svc.memories.listV2({ count: 2 });
    expect(plain.memories).toEqual(["note number 12", "note number 11"]);
    expect(plain.buckets).toEqual([{ id: "1", name: "General", memoryCount: 12 }]);
    const withIds = await svc.memories.listV2({ count: 1, includeIds: true });
    const [memory] = withIds.memories as MemoryObject[];
    expect(memory).toMatchObject({
      text: "note number 12",
      content_type: "text",
      metadata: { text: "note number 12", bucketId: 1, bucketName: "General" },
    });
    expect(Date.parse(memory!.metadata.createdAt)).not.toBeNaN();
    expect(await svc.memories.listV2({ contentType: "image" })).toMatchObject({ memories: [] });
  });

  it("refuses counts and modes out of range", async () => {
    await expectError(svc.memories.list({ count: 0 }), "invalid_input", /^count:/);
    await expectError(svc.memories.list({ count: 1001 }), "invalid_input", /^count:/);
    await expectError(svc.memories.list({ skip: -1 }), "invalid_input", /^skip:/);
    await expectError(svc.memories.list({ v: 3 as 2 }), "invalid_input", /^v:/);
    await expectError(svc.memories.list({ query: "  " }), "invalid_input", /^query:/);
    await expectError(svc.memories.listV2({ bucketId: 42 }), "not_found", /bucketId/);
    await expectError(svc.memories.listV2({ contentType: "video" as "text" }), "invalid_input", /^contentType:/);
  });
});

describe("updating memories", () => {
  it("a text change re-embeds, adds 1 to version and writes history", async () => {
    const { memoryId } = await service.memories.store({ text: "my bike is red" });
    const result = await service.memories.update({ memoryId, text: "my bike is painted ocean blue" });
    expect(result).toMatchObject({
      success: true,
      memory: { id: memoryId, text: "my bike is painted ocean blue", bucketId: 1, version: 2 },
    });
    const [top] = await service.memories.list({ query: "what colour is my bicycle now, blue?" });
    expect(top).toMatchObject({ text: "my bike is painted ocean blue" });
    const history = await service.memories.history(memoryId);
    expect(history.versions.map((v) => [v.version, v.text])).toEqual([
      [1, "my bike is red"],
      [2, "my bike is painted ocean blue"],
    ]);
  });

  it("editing an image memory's text changes its image_description with it", async () => {
    const data = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png")).toString("base64");
    const { memoryId } = await service.memories.storeImage({ data, description: "a red square" });
    await service.memories.update({ memoryId, text: "the logo draft, in red" });
    const [image] = await objects({ contentType: "image", count: 1 });
    expect(image).toMatchObject({ id: memoryId, text: "the logo draft, in red", image_description: "the logo draft, in red" });
    await service.memories.delete(memoryId);
  });

  it("bucketId must exist; bucketName creates the bucket when missing", async () => {
    const { memoryId } = await service.memories.store({ text: "book flights to Lisbon" });
    await expectError(service.memories.update({ memoryId, bucketId: 777 }), "not_found", /bucket/);
    const moved = await service.memories.update({ memoryId, bucketName: "Travel plans" });
    expect("memory" in moved && moved.memory.version).toBe(2);
    const buckets = await service.buckets.list();
    const travel = buckets.find((b) => b.name === "Travel plans");
    expect(travel).toMatchObject({ memoryCount: 1 });
    expect("memory" in moved && moved.memory.bucketId).toBe(Number(travel!.id));
    // Same bucket again: nothing changes, the version stays.
    const same = await service.memories.update({ memoryId, bucketName: "travel PLANS" });
    expect("memory" in same && same.memory.version).toBe(2);
  });

  it("memoryId alone, both forms, both targets and malformed ids are 400-class errors", async () => {
    const { memoryId } = await service.memories.store({ text: "a memory to poke at" });
    await expectError(service.memories.update({ memoryId }), "invalid_input", /^memoryId:/);
    await expectError(service.memories.update({ memoryId, memoryIds: [memoryId], bucketId: 1 }), "invalid_input", /never both/);
    await expectError(service.memories.update({ memoryId, bucketId: 1, bucketName: "x" }), "invalid_input", /not both/);
    await expectError(service.memories.update({ memoryId: "nope", text: "x" }), "invalid_input", /^memoryId:/);
    await expectError(service.memories.update({ memoryId, text: " " }), "invalid_input", /^text:/);
    await expectError(service.memories.update({ text: "x" }), "invalid_input", /^memoryId:/);
    await expectError(service.memories.update({ memoryId: "mem_00000000000000000000000000", text: "x" }), "not_found");
  });

  it("bulk move: moves all, counts the moved ones, versions each", async () => {
    const { memoryIds } = await service.memories.storeMany([{ text: "move me 1" }, { text: "move me 2" }, { text: "move me 3" }]);
    const result = await service.memories.update({ memoryIds, bucketName: "Archive" });
    expect(result).toMatchObject({ success: true, updated: 3 });
    const archive = (await service.buckets.list()).find((b) => b.name === "Archive")!;
    expect("bucketId" in result && result.bucketId).toBe(Number(archive.id));
    expect(archive.memoryCount).toBe(3);
    const again = await service.memories.update({ memoryIds, bucketId: Number(archive.id) });
    expect(again).toMatchObject({ updated: 0 });
    expect((await service.memories.history(memoryIds[0]!)).versions).toHaveLength(2);
  });

  it("bulk move: one unknown id fails the whole call with rejectedIds and moves nothing", async () => {
    const { memoryIds } = await service.memories.storeMany([{ text: "stay 1" }, { text: "stay 2" }]);
    const unknown = "mem_00000000000000000000000000";
    const error = await expectError(
      service.memories.update({ memoryIds: [...memoryIds, unknown, "garbage"], bucketName: "Elsewhere" }),
      "not_found",
      /^Some memory IDs could not be resolved$/,
    );
    expect(error.details["rejectedIds"]).toEqual([unknown, "garbage"]);
    const stored = await objects({ all: true });
    for (const id of memoryIds) expect(stored.find((m) => m.id === id)!.metadata.bucketId).toBe(1);
    expect((await service.buckets.list()).some((b) => b.name === "Elsewhere")).toBe(false);
  });

  it("bulk move: 1 to 100 ids, a target, and no text", async () => {
    await expectError(service.memories.update({ memoryIds: [], bucketId: 1 }), "invalid_input", /^memoryIds:/);
    const many = Array.from({ length: 101 }, (_, i) => `mem_${String(i).padStart(26, "0")}`);
    await expectError(service.memories.update({ memoryIds: many, bucketId: 1 }), "invalid_input", /^memoryIds:/);
    await expectError(service.memories.update({ memoryIds: ["x"] }), "invalid_input", /bucketId/);
    await expectError(service.memories.update({ memoryIds: ["x"], bucketId: 1, text: "t" }), "invalid_input", /^text:/);
  });
});

describe("deleting memories", () => {
  it("deletes one; a second delete and a malformed id are errors", async () => {
    const { memoryId } = await service.memories.store({ text: "ephemeral thought" });
    expect(await service.memories.delete(memoryId)).toEqual({ message: "Memory deleted" });
    expect((await objects({ all: true })).some((m) => m.id === memoryId)).toBe(false);
    await expectError(service.memories.delete(memoryId), "not_found");
    await expectError(service.memories.history(memoryId), "not_found");
    await expectError(service.memories.delete(""), "invalid_input", /^memoryId:/);
    await expectError(service.memories.delete("mem_bad"), "invalid_input", /^memoryId:/);
  });

  it("bulk delete: counts deleted rows, skips unknown ids, reports malformed ones", async () => {
    const { memoryIds } = await service.memories.storeMany([{ text: "bulk a" }, { text: "bulk b" }]);
    const result = await service.memories.bulkDelete({ memoryIds: [...memoryIds, "mem_00000000000000000000000000", "junk"] });
    expect(result).toEqual({ message: "Memories deleted", deletedCount: 2, errors: [{ memoryId: "junk", error: "not a memory id" }] });
    await expectError(service.memories.bulkDelete({ memoryIds: [] }), "invalid_input", /^memoryIds:/);
  });
});

describe("buckets", () => {
  it("every user starts with bucket 1, General; duplicate names are refused", async () => {
    const buckets = await service.buckets.list();
    expect(buckets[0]).toMatchObject({ id: "1", name: "General" });
    const created = await service.buckets.create({ name: "Recipes", description: "food I cook" });
    expect(created).toMatchObject({
      message: "Bucket created successfully",
      bucket: { name: "Recipes", description: "food I cook", memoryCount: 0 },
    });
    await expectError(service.buckets.create({ name: "recipes" }), "conflict", /already exists/);
    await expectError(service.buckets.create({ name: "  " }), "invalid_input", /^name:/);
  });

  it("names that read the same are the same bucket: composed or decomposed accents, full-width letters, a zero-width space", async () => {
    const { bucket } = await service.buckets.create({ name: "Café" });
    for (const name of ["Cafe\u0301", "ＣＡＦÉ", "Ca\u200bfé"]) {
      await expectError(service.buckets.create({ name }), "conflict", /^A bucket named "Café" already exists/);
      await expectError(service.buckets.rename(1, { name }), "conflict", /^A bucket named "Café" already exists/);
    }
    const { memoryId } = await service.memories.store({ text: "flat white" });
    const moved = await service.memories.update({ memoryId, bucketName: "Cafe\u0301" });
    expect("memory" in moved && moved.memory.bucketId).toBe(Number(bucket.id));
    expect((await service.buckets.list()).filter((b) => b.name.normalize("NFKC").toLowerCase() === "café")).toHaveLength(1);
  });

  it("refuses a description with a control character: a line break in it read as another bucket's line in a list", async () => {
    const before = await service.buckets.list();
    const forged = 'trips\n- 9 "Passwords" · 12 memories';
    await expectError(
      service.buckets.create({ name: "Trips", description: forged }),
      "invalid_input",
      /^description: must not hold control/,
    );
    await expectError(service.buckets.rename(1, { description: "a\u0000b" }), "invalid_input", /^description: must not hold control/);
    expect(await service.buckets.list()).toEqual(before);
  });

  it("refuses a bucket name that turns the text around (U+202E), which showed another name than it held; Arabic and Hebrew names are taken", async () => {
    const before = await service.buckets.list();
    await expectError(
      service.buckets.create({ name: "Work\u202Etxt.sterces" }),
      "invalid_input",
      /^name: must not hold characters that reverse/,
    );
    await expectError(service.buckets.rename(1, { name: "a\u2067b" }), "invalid_input", /^name: must not hold characters that reverse/);
    expect(await service.buckets.list()).toEqual(before);
    for (const name of ["عمل", "עבודה"]) expect((await service.buckets.create({ name })).bucket.name).toBe(name);
  });

  it("keeps users apart", async () => {
    await app.users.add("alice");
    const alice = await app.service("alice");
    await alice.memories.store({ text: "alice's secret" });
    expect(await alice.buckets.list()).toEqual([{ id: "1", name: "General", memoryCount: 1 }]);
    expect(((await service.memories.list({ all: true, v: 1 })) as string[]).includes("alice's secret")).toBe(false);
    const [aliceMemory] = (await alice.memories.listV2({ includeIds: true })).memories as MemoryObject[];
    await expectError(service.memories.delete(aliceMemory!.id!), "not_found");
    await expectError(service.memories.update({ memoryIds: [aliceMemory!.id!], bucketId: 1 }), "not_found");
    expect((await service.memories.bulkDelete({ memoryIds: [aliceMemory!.id!] })).deletedCount).toBe(0);
    const missing = await expectError(app.service("nobody"), "not_found", /"nobody" does not exist/);
    expect(missing.suggestion).toMatch(/mnemo users add nobody/);
  });
});
