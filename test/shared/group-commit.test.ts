import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/shared/group-commit.js";

describe("GroupCommit", () => {
  it("handles a lone item at once, and items that arrive meanwhile together, by key, a few at a time", async () => {
    const batches: string[][] = [];
    const commit = new GroupCommit<string, string>(
      async (key, items) => {
        batches.push(items);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return items.map((item) => (item.endsWith("!") ? { ok: false, error: new Error(item) } : { ok: true, value: `${key}:${item}` }));
      },
      (item) => item[0]!,
      3,
    );
    expect(await commit.add("a1")).toBe("a:a1");
    const results = await Promise.allSettled(["a2", "b1", "a3", "a4!", "b2", "a5"].map((item) => commit.add(item)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      "a:a2",
      "b:b1",
      "a:a3",
      "a4!",
      "b:b2",
      "a:a5",
    ]);
    // a2 alone (nothing was under way), then the rest in batches of at most 3, split by key.
    expect(batches).toEqual([["a1"], ["a2"], ["b1"], ["a3", "a4!"], ["b2"], ["a5"]]);
  });

  it("fails every item of a batch whose handling throws, and goes on with the next", async () => {
    let calls = 0;
    const commit = new GroupCommit<number, number>(
      async (_key, items) => {
        if (calls++ === 0) throw new Error("disk full");
        return items.map((value) => ({ ok: true, value }));
      },
      () => "k",
      10,
    );
    const [first, second] = await Promise.allSettled([commit.add(1), commit.add(2)]);
    expect(first.status).toBe("rejected");
    expect(second).toEqual({ status: "fulfilled", value: 2 });
  });
});
