import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { MemoryObject } from "../../../src/schemas/memories.js";
import { insertMemoryRows, memoryRows } from "../../../src/core/memories/memories.js";
import { lastMemoryIndex } from "../../../src/core/memories/memory-index.js";
import { PROBABLY_UNRELATED } from "../../../src/core/retrieval/relevance.js";
import { StoreMemoryRequest } from "../../../src/schemas/memories.js";
import { unindexedVectors } from "../../../src/store/search.js";
import { VECTOR_INDEX_MIN_ROWS } from "../../../src/store/maintenance.js";
import { openTestApp, tempDir } from "../../helpers.js";

// Memory search answers from the memory index this process keeps (core/memories/memory-search.ts):
// what another process changes, the filters, and the words the index must find as the full-text
// index did.

let store: string;
let app: App;
let service: MnemoService;

beforeAll(async () => {
  store = tempDir();
  app = await openTestApp({ store });
  service = await app.service();
});
afterAll(async () => {
  await app.close();
});

async function found(svc: MnemoService, query: string, filter: Parameters<MnemoService["memories"]["listV2"]>[0] = {}): Promise<string[]> {
  const { memories } = await svc.memories.listV2({ query, includeIds: true, count: 10, ...filter });
  return (memories as MemoryObject[]).map((memory) => memory.text);
}

describe("memory search", () => {
  it("sees what another process changed since it last searched: a deleted memory is gone, an edited one reads anew, a new one is found", async () => {
    const { memoryIds } = await service.memories.storeMany([
      { text: "The spare house key hangs behind the fuse box" },
      { text: "My bicycle lock code is 4312" },
    ]);
    expect(await found(service, "spare key")).toContain("The spare house key hangs behind the fuse box");
    const other = await openTestApp({ store });
    try {
      const elsewhere = await other.service();
      await elsewhere.memories.delete(memoryIds[0]!);
      await elsewhere.memories.update({ memoryId: memoryIds[1]!, text: "My bicycle lock code changed to 9021" });
      await elsewhere.memories.store({ text: "The spare car key is in the kitchen drawer" });
      await other.context.store.settle();
    } finally {
      await other.close();
    }
    const keys = await found(service, "spare key");
    expect(keys).toContain("The spare car key is in the kitchen drawer");
    expect(keys).not.toContain("The spare house key hangs behind the fuse box");
    const locks = await found(service, "bicycle lock code");
    expect(locks[0]).toBe("My bicycle lock code changed to 9021");
    expect(locks).not.toContain("My bicycle lock code is 4312");
  });

  it("a memory outside the filters is not found by its words either: bucket, time and content type hold in both legs", async () => {
    const { bucket } = await service.buckets.create({ name: "Garden" });
    await service.memories.store({ text: "Tomato seedlings need repotting in April", bucketId: bucket.id });
    await service.memories.store({ text: "Repotting the office fern is overdue" });
    const inGarden = await found(service, "repotting", { bucketId: bucket.id });
    expect(inGarden).toEqual(["Tomato seedlings need repotting in April"]);
    expect(await found(service, "repotting", { dateTo: "2000-01-01" })).toEqual([]);
    expect(await found(service, "repotting", { contentType: "image" })).toEqual([]);
  });

  it("finds a memory by a word of its date prefix and by a word inside a run of an unspaced script", async () => {
    await service.memories.store({ text: "1999-12-31: fireworks over the harbour with the whole family" });
    await service.memories.store({ text: "大阪でたこ焼きを食べた" });
    await service.memories.store({ text: "I prefer window seats on long flights" });
    expect((await found(service, "1999"))[0]).toBe("1999-12-31: fireworks over the harbour with the whole family");
    expect((await found(service, "たこ焼き"))[0]).toBe("大阪でたこ焼きを食べた");
  });

  it("finds a Chinese memory by a character the segmenter joins into a longer word in the question", async () => {
    // "我的猫叫什么名字" segments as 我的|猫叫|什么|名字: "猫叫" is in neither memory, 我的 and 什么 are in both kinds of question.
    await service.memories.store({ text: "我养了一只猫，它的名字叫小白" });
    await service.memories.store({ text: "我的狗叫旺财，是一只金毛" });
    const { memories } = await service.memories.listV2({ query: "我的猫叫什么名字", includeIds: true, count: 2 });
    const [cat, dog] = memories as MemoryObject[];
    expect(cat?.text).toBe("我养了一只猫，它的名字叫小白");
    expect(cat!.score).toBeGreaterThanOrEqual(PROBABLY_UNRELATED);
    expect(dog!.score).toBeLessThan(PROBABLY_UNRELATED);
  });

  it("ranks by meaning when no word is shared, and says a question about nothing stored is probably unrelated", async () => {
    const { memories } = await service.memories.listV2({ query: "where do I like to sit on a plane?", includeIds: true, count: 3 });
    const [first] = memories as MemoryObject[];
    expect(first?.text).toBe("I prefer window seats on long flights");
    const unrelated = await service.memories.listV2({ query: "what did my cardiologist say about the stent?", includeIds: true, count: 3 });
    for (const memory of unrelated.memories as MemoryObject[]) expect(memory.score).toBeLessThan(0.3);
  });
});

