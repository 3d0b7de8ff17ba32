import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, serveStore, tempDir } from "../helpers.js";

const conversation = (id: string, contents: string[]) => ({
  conversation: {
    id,
    title: `Chat ${id}`,
    createdAt: "2024-03-01T09:00:00Z",
    messages: contents.map((content, i) => ({ id: `m${i}`, role: i % 2 ? "assistant" : "human", content })),
  },
});

describe("import --remote of an export with a conversation over 100,000 tokens", () => {
  it("imports the others, and the server rejects it with the reason as it indexes", async () => {
    const file = path.join(tempDir(), "export.jsonl");
    const lines = [
      conversation("before", ["The tram to Alfama is number 28.", "Noted."]),
      conversation(
        "huge",
        Array.from({ length: 40_000 }, (_, i) => `note ${i}`),
      ), // ~120,000 tokens
      conversation("after", ["Pastéis de nata in Belém.", "Noted."]),
    ];
    fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n"));
    const served = await serveStore();
    try {
      // The file goes whole to the server's upload endpoint, which imports it as `mnemo import` does:
      // the conversation over the limit is stored, then rejected in background processing (spec §3).
      const result = await runCli(["--json", "import", file], { env: served.env });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ new: 3, failed: 0 });
      const listed = JSON.parse((await runCli(["--json", "chats", "list"], { env: served.env })).stdout);
      const byTitle = new Map(listed.items.map((item: { title: string }) => [item.title, item]));
      expect(byTitle.get("Chat huge")).toMatchObject({
        status: "rejected",
        statusReason: expect.stringMatching(/over the limit of 100000/),
      });
      expect(byTitle.get("Chat before")).toMatchObject({ status: "ready" });
      expect(byTitle.get("Chat after")).toMatchObject({ status: "ready" });
    } finally {
      await served.stop();
    }
  });
});
