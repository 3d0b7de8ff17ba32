import { z } from "zod";
import { describe, expect, it } from "vitest";
import { parseInput } from "../../src/schemas/parse.js";
import { AppError } from "../../src/shared/errors.js";

const Upload = z.object({ conversation: z.object({ messages: z.array(z.object({ content: z.string() })) }) });

function fieldOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? error.details["field"] : error;
  }
  return undefined;
}

describe("parseInput refuses text that is not Unicode, naming where it is", () => {
  it("in a value, however deep, in a field the schema ignores, or in a field's name", () => {
    const input = { conversation: { messages: [{ content: "ok" }, { content: "a\ud800" }] } };
    expect(fieldOf(() => parseInput(Upload, input))).toBe("conversation.messages[1].content");
    expect(fieldOf(() => parseInput(Upload, { ...input, extra: ["\udfff"] }))).toBe("extra[0]");
    expect(fieldOf(() => parseInput(Upload, { conversation: { "\ud83d": 1 } }))).toBe("conversation");
    expect(fieldOf(() => parseInput(z.string(), "\udc00", "memoryId"))).toBe("memoryId");
    expect(fieldOf(() => parseInput(z.string(), "\udc00"))).toBe("body");
  });

  it("takes surrogate pairs and U+FFFD, and nesting 100,000 deep without overflowing the stack", () => {
    expect(parseInput(z.string(), "🦊\ufffd")).toBe("🦊\ufffd");
    const deep = JSON.parse(`${"[".repeat(100_000)}"\\ud800"${"]".repeat(100_000)}`);
    expect(fieldOf(() => parseInput(z.unknown(), deep))).toMatch(/^\[0\]\[0\]/);
  });
});

describe("parseInput names the schema's own bound", () => {
  it("rather than the safe-integer range zod puts on every int", () => {
    const Limit = z.object({ limit: z.number().int().min(1, "must be 1 to 100").max(100, "must be 1 to 100") });
    for (const limit of [1e308, -1e308]) {
      expect(() => parseInput(Limit, { limit })).toThrow(/limit: must be 1 to 100/);
    }
  });
});

describe("parseInput's words for a missing field", () => {
  it("say a missing field of a fixed set of values is required, and which values it takes, not 'not undefined'", async () => {
    const { UploadConversation } = await import("../../src/schemas/chat-history.js");
    const upload = { conversation: { id: "c1", title: "t", createdAt: "2024-01-01T00:00:00Z", messages: [{ id: "m1", content: "hi" }] } };
    expect(() => parseInput(UploadConversation, upload)).toThrow('conversation.messages[0].role: is required: one of "human", "assistant"');
  });
});

describe("parseInput refuses a field named __proto__, wherever it is", () => {
  it("as a streamed upload does, naming the object that holds it: the same body had been taken whole and refused streamed", () => {
    expect(fieldOf(() => parseInput(Upload, JSON.parse('{"__proto__":{"x":1},"conversation":{"messages":[]}}')))).toBe("body");
    expect(fieldOf(() => parseInput(Upload, JSON.parse('{"conversation":{"messages":[{"content":"a","__proto__":{}}]}}')))).toBe(
      "conversation.messages[0]",
    );
    expect(parseInput(Upload, JSON.parse('{"conversation":{"messages":[{"content":"__proto__"}]}}'))).toBeTruthy();
  });
});

describe("parseInput names a field a strict body does not take", () => {
  const Ids = z.strictObject({ memoryIds: z.array(z.string()) });
  const suggestionOf = (input: unknown) => {
    try {
      parseInput(Ids, input);
    } catch (error) {
      return error instanceof AppError ? error.suggestion : error;
    }
    return undefined;
  };

  it("with the field it misspells, unless that field is sent too", () => {
    expect(suggestionOf({ memoryId: "mem_a" })).toBe("Send memoryId as memoryIds.");
    expect(suggestionOf({ memoryIds: ["mem_a"], memoryId: "mem_b" })).toBeUndefined();
  });
});