describe("the memory indexes a process keeps", () => {
  it("keeps the 16 users who searched last: the one before them is let go, and searches as well after", async () => {
    const own = await openTestApp({ store: tempDir() });
    try {
      const users = await Promise.all(Array.from({ length: 17 }, (_, i) => own.users.add(`user${i}`)));
      for (const [i, user] of users.entries()) {
        const svc = await own.service(user.name);
        await svc.memories.store({ text: `User ${i} keeps the spare key under the blue flowerpot` });
        expect((await found(svc, "where is the spare key?"))[0]).toBe(`User ${i} keeps the spare key under the blue flowerpot`);
      }
      expect(lastMemoryIndex(own.context, users[0]!.id)).toBeUndefined();
      expect(lastMemoryIndex(own.context, users[1]!.id)).toBeDefined();
      const first = await own.service(users[0]!.name);
      expect(await found(first, "where is the spare key?")).toEqual(["User 0 keeps the spare key under the blue flowerpot"]);
      expect(lastMemoryIndex(own.context, users[0]!.id)).toBeDefined();
      expect(lastMemoryIndex(own.context, users[1]!.id)).toBeUndefined();
    } finally {
      await own.close();
    }
  });
});

describe("memory search on a table LanceDB has indexed", () => {
  // LanceDB builds a vector index from VECTOR_INDEX_MIN_ROWS rows, and only then does memory search
  // ask it for the nearest (below, the memory index compares every vector itself): 5,000 rows with
  // vectors given (no embedding) and the index built take ~3 s.
  it("takes the nearest from LanceDB's index and the rest from the memory index, and sees a delete made elsewhere", async () => {
    const dir = tempDir();
    const own = await openTestApp({ store: dir });
    try {
      const svc = await own.service();
      const userId = (await own.users.resolve("default")).id;
      const texts = ["Quarterly tax paperwork is filed in the grey cabinet", "I prefer window seats on long flights"];
      const [filler, seat] = await own.context.embedder.embedDocuments(texts);
      const count = VECTOR_INDEX_MIN_ROWS.memories;
      const requests = Array.from({ length: count }, (_, i) =>
        StoreMemoryRequest.parse({ text: i === 7 ? texts[1] : `${texts[0]}, folder ${i}` }),
      );
      const vectors = requests.map((_, i) => (i === 7 ? seat! : nudged(filler!, i)));
      await insertMemoryRows(own.context, userId, await memoryRows(own.context, userId, requests, vectors));
      await own.maintenance.run();
      expect(await unindexedVectors(own.context.store, "memories")).toBe(0);

      expect((await found(svc, "where do I like to sit on a plane?"))[0]).toBe(texts[1]);
      expect((await found(svc, "folder 4321"))[0]).toBe(`${texts[0]}, folder 4321`);
      const other = await openTestApp({ store: dir });
      try {
        const [seatMemory] = (await (await other.service()).memories.listV2({ query: "window seats", includeIds: true, count: 1 }))
          .memories as MemoryObject[];
        await (await other.service()).memories.delete(seatMemory!.id!);
      } finally {
        await other.close();
      }
      expect(await found(svc, "where do I like to sit on a plane?")).not.toContain(texts[1]);
    } finally {
      await own.close();
    }
  });
});

/** `base` moved a little, differently for each `i` (one vector per memory, all near one another). */
function nudged(base: Float32Array, i: number): Float32Array {
  const vector = Float32Array.from(base, (value, d) => value + 0.01 * Math.sin(i * 7.3 + d * 1.1));
  const length = Math.hypot(...vector);
  return vector.map((value) => value / length);
}
