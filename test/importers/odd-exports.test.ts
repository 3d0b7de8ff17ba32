// Exports as they turn up in the wild rather than as documented: times written several ways,
// containers that hold no JSON export, and the like (fixtures/exports/odd/).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, fixtures } from "./collect.js";

const odd = (name: string) => join(fixtures, "odd", name);

describe("times written several ways", () => {
  it("ChatGPT: ISO strings, numeric strings, float seconds and milliseconds all give the same clock", async () => {
    const [conversation] = await collect(odd("chatgpt-times.json"));
    // Counted from the fixture by hand: 1709287200 s is 2024-03-01T10:00:00Z.
    expect(conversation?.conversation.createdAt).toBe("2024-03-01T10:00:00.000Z");
    expect(conversation?.conversation.updatedAt).toBe("2024-03-01T10:05:00.250Z");
    expect(conversation?.conversation.messages.map((message) => message.createdAt)).toEqual([
      "2024-03-01T10:00:00.500Z", // float seconds
      "2024-03-01T10:00:05.000Z", // ISO string
      "2024-03-01T10:01:00.000Z", // milliseconds
      "2024-03-01T10:01:05.000Z", // seconds as a string
    ]);
  });
});
