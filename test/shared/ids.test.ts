import { describe, expect, it } from "vitest";
import { newId } from "../../src/shared/ids.js";

describe("ids", () => {
  it("are a prefix and a ULID, unique, and sort in the order they were made", () => {
    const ids = Array.from({ length: 5_000 }, () => newId("mem"));
    for (const id of ids) expect(id).toMatch(/^mem_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The random part, drawn afresh each millisecond (within one it counts up), takes many values at every position.
    const fresh = new Map<string, string>();
    while (fresh.size < 200) {
      const id = newId("usr");
      if (!fresh.has(id.slice(4, 14))) fresh.set(id.slice(4, 14), id.slice(-16));
    }
    for (let at = 0; at < 16; at++) expect(new Set([...fresh.values()].map((id) => id[at])).size).toBeGreaterThan(16);
  });
});
