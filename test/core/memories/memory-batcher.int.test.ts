import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { AppError } from "../../../src/shared/errors.js";
import { openTestApp } from "../../helpers.js";

let app: App;
let service: MnemoService;

beforeAll(async () => {
  app = await openTestApp();
  service = await app.service();
});
afterAll(async () => {
  await app.close();
});

describe("memories stored at once share commits", () => {
  it("stores 120 concurrent memories in a handful of writes, each once, and fails a missing bucket's alone", async () => {
    await service.memories.store({ text: "warm the model up" });
    const { store } = app.context;
    const write = store.write.bind(store);
    let writes = 0;
    store.write = (work) => {
      writes++;
      return write(work);
    };
    const texts = Array.from({ length: 120 }, (_, i) => `2024-03-01 concurrent note ${i}`);
    const results = await Promise.allSettled([
      ...texts.map((text) => service.memories.store({ text })),
      service.memories.store({ text: "into a bucket that is not there", bucketId: 42 }),
      service.memories.store({ text: "   " }),
    ]);
    store.write = write;
    const stored = results.slice(0, 120);
    expect(stored.every((r) => r.status === "fulfilled")).toBe(true);
    const missing = results[120]!;
    expect(missing.status === "rejected" && (missing.reason as AppError).code).toBe("not_found");
    const empty = results[121]!;
    expect(empty.status === "rejected" && (empty.reason as AppError).details["field"]).toBe("text");
    expect(writes).toBeLessThanOrEqual(10); // batches of up to 64, two in flight: one write each
    const all = (await service.memories.list({ all: true, v: 1 })) as string[];
    for (const text of texts) expect(all.filter((t) => t === text)).toHaveLength(1);
    expect(all.some((t) => t.includes("not there"))).toBe(false);
    const ids = stored.map((r) => (r as PromiseFulfilledResult<{ memoryId: string }>).value.memoryId);
    expect(new Set(ids).size).toBe(120);
    const history = await service.memories.history(ids[7]!);
    expect(history.versions).toEqual([expect.objectContaining({ version: 1, text: texts[7] })]);
  });
});
