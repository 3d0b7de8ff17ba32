import { afterAll, beforeAll, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { MemoryObject } from "../../../src/schemas/memories.js";
import { openAppWithChats } from "../../helpers.js";

// A question's accents typed as marks of their own (e and U+0301: macOS's file names, some keyboards,
// text pasted from them) find what the composed accents find, as well (schemas/recall.ts QueryText).

let app: App;
let service: MnemoService;

beforeAll(async () => {
  const paris = {
    conversation: {
      id: "paris",
      title: "Lunch in Paris",
      createdAt: "2024-03-01T09:00:00Z",
      messages: [
        { id: "1", role: "human" as const, content: "Where should we have lunch in Saint-Germain?" },
        { id: "2", role: "assistant" as const, content: "Try Café Procope, the oldest café in Paris, near Odéon." },
      ],
    },
  };
  ({ app, service } = await openAppWithChats([paris]));
  await service.memories.store({ text: "Our favourite café in Lyon is Café des Fédérations" });
});
afterAll(async () => app.close());

const decomposed = (text: string) => text.normalize("NFD");

it("scores a search, a recall and a memory search the same whichever way the accents are written", async () => {
  for (const query of ["café", "Café Procope near Odéon"]) {
    const [composed, apart] = await Promise.all([query, decomposed(query)].map((q) => service.search({ query: q, limit: 1 })));
    expect(apart!.results[0]?.score, query).toBe(composed!.results[0]?.score);
    const [told, toldApart] = await Promise.all([query, decomposed(query)].map((q) => service.recall({ query: q, maxTokens: 200 })));
    expect(
      toldApart!.sources.map((source) => source.relevanceScore),
      query,
    ).toEqual(told!.sources.map((source) => source.relevanceScore));
  }
  const memory = async (query: string) =>
    ((await service.memories.listV2({ query, includeIds: true, count: 1 })).memories as MemoryObject[])[0]?.score;
  expect(await memory(decomposed("Fédérations café"))).toBe(await memory("Fédérations café"));
});
