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
  it("counts it rejected with the reason, and imports the others", async () => {
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
      const result = await runCli(["--json", "import", "--no-wait", file], { env: served.env });
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ new: 2, rejected: 1, failed: 0 });
      expect(summary.problems).toEqual([
        expect.objectContaining({ conversation: "Chat huge", reason: expect.stringMatching(/100,000 tokens/) }),
      ]);
    } finally {
      await served.stop();
    }
  });
});
