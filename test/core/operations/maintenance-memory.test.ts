import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Store } from "../../../src/store/store.js";
import { tempDir } from "../../temp-dirs.js";

const giveBack = vi.hoisted(() => vi.fn(async () => true));
vi.mock("../../../src/shared/lean-allocator.js", async (original) => ({ ...(await original<object>()), giveBackFreeMemory: giveBack }));
// The unit project shares its modules between files: load maintenance.js afresh, with the mock.
vi.resetModules();
const { Maintenance } = await import("../../../src/core/operations/maintenance.js");

/** A store whose every read fails: the maintenance looks that writes trigger find nothing to do. */
const unreadable = { table: async () => Promise.reject(new Error("not read in this test")) } as unknown as Store;

describe("a server's maintenance hands free memory back", () => {
  afterEach(() => {
    vi.useRealTimers();
    giveBack.mockClear();
  });

  it("once a minute while writes go on, and not while none come", async () => {
    vi.useFakeTimers();
    const maintenance = new Maintenance(
      unreadable,
      path.join(tempDir(), "maintenance.lock"),
      path.join(tempDir(), "reindex.lock"),
      "background",
      tempDir(),
    );
    for (let i = 0; i < 3; i++) maintenance.afterWrite();
    await vi.advanceTimersByTimeAsync(59_000);
    expect(giveBack).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(giveBack).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(300_000);
    expect(giveBack).toHaveBeenCalledTimes(1);
    maintenance.afterWrite();
    await vi.advanceTimersByTimeAsync(61_000);
    expect(giveBack).toHaveBeenCalledTimes(2);
    await maintenance.close();
  });

  it("a one-shot command leaves it to its exit", async () => {
    vi.useFakeTimers();
    const maintenance = new Maintenance(
      unreadable,
      path.join(tempDir(), "maintenance.lock"),
      path.join(tempDir(), "reindex.lock"),
      "detached",
      tempDir(),
    );
    maintenance.afterWrite();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(giveBack).not.toHaveBeenCalled();
    await maintenance.close().catch(() => undefined);
  });
});
