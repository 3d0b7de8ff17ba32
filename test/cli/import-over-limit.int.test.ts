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

function exportWithOneOverLimit(): string {
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
  return file;
}

/** A Claude export holding one conversation of ~120,000 tokens: an export holds it whole, so mnemo may cut it. */
function claudeExportOverLimit(updatedAt = "2024-03-02T09:00:00Z"): string {
  const file = path.join(tempDir(), "conversations.json");
  const messages = Array.from({ length: 40 }, (_, i) => ({
    uuid: `m${i}`,
    sender: i % 2 ? "assistant" : "human",
    text: Array.from({ length: 1_000 }, (_, w) => `note ${i * 1_000 + w}`).join(" "),
    created_at: new Date(Date.UTC(2024, 2, 1, 9, i)).toISOString(),
  }));
  const record = {
    uuid: "huge",
    name: "Refactoring day",
    created_at: "2024-03-01T09:00:00Z",
    updated_at: updatedAt,
    chat_messages: messages,
  };
  fs.writeFileSync(file, JSON.stringify([record]));
  return file;
}

describe("import of an export with a conversation over 100,000 tokens", () => {
  it("an export's conversation is stored in parts under the limit, none rejected, and said so", async () => {
    const store = tempDir();
    const file = claudeExportOverLimit();
    // ~4 s: four commands on a store of its own. --no-wait: the parts' ~600 chunks would take seconds more to
    // embed; that each is under the limit is what the index worker checks.
    const dry = await runCli(["--store", store, "import", "--dry-run", file]);
    expect(dry.stderr).toMatch(/Would import 2 new conversations \(1 conversation over 100,000 tokens in 2 parts\)$/m);
    const result = await runCli(["--json", "--store", store, "import", "--no-wait", file]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      new: 2,
      rejected: 0,
      failed: 0,
      inParts: [{ conversation: "Refactoring day", parts: 2 }],
    });
    const listed = JSON.parse((await runCli(["--json", "--store", store, "chats", "list"])).stdout);
    const parts = listed.items.map((item: { title: string; tokenCount: number; messageCount: number }) => [
      item.title,
      item.tokenCount <= 100_000,
    ]);
    expect(new Map(parts)).toEqual(
      new Map([
        ["Refactoring day", true],
        ["Refactoring day (part 2)", true],
      ]),
    );
    const again = await runCli(["--store", store, "import", "--no-wait", file]);
    expect(again.stderr).toMatch(/Nothing new: all 2 conversations were already imported$/m);
  });

  it("with an updated_at at its start (before its second part begins), every part is stored, not the whole file refused", async () => {
    const result = await runCli(["--json", "--store", tempDir(), "import", "--no-wait", claudeExportOverLimit("2024-03-01T09:00:00Z")]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ new: 2, failed: 0, inParts: [{ conversation: "Refactoring day", parts: 2 }] });
  });

  it("on this machine's store: counts it once, as rejected, not also as new", async () => {
    const store = tempDir();
    const result = await runCli(["--json", "--store", store, "import", exportWithOneOverLimit()]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ new: 2, updated: 0, rejected: 1, failed: 0 });
    const human = await runCli(["--store", store, "import", exportWithOneOverLimit()]);
    expect(human.stderr).toMatch(/Nothing new: 2 conversations were already imported; 1 rejected$/m);
  });

  it("through a server: imports the others, and the server rejects it with the reason as it indexes", async () => {
    const file = exportWithOneOverLimit();
    const served = await serveStore();
    try {
      // The file goes whole to the server's upload endpoint, which imports it as `mnemo import` does:
      // the conversation over the limit is stored, then rejected in background processing (spec §3).
      const result = await runCli(["--json", "import", file], { env: served.env });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ new: 2, rejected: 1, failed: 0 });
      const listed = JSON.parse((await runCli(["--json", "chats", "list"], { env: served.env })).stdout);
      const byTitle = new Map(listed.items.map((item: { title: string }) => [item.title, item]));
      expect(byTitle.get("Chat huge")).toMatchObject({
        status: "rejected",
        statusReason: expect.stringMatching(/over the limit of 100,000 /),
      });
      expect(byTitle.get("Chat before")).toMatchObject({ status: "ready" });
      expect(byTitle.get("Chat after")).toMatchObject({ status: "ready" });
    } finally {
      await served.stop();
    }
  });
});
