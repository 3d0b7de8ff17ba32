// Message ids an export repeats on purpose: numbering the repeats must stay linear however the
// numbers they would take are already taken.
import { describe, expect, it } from "vitest";
import { uniqueIds } from "../../src/importers/message-ids.js";
import type { UploadMessage } from "../../src/schemas/chat-history.js";

const message = (id: string): UploadMessage => ({ id, role: "human", content: "x" });

describe("hostile message ids", () => {
  // Tried from each repeat's count afresh, the numbers taken were tried again by every repeat:
  // 20,000 took from 30 s to 3 minutes; so the old code fails here by the test's limit, 10 s (after 30 s).
  it("20,000 repeats of `m` after messages m-2 … m-20001 are numbered in one pass", { timeout: 10_000 }, () => {
    const taken = Array.from({ length: 20_000 }, (_, i) => message(`m-${i + 2}`));
    const ids = uniqueIds([...taken, ...taken.map(() => message("m"))]).map(({ id }) => id);
    expect(new Set(ids).size).toBe(40_000);
    expect(ids.slice(20_000, 20_002)).toEqual(["m", "m-20002"]);
    expect(ids.at(-1)).toBe("m-40000");
  });

  it("repeats are numbered as before: from their count, past the numbers taken", () => {
    const ids = ["a", "a-2", "a", "a", "b", "a-3", "a", "b", "a-2"];
    expect(uniqueIds(ids.map(message)).map(({ id }) => id)).toEqual(["a", "a-2", "a-4", "a-5", "b", "a-3", "a-6", "b-2", "a-2-2"]);
  });
});
