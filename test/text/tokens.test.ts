import { beforeAll, describe, expect, it } from "vitest";
import { breakLongRuns, loadTokenizer, type Tokenizer } from "../../src/text/tokens.js";

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await loadTokenizer();
});

describe("breakLongRuns", () => {
  it("leaves ordinary text alone, whatever kind of space separates its words", () => {
    const words = Array.from({ length: 60 }, () => "x".repeat(200));
    for (const space of [" ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\ufeff"]) {
      const text = words.join(space);
      expect(breakLongRuns(text)).toBe(text);
    }
  });

  it("cuts a run of more than 256 non-space characters into slices of 256", () => {
    const text = `before ${"é".repeat(600)} after`;
    expect(breakLongRuns(text)).toBe(`before ${"é".repeat(256)} ${"é".repeat(256)} ${"é".repeat(88)} after`);
    expect(breakLongRuns("y".repeat(256))).toBe("y".repeat(256));
  });
});

describe("tokenizer", () => {
  it("counts ordinary text exactly, and a long run by its slices", () => {
    expect(tokenizer.count("Hello there, world.")).toBe(5); // Hello · there · , · world · .
    const blob = "ab".repeat(1_000);
    expect(tokenizer.count(blob)).toBeGreaterThan(0);
    expect(tokenizer.count(blob)).toBe(
      Array.from({ length: 8 }, (_, i) => tokenizer.count(blob.slice(i * 256, (i + 1) * 256))).reduce((a, b) => a + b),
    );
    expect(tokenizer.within("short", 1)).toBe(true);
  });

  it("within holds a text of more tokens than characters to its count (a rare script: 3 tokens a character)", () => {
    const glagolitic = "Ⰰ".repeat(20);
    expect(tokenizer.count(glagolitic)).toBe(60);
    expect(tokenizer.within(glagolitic, 20)).toBe(false);
    expect(tokenizer.within(glagolitic, 60)).toBe(true);
  });
});
