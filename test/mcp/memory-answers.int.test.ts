import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, tempDir } from "../helpers.js";
import { callTool, type Connected, stdioClient, textOf } from "./mcp-helpers.js";

/** Memories through `mnemo mcp` over stdio, on a real store: what a model is handed. */

let mcp: Connected;
/** About 16,000 characters each: under the 20,000 a memory may hold. */
const REPEATS = 250;

beforeAll(async () => {
  mcp = await stdioClient(["mcp", "--store", path.join(tempDir(), "store")], isolatedEnv({ MNEMO_EMBEDDER: "bundled" }));
  for (const topic of ["the allotment", "the boiler", "the car"]) {
    const text = `2025-03-01 Notes on ${topic}. ${`The ${topic} needs looking at before winter, again and again. `.repeat(REPEATS)}`;
    const stored = await callTool(mcp, "store_memory", { text, ifSimilar: "store" });
    expect(stored.isError, textOf(stored)).toBeFalsy();
  }
}, 120_000);

afterAll(async () => {
  await mcp?.close();
});

const structuredTexts = (result: CallToolResult) =>
  (result.structuredContent as { memories: { text: string }[] }).memories.map((memory) => memory.text);

describe("a list of long memories", () => {
  it("is cut in the structured result as in the text, where the structure held each memory whole (3 made ~14k tokens beside ~1.2k of text)", async () => {
    for (const [tool, args] of [
      ["get_memories_and_buckets", {}],
      ["search_memories", { query: "notes before winter" }],
    ] as const) {
      const result = await callTool(mcp, tool, args);
      const texts = structuredTexts(result);
      expect(texts, tool).toHaveLength(3);
      for (const text of texts) {
        expect(text.length, tool).toBeLessThan(2_000);
        expect(text, tool).toMatch(/\[\d[\d,]* more characters: memory_history mem_\w+ gives the whole text, as its last version\]$/);
        expect(textOf(result), tool).toContain(text.replace(/\n/g, "\n   "));
      }
    }
  });

  it("is whole in memory_history, as the cut text says", async () => {
    const listed = await callTool(mcp, "get_memories_and_buckets", { count: 1 });
    const { id } = (listed.structuredContent as { memories: { id: string }[] }).memories[0]!;
    const history = await callTool(mcp, "memory_history", { memoryId: id });
    const [version] = (history.structuredContent as { versions: { text: string }[] }).versions;
    expect(version!.text.length).toBeGreaterThan(15_000);
  });
});

describe("delete_memories", () => {
  it("says which ids it found nothing to delete for, where it said only 'Deleted 0 memories.'", async () => {
    const stored = await callTool(mcp, "store_memory", { text: "2025-03-02 The spare key is under the blue pot" });
    const { memoryId } = stored.structuredContent as { memoryId: string };
    const missing = "mem_01M8KNR86EBAYTM4Z527627V4X";
    expect(textOf(await callTool(mcp, "delete_memories", { memoryIds: [memoryId, missing] }))).toBe(
      "Deleted 1 memory. 1 id was not found (deleted before, or never stored).",
    );
    expect(textOf(await callTool(mcp, "delete_memories", { memoryIds: [memoryId] }))).toBe(
      `Deleted 0 memories. Not found (deleted before, or never stored): ${memoryId}.`,
    );
    const many = Array.from({ length: 1000 }, (_, i) => `mem_01M8KNR86EBAYTM4Z52762${String(i).padStart(4, "0")}`);
    expect(textOf(await callTool(mcp, "delete_memories", { memoryIds: many }))).toBe(
      `Deleted 0 memories. Not found (deleted before, or never stored): ${many.slice(0, 10).join(", ")} and 990 more.`,
    );
  });
});
