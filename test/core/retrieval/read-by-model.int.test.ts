import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { PROBABLY_UNRELATED } from "../../../src/core/retrieval/relevance.js";
import { PASSAGE_THRESHOLD } from "../../../src/core/retrieval/passage-relevance.js";
import type { MemoryObject } from "../../../src/schemas/memories.js";
import { openAppWithChats } from "../../helpers.js";

// The bundled model reads English only: texts in other scripts and languages come out nearly alike
// to it, so its similarity between them, or between them and a nonsense query, is no sign of meaning
// (core/retrieval/read-by-model.ts). Those texts are found by their words alone.

const FOREIGN = [
  "我的猫叫小白，喜欢吃鱼",
  "東京の友達は来月結婚します",
  "저는 매일 아침 커피를 마십니다",
  "Мой брат живёт в Москве",
  "مرحبا، اسمي أحمد وأعيش في القاهرة",
  "Mon chien s'appelle Biscuit et il adore la plage",
  "Ich trinke jeden Morgen zwei Tassen Kaffee",
];
const chat = (id: string, text: string) => ({
  platform: "chatgpt",
  conversation: { id, title: "", createdAt: "2025-01-02T10:00:00Z", messages: [{ id: `${id}-0`, role: "human", content: text }] },
});

let app: App;
let service: MnemoService;

beforeAll(async () => {
  ({ app, service } = await openAppWithChats([
    ...FOREIGN.map((text, i) => chat(`foreign-${i}`, text)),
    chat("dog", "My dog Biscuit is a beagle"),
  ]));
  for (const text of [...FOREIGN, "My dog Biscuit is a beagle", "I take the 8:15 train to work", "Ana lives in Porto"]) {
    await service.memories.store({ text });
  }
});
afterAll(async () => app.close());

const memories = async (query: string) =>
  (await service.memories.listV2({ query, count: 10, includeIds: true })).memories as MemoryObject[];

describe("texts in scripts and languages the model does not read", () => {
  const NONSENSE = ["zxqv blorptangle frobnicate", "asdf qwer"];

  it("score nothing for a nonsense question in memories", async () => {
    for (const query of NONSENSE) {
      for (const memory of await memories(query)) expect(memory.score, `${query}: ${memory.text}`).toBeLessThan(PROBABLY_UNRELATED);
    }
  });

  it("score nothing for a nonsense question in chats, and recall cites none of them", async () => {
    for (const query of NONSENSE) {
      const { results } = await service.search({ query, limit: 10 });
      expect(
        results.filter((hit) => hit.score >= PASSAGE_THRESHOLD),
        query,
      ).toEqual([]);
      expect((await service.recall({ query, maxTokens: 500 })).sources, query).toEqual([]);
    }
  });

  it("are found by their words, above those of another script", async () => {
    const [first, ...rest] = await memories("我的猫叫什么名字");
    expect(first?.text).toContain("我的猫叫小白，喜欢吃鱼");
    expect(first!.score).toBeGreaterThanOrEqual(PROBABLY_UNRELATED);
    for (const memory of rest) expect(memory.score, memory.text).toBeLessThan(PROBABLY_UNRELATED);
    expect((await memories("где живёт брат"))[0]?.text).toContain("Мой брат живёт в Москве");
    const [coffee, ...others] = await memories("wie viel Kaffee trinke ich");
    expect(coffee?.text).toContain("Ich trinke jeden Morgen zwei Tassen Kaffee");
    for (const memory of others) expect(memory.score, memory.text).toBeLessThan(PROBABLY_UNRELATED);
    expect((await memories("what breed is my dog"))[0]?.text).toContain("My dog Biscuit is a beagle");
    const { results } = await service.search({ query: "我的猫叫什么名字", limit: 10 });
    expect(results.filter((hit) => hit.score >= PASSAGE_THRESHOLD).map((hit) => hit.text)).toEqual([FOREIGN[0]]);
  });
});
