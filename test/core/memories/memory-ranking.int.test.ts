// Memory search ranks meaning over one shared common word, and its scores say how relevant a
// memory is (issue 27), on fixtures/memories/paraphrased-questions.json: a few dozen short memories,
// questions asked in other words, and questions about none of them.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import { searchMemories } from "../../../src/core/memories/memory-search.js";
import { PROBABLY_UNRELATED } from "../../../src/core/retrieval/relevance.js";
import { openTestApp, ROOT } from "../../helpers.js";

interface Fixture {
  memories: Record<string, string>;
  questions: { query: string; answer: string }[];
  unrelated: string[];
}
const fixture: Fixture = JSON.parse(fs.readFileSync(path.join(ROOT, "fixtures", "memories", "paraphrased-questions.json"), "utf8"));

let app: App;
let userId: string;

beforeAll(async () => {
  app = await openTestApp();
  const service = await app.service();
  for (const [key, text] of Object.entries(fixture.memories)) await service.memories.store({ text, source: key });
  userId = (await app.users.resolve("default")).id;
});
afterAll(async () => app.close());

async function ranked(query: string, tuning: { mode?: "vector" | "bm25"; fusion?: "rrf" } = {}) {
  const hits = await searchMemories(app.context, { query, filter: { userId }, limit: 5, columns: ["source"], ...tuning });
  return hits.map((hit) => ({ key: hit.row.source, score: hit.score }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("memory search", () => {
  it("ranks the memory that means what was asked above one that shares a common word", async () => {
    expect((await ranked("what text editor do I use"))[0]!.key).toBe("editor");
    expect((await ranked("infrastructure as code"))[0]!.key).toBe("infra");
    // The weighted RRF it replaces put a memory that only says "use" first.
    expect(["infra", "darkmode"]).toContain((await ranked("what text editor do I use", { fusion: "rrf" }))[0]!.key);
  });

  it("finds the answer first at least as often as the vector leg alone, and far more often than the text leg", async () => {
    const firsts = async (tuning: Parameters<typeof ranked>[1]) => {
      let found = 0;
      for (const { query, answer } of fixture.questions) if ((await ranked(query, tuning))[0]?.key === answer) found++;
      return found;
    };
    const [hybrid, vector, text] = [
      await firsts({}),
      await firsts({ mode: "vector", fusion: "rrf" }),
      await firsts({ mode: "bm25", fusion: "rrf" }),
    ];
    expect(hybrid).toBeGreaterThanOrEqual(vector);
    expect(hybrid).toBeGreaterThan(text);
    expect(hybrid).toBeGreaterThanOrEqual(fixture.questions.length - 4);
  });

  it("scores how relevant a memory is: a question about nothing stored scores low, never 1", async () => {
    const answered = await Promise.all(fixture.questions.map(async ({ query }) => (await ranked(query))[0]!.score));
    const unrelated = await Promise.all(fixture.unrelated.map(async (query) => (await ranked(query))[0]?.score ?? 0));
    expect(Math.max(...unrelated)).toBeLessThan(1);
    expect(median(unrelated)).toBeLessThan(PROBABLY_UNRELATED);
    expect(median(answered)).toBeGreaterThan(0.5);
    for (const score of [...answered, ...unrelated]) expect(score).toBeGreaterThanOrEqual(0);
  });

  it("does not count one shared common word when the store lacks what the question is about", async () => {
    // "work" is in two memories, "transistor" in none: the store holds little of the question.
    const [transistor] = await ranked("how does a transistor work");
    expect(transistor!.score).toBeLessThan(PROBABLY_UNRELATED);
    // The same word, when the rest of the question is as common, still counts.
    const jazz = (await ranked("what do I put on while working")).find((hit) => hit.key === "music");
    expect(jazz!.score).toBeGreaterThanOrEqual(PROBABLY_UNRELATED);
  });
});

describe("memory search on a store of a few memories", () => {
  it("finds the dog for a pet question beside one other memory, and does not call it probably unrelated", async () => {
    const own = await openTestApp();
    const service = await own.service();
    await service.memories.store({ text: "2025-05-01 My dog Biscuit is a golden retriever" });
    await service.memories.store({ text: "2025-05-01 I'm allergic to peanuts" });
    const found = (await service.memories.list({ query: "what kind of pet do I have?" })) as { text: string; score: number }[];
    expect(found[0]!.text).toContain("Biscuit");
    expect(found[0]!.score).toBeGreaterThanOrEqual(PROBABLY_UNRELATED);
    // A question naming someone the memories never mention stays under the threshold.
    const named = (await service.memories.list({ query: "what does Priya think of my dog?" })) as { score: number }[];
    expect(named[0]!.score).toBeLessThan(PROBABLY_UNRELATED);
    await own.close();
  });
});
