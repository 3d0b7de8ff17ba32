import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MemoryObject } from "../../src/schemas/memories.js";
import { isolatedEnv, openTestApp, tempDir } from "../helpers.js";

const WRITER = new URL("./writer-process.mjs", import.meta.url).pathname;

function writer(store: string, name: string, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, store, name, String(count)], {
      env: isolatedEnv(),
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
}

describe("two processes writing to one store at once", () => {
  it("lose nothing and duplicate nothing", async () => {
    const store = path.join(tempDir(), "store");
    // Create the store first so both writers open the same one.
    await (await openTestApp({ store })).close();
    const codes = await Promise.all([writer(store, "left", 30), writer(store, "right", 30)]);
    expect(codes).toEqual([0, 0]);

    const app = await openTestApp({ store });
    const service = await app.service();
    const memories = (await service.memories.listV2({ all: true, includeIds: true })).memories as MemoryObject[];
    const texts = memories.map((m) => m.text);
    const expected = ["left", "right"].flatMap((name) => [
      ...Array.from({ length: 30 }, (_, i) => `${name} memory ${i}`),
      ...Array.from({ length: 30 }, (_, i) => i)
        .filter((i) => i % 7 === 0)
        .map((i) => `${name} moved ${i}`),
    ]);
    expect(texts.sort()).toEqual(expected.sort());
    expect(new Set(memories.map((m) => m.id)).size).toBe(memories.length);

    const buckets = await service.buckets.list();
    const ids = buckets.map((b) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
    const names = buckets.map((b) => b.name);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    expect(names.filter((n) => n === "shared")).toHaveLength(1);
    expect(buckets.find((b) => b.name === "shared")!.memoryCount).toBe(10);
    expect(buckets.filter((b) => b.name.includes("bucket"))).toHaveLength(12);
    await app.close();
  }, 120_000);
});
