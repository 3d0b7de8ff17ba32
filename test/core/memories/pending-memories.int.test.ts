import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { MemoryObject } from "../../../src/schemas/memories.js";
import { Journal } from "../../../src/store/journal.js";
import { openTestApp, tempDir } from "../../helpers.js";

/**
 * A memory is acknowledged once it is in the store's journal, and reaches the tables later. Reads
 * that an assistant makes right after a store (search, the latest memories, the buckets' counts,
 * the near-duplicate check of the next store) show the journal's memories beside the tables' rows
 * instead of waiting for them to be absorbed; every other read absorbs first. Either way each
 * read sees every memory acknowledged before it.
 */
let app: App;
let service: MnemoService;
let journal: Journal;
let store: string;

const ids = (memories: unknown[]) => (memories as MemoryObject[]).map((memory) => memory.id);

beforeAll(async () => {
  store = path.join(tempDir(), "store");
  app = await openTestApp({ store });
  service = await app.service();
  journal = new Journal(path.join(store, "journal"));
  const facts = [
    "My sister Ana lives in Porto",
    "I take the 8:15 train to work",
    "The wifi password is on the fridge",
    "Dentist appointment every March",
    "I am allergic to penicillin",
    "My bike is a blue Brompton",
    "Our landlord is called Mr Okafor",
    "I prefer window seats on flights",
    "The car is due for its MOT in June",
    "I water the tomatoes every evening",
  ];
  for (const text of facts) await service.memories.store({ text });
  await app.context.store.settle();
  expect(journal.hasPending()).toBe(false);
});
afterAll(async () => {
  await app.close();
});

describe("memories still in the journal", () => {
  it("are searched, listed and counted at once, without being absorbed, scored as they are once absorbed", async () => {
    const { bucket } = await service.buckets.create({ name: "Pets" });
    const dog = await service.memories.store({ text: "Our dog Biscuit is a beagle and hates thunder", ifSimilar: "skip" });
    const cat = await service.memories.store({ text: "The cat eats at seven", bucketId: Number(bucket.id) });
    expect(journal.hasPending()).toBe(true);

    const query = { query: "what kind of dog do we have", count: 3, includeIds: true };
    const before = await service.memories.listV2(query);
    expect(ids(before.memories)[0]).toBe(dog.memoryId);
    const latest = await service.memories.listV2({ count: 2, includeIds: true });
    expect(ids(latest.memories).sort()).toEqual([dog.memoryId, cat.memoryId].sort());
    expect(ids((await service.memories.listV2({ count: 2, skip: 1, includeIds: true })).memories)).toHaveLength(2);
    expect(ids((await service.memories.listV2({ bucketId: Number(bucket.id), includeIds: true })).memories)).toEqual([cat.memoryId]);
    expect(ids((await service.memories.listV2({ dateFrom: "2999-01-01", includeIds: true })).memories)).toEqual([]);
    const counts = Object.fromEntries(latest.buckets.map((b) => [b.name, b.memoryCount]));
    expect(counts).toEqual({ General: 11, Pets: 1 });
    expect((await service.memories.list({ query: "beagle", v: 1 }))[0]).toContain("Biscuit");
    // The same fact again is caught while the first is still in the journal.
    const again = await service.memories.store({ text: "Our dog Biscuit is a beagle and he hates thunder", ifSimilar: "skip" });
    expect(again).toMatchObject({ done: "exists", memoryId: dog.memoryId });
    expect(journal.hasPending()).toBe(true);

    await app.context.store.settle();
    expect(journal.hasPending()).toBe(false);
    const after = await service.memories.listV2(query);
    expect(ids(after.memories)).toEqual(ids(before.memories));
    // The same relevance, but for the last bits of float32 (LanceDB's cosine against ours).
    const scores = (memories: unknown[]) => (memories as MemoryObject[]).map((memory) => memory.score!);
    scores(after.memories).forEach((score, i) => expect(score).toBeCloseTo(scores(before.memories)[i]!, 6));
    expect(after.buckets).toEqual(latest.buckets);
  });

  it("are acknowledged before their text is embedded when no memory shares their words, and embedded by whoever absorbs them", async () => {
    const { memoryId } = await service.memories.store({ text: "Klara serviced the boiler in October", ifSimilar: "skip" });
    const records = journal.pending((record) => record as { memory: { id: string }; vector?: string }).records;
    const record = records.find((pending) => pending.memory.id === memoryId);
    expect(record).toBeDefined();
    expect(record!.vector).toBeUndefined();
    // Another process absorbs it (as after a kill -9 of this one): it embeds the text itself.
    const other = await openTestApp({ store });
    try {
      await other.context.store.settle();
      expect(journal.hasPending()).toBe(false);
      const found = await (await other.service()).memories.listV2({ query: "when was the boiler serviced", count: 1, includeIds: true });
      expect(ids(found.memories)).toEqual([memoryId]);
    } finally {
      await other.close();
    }
  });

  it("are counted by another process's `info`, which leaves them to the process that wrote them", async () => {
    await app.context.store.settle();
    const stored = (await service.info()).statistics.memories;
    await service.memories.store({ text: "The plumber's number is on the green card" });
    expect(journal.hasPending()).toBe(true);
    const other = await openTestApp({ store });
    try {
      expect((await (await other.service()).info()).statistics.memories).toBe(stored + 1);
    } finally {
      await other.close();
    }
    expect(journal.hasPending()).toBe(true);
    await app.context.store.settle();
    expect((await service.info()).statistics.memories).toBe(stored + 1);
  });

  it("are absorbed first by the reads that do not show them themselves, and by every write", async () => {
    const kept = await service.memories.store({ text: "The spare key is under the blue pot" });
    expect(journal.hasPending()).toBe(true);
    expect((await service.memories.history(kept.memoryId)).versions.map((v) => v.text)).toEqual(["The spare key is under the blue pot"]);
    expect(journal.hasPending()).toBe(false);

    const gone = await service.memories.store({ text: "The old gym locker is 41" });
    const trashed = await service.memories.store({ text: "The parcel code is 7731" });
    expect(journal.hasPending()).toBe(true);
    expect((await service.memories.bulkDelete({ memoryIds: [gone.memoryId] })).deletedCount).toBe(1);
    expect((await service.trash.move({ memoryIds: [trashed.memoryId] })).notFound).toEqual([]);
    const all = ids((await service.memories.listV2({ all: true, includeIds: true })).memories);
    expect(all).toContain(kept.memoryId);
    expect(all).not.toContain(gone.memoryId);
    expect(all).not.toContain(trashed.memoryId);
  });
});
