import { describe, expect, it } from "vitest";
import { RecallPage, SearchPage } from "../../src/web/views/search.js";

const ctx = { userName: "default", csrf: "x", flash: undefined };
const html = async (element: unknown) => String(await (element as { toString(): string | Promise<string> }).toString());
const search = { results: [], totalResults: 0, query: "kanji", provider: "all", processingTime: 3 };
const recall = { content: "", sources: [], tokenCount: 0, processingTime: "4ms", model: "extractive" };

describe("search and recall pages while conversations wait to be indexed", () => {
  it("say how many are not searched yet, so that no results does not read as never discussed", async () => {
    const page = (pending: number) => SearchPage({ ctx, query: "kanji", platform: "", limit: 20, platforms: [], result: search, pending });
    expect(await html(page(3))).toContain("3 conversations are still being indexed and not searched yet");
    expect(await html(page(1))).toContain("1 conversation is still being indexed");
    expect(await html(page(0))).not.toContain("still being indexed");

    const recalled = (pending: number) => RecallPage({ ctx, query: "kanji", maxTokens: 1000, platform: "", result: recall, pending });
    expect(await html(recalled(2))).toContain("2 conversations are still being indexed and not searched yet");
    expect(await html(recalled(0))).not.toContain("still being indexed");
  });
});
