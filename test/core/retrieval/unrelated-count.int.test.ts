import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { openAppWithChats } from "../../helpers.js";

/** One long conversation, many chunks side by side: the passages a search about nothing finds lie next to each other. */
const GARDEN = {
  platform: "markdown",
  conversation: {
    id: "garden",
    title: "A long planning session about the garden",
    createdAt: "2025-03-01T09:00:00Z",
    messages: Array.from({ length: 200 }, (_, i) => ({
      id: `garden-${i}`,
      role: (i % 2 === 0 ? "human" : "assistant") as "human" | "assistant",
      content:
        i % 2 === 0
          ? `Question ${i}: what should I plant in bed ${i} given clay soil and partial shade?`
          : `For bed ${i}, consider hostas, ferns and astilbe. ${"Clay soil retains water, so add compost. ".repeat(1 + (i % 5))}`,
    })),
  },
};

let app: App;
let service: MnemoService;

beforeAll(async () => {
  ({ app, service } = await openAppWithChats([GARDEN]));
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe("the count of probably unrelated passages a search leaves out", () => {
  it("is how many it then shows marked so, where it counted passages a neighbour shows as context (20 said left out, 6 then shown)", async () => {
    const query = "xylophone quantum zebra";
    const left = await service.search({ query, limit: 20 });
    const shown = await service.search({ query, limit: 20, includeUnrelated: true });
    expect(left.totalResults).toBe(0);
    expect(shown.results.every((hit) => hit.probablyUnrelated)).toBe(true);
    expect(left.unrelatedResults).toBe(shown.results.length);
    expect(shown.unrelatedResults).toBe(shown.results.length);
  });
});
