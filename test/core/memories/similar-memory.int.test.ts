import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { openTestApp, tempDir } from "../../helpers.js";

/**
 * store_memory's near-duplicate check ("ifSimilar": "skip") keeps the content words of the user's
 * memories in memory (core/memories/memory-index.ts): whatever changes the memories table, in
 * this process or another, must reach it before the next check.
 */
let app: App;
let service: MnemoService;
let store: string;

const skip = (text: string) => service.memories.store({ text, ifSimilar: "skip" });
const LOCKER = "My gym locker code is 4512";

beforeAll(async () => {
  store = path.join(tempDir(), "store");
  app = await openTestApp({ store });
  service = await app.service();
  for (const text of ["I take the 8:15 train to work", "The wifi password is on the fridge", "My bike is a blue Brompton"])
    await service.memories.store({ text });
});
afterAll(async () => {
  await app.close();
});

describe("the near-duplicate check", () => {
  it("names a bucket that does not exist before it looks for a similar memory, as a plain store does", async () => {
    const spareKey = "The spare house key hangs behind the blue door";
    await skip(spareKey);
    for (const ifSimilar of ["skip", "store"] as const) {
      await expect(service.memories.store({ text: spareKey, bucketId: 99, ifSimilar })).rejects.toMatchObject({
        code: "not_found",
        message: "bucketId: bucket 99 does not exist",
      });
    }
  });

  it("follows edits, deletions and other processes' stores", async () => {
    const first = await skip(`2025-06-01 ${LOCKER}`);
    expect(first.done).toBe("ok");
    expect(await skip(`2025-07-01 ${LOCKER}`)).toMatchObject({ done: "exists", memoryId: first.memoryId });
    await app.context.store.settle();
    expect(await skip(`2025-08-01 ${LOCKER}`)).toMatchObject({ done: "exists", memoryId: first.memoryId });

    await service.memories.update({ memoryId: first.memoryId, text: "My bike lock code is 9921" });
    const again = await skip(`2025-09-01 ${LOCKER}`);
    expect(again.done).toBe("ok");
    await app.context.store.settle();
    expect((await service.memories.bulkDelete({ memoryIds: [again.memoryId] })).deletedCount).toBe(1);
    expect((await skip(`2025-10-01 ${LOCKER}`)).done).toBe("ok");

    const other = await openTestApp({ store });
    try {
      await (await other.service()).memories.store({ text: "2025-08-01 The plumber Tomasz comes on Tuesday mornings" });
    } finally {
      await other.close();
    }
    expect((await skip("2025-08-02 The plumber Tomasz comes on Tuesday mornings")).done).toBe("exists");
  });

  it("stores the same fact sent several times at once only once: each call's check sees the one before it", async () => {
    const text = "2025-10-01 My passport number ends in 4471";
    const answers = await Promise.all(Array.from({ length: 6 }, () => skip(text)));
    const stored = answers.filter((answer) => answer.done === "ok");
    expect(stored).toHaveLength(1);
    expect(answers.filter((answer) => answer.done === "exists").map((answer) => answer.memoryId)).toEqual(
      Array(5).fill(stored[0]!.memoryId),
    );
    const found = (await service.memories.listV2({ all: true, count: 1000 })).memories.filter((m) => JSON.stringify(m).includes("4471"));
    expect(found).toHaveLength(1);
  });

  it("answers with the memory as it is now: moved to another bucket, and its text as edited", async () => {
    const fact = "2025-06-01 Our landlord Ingrid collects the rent on the third";
    const first = await skip(fact);
    await app.context.store.settle();
    expect(await skip(fact)).toMatchObject({ done: "exists", similar: { bucketId: 1 } });
    const { bucket: home } = await service.buckets.create({ name: "Home" });
    await service.memories.update({ memoryId: first.memoryId, bucketName: "Home" });
    expect(await skip(fact)).toMatchObject({ done: "exists", memoryId: first.memoryId, similar: { bucketId: Number(home.id) } });
    const edited = "2025-06-01 Our landlord Ingrid collects the rent on the third of each month";
    await service.memories.update({ memoryId: first.memoryId, text: edited });
    expect(await skip(fact)).toMatchObject({ done: "exists", memoryId: first.memoryId, similar: { text: edited } });
  });
});
