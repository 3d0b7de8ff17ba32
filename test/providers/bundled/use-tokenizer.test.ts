import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bundledModelDir } from "../../../src/providers/bundled/bundled-model-file.js";
import { UseTokenizer } from "../../../src/providers/bundled/use-tokenizer.js";
import { ROOT } from "../../helpers.js";

const vocabulary = JSON.parse(fs.readFileSync(path.join(bundledModelDir(), "vocab.json"), "utf8")) as [string, number][];

/** Every string in the fixture exports: real-looking chat text in several languages and shapes. */
function fixtureStrings(): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") found.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  for (const dir of ["chatgpt", "claude", "chatgpt-sharded"]) {
    for (const file of fs.readdirSync(path.join(ROOT, "fixtures", "exports", dir)).filter((name) => name.endsWith(".json"))) {
      walk(JSON.parse(fs.readFileSync(path.join(ROOT, "fixtures", "exports", dir, file), "utf8")));
    }
  }
  return found;
}

const EDGE_CASES = [
  "",
  " ",
  "   leading and trailing   ",
  "Hello, world!",
  "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and ligatures ﬁ ﬂ (NFKC)",
  "emoji 🚋🙂👩‍👩‍👧 and unknown symbols ⟁⟁⟁ ꙮ",
  "Straßenbahn, café, naïve, Zürich, São Paulo",
  "日本語のテキストと中文文本",
  "tabs\tand\nnewlines\r\nmixed",
  "x".repeat(500),
  "a.b.c.d.e.f.g.h",
  "�� replacement chars",
];

describe("USE lite tokenizer", () => {
  it("gives the same ids as the package's own tokenizer, on every fixture string and the edge cases", async () => {
    const { EmbeddingsModel } = await import("@energetic-ai/embeddings");
    const reference = new EmbeddingsModel({ vocabulary, model: undefined as never }).tokenizer;
    const ours = new UseTokenizer(vocabulary);
    const texts = [...EDGE_CASES, ...fixtureStrings()];
    expect(texts.length).toBeGreaterThan(300);
    for (const text of texts) expect(ours.encode(text), JSON.stringify(text.slice(0, 80))).toEqual(reference.encode(text));
  });
});
