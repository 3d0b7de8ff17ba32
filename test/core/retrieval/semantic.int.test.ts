import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { openTestApp } from "../../helpers.js";
import { MEMORIES, QUERIES } from "./semantic-cases.js";

const STOP_WORDS = new Set(
  "a an and are as at be but by do does for from get go have how i if in into is it its me my of on or so that the their them this to up we what when where which who why will with you your".split(
    " ",
  ),
);
const contentWords = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .match(/[a-z0-9']+/g)!
      .filter((word) => !STOP_WORDS.has(word)),
  );

let app: App;
let service: MnemoService;

beforeAll(async () => {
  app = await openTestApp();
  service = await app.service();
  await service.memories.storeMany(MEMORIES.map((text) => ({ text })));
});
afterAll(async () => app.close());

describe("semantic retrieval with the bundled embedder", () => {
  it("has enough cases, half of them with no content word in common with their target", () => {
    expect(MEMORIES.length).toBeGreaterThanOrEqual(20);
    expect(QUERIES.length).toBeGreaterThanOrEqual(10);
    for (const [question, target, disjoint] of QUERIES) {
      const shared = [...contentWords(question)].filter((word) => contentWords(MEMORIES[target]!).has(word));
      expect(shared.length === 0, `${question}: shares ${shared.join(", ")}`).toBe(disjoint);
    }
    expect(QUERIES.filter(([, , disjoint]) => disjoint).length * 2).toBeGreaterThanOrEqual(QUERIES.length);
  });

  it.each(QUERIES)("%s → ranks its memory first", async (question, target) => {
    const results = (await service.memories.list({ query: question })) as { text: string; score: number }[];
    expect(results[0]?.text).toBe(MEMORIES[target]);
  });
});
