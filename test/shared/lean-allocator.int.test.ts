import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { giveBackFreeMemory, useFewerArenas, useLeanAllocator } from "../../src/shared/lean-allocator.js";

const ARENA_COUNT = new URL("./arena-count.mjs", import.meta.url).pathname;
const V8_HEAP = new URL("./v8-heap.mjs", import.meta.url).pathname;

function v8Heap(...args: string[]): Record<string, number> {
  const run = spawnSync(process.execPath, [V8_HEAP, ...args], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, number>;
}
const glibc =
  process.platform === "linux" &&
  Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

function arenas(mode: "lean" | "arenas" | "default"): { applied: boolean; arenas: number } {
  const environment = { ...process.env };
  delete environment.GLIBC_TUNABLES;
  const run = spawnSync(process.execPath, [ARENA_COUNT, mode], { encoding: "utf8", env: environment });
  expect(run.status, run.stderr).toBe(0);
  return { ...(JSON.parse(run.stdout) as { applied: boolean }), arenas: run.stderr.match(/^Arena \d+:/gm)?.length ?? 0 };
}

describe.runIf(glibc)("useLeanAllocator (glibc)", () => {
  it("caps the arenas that threads allocating at once would each get", () => {
    const lean = arenas("lean");
    const plain = arenas("default");
    expect(lean.applied).toBe(true);
    expect(plain.arenas).toBeGreaterThan(lean.arenas);
    // The arenas made before the call stay (the main thread's and Node's own, a few); no more come.
    expect(lean.arenas).toBeLessThanOrEqual(6);
  });

  it("can give glibc's free memory back to the system", async () => {
    expect(await giveBackFreeMemory()).toBe(true);
  });

  it("the server's setting caps them the same way", () => {
    const capped = arenas("arenas");
    expect(capped.applied).toBe(true);
    expect(capped.arenas).toBeLessThanOrEqual(6);
    expect(arenas("default").arenas).toBeGreaterThan(capped.arenas);
  });
});

describe("useLeanAllocator", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("leaves the allocator alone when the user has set GLIBC_TUNABLES", async () => {
    vi.stubEnv("GLIBC_TUNABLES", "glibc.malloc.arena_max=4");
    expect(await useLeanAllocator()).toBe(false);
    expect(await useFewerArenas()).toBe(false);
  });
});

describe("a service's V8 heap", () => {
  it("keeps its young generation small after a worker thread starts, which sets V8's flags back", () => {
    expect(v8Heap("young").newSpaceMb).toBeLessThanOrEqual(4);
    expect(v8Heap("young", "unkept").newSpaceMb).toBeGreaterThan(8);
  });

  it("grows its old generation by half what lives in it, after a worker thread starts too", () => {
    // V8's own factor let this churn's heap reach 90–180 MB over ~20 MB alive; the setting, ~48.
    const kept = v8Heap("old").peakMb!;
    expect(kept).toBeLessThan(v8Heap("old", "unset").peakMb! * 0.7);
    expect(kept).toBeLessThan(v8Heap("old", "unkept").peakMb! * 0.7);
  });

  it("gives the pages a full collection empties back", () => {
    const { before = 0, after } = v8Heap("collect");
    expect(before).toBeGreaterThan(40);
    expect(after).toBeLessThan(before / 4);
  });
});
