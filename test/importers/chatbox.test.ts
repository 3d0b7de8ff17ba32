import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";
import { readFile, writeFile } from "node:fs/promises";

const backup = join(fixtures, "chatbox/chatbox-exported-data-2025-3-5.json");
const tmp = tempDir("mnemo-chatbox-");

describe("Chatbox's data export", () => {
  it("every session with text is a conversation, its id the session's, dated by its messages; a chat of only the default prompt is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(backup);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["chatbox-3f0c2a9e-5b7d-4e21-9c6a-1d8e4b2f7a10", "Lisbon tram pass", "2025-03-03T11:06:45.000Z", "2025-03-03T11:06:51.000Z"],
        ["chatbox-8a1e6c44-0f3b-4d9a-a2c7-5e9b1f0d3c28", "Fix the flaky pytest", "2025-03-04T14:53:22.000Z", "2025-03-04T14:55:20.000Z"],
      ],
    );
    expect(skipped).toEqual({ "conversations without any message text (an empty new chat)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["chatbox", "Chatbox"]);
    }
  });

  it("keeps the session's own system prompt, the fork shown, text, images and files; not reasoning", async () => {
    const { conversations } = await collectWithSkips(backup);
    expect(conversations[0]?.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["system-prompt", "human", "[system prompt]\nYou are a terse travel planner. Prices in euros."],
      ["m-u-1", "human", "Is a 24h Carris pass worth it for two tram rides and the Santa Justa lift?\n\n[image]\n\n[file: itinerary.pdf]"],
      ["m-a-1", "assistant", "Yes: two tram rides and the lift cost 12.30 euros separately, the 24h pass 6.80."],
    ]);
  });

  it("an earlier thread comes first; the app's default prompt, an error without text and a compaction summary are left out; a tool call is [tool: name]", async () => {
    const { conversations } = await collectWithSkips(backup);
    expect(conversations[1]?.conversation.messages.map((m) => [m.id, m.content])).toEqual([
      ["m-u-2", "test_upload fails one run in ten with a timeout"],
      ["m-u-3", "Look at our CI log and tell me why test_upload times out\n\nhttps://ci.example.org/run/4412"],
      [
        "m-a-3",
        "[tool: web_browsing]\n\nThe fixture starts the server without waiting for its port; add a readiness wait before the first request.",
      ],
    ]);
  });

  it("a damaged session costs only itself, named in the summary", async () => {
    const data = JSON.parse(await readFile(backup, "utf8")) as Record<string, unknown>;
    data["session:8a1e6c44-0f3b-4d9a-a2c7-5e9b1f0d3c28"] = "not a session";
    const damaged = join(tmp, "chatbox-exported-data-2025-3-5.json");
    await writeFile(damaged, JSON.stringify(data));
    const { conversations, problems } = await collectReporting(damaged);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Lisbon tram pass"]);
    expect(problems).toHaveLength(1);
  });

  it("an older export, its sessions in one chat-sessions list and messages' text in content, reads the same", async () => {
    const older = {
      "chat-sessions": [
        {
          id: "old-1",
          name: "Tide tables",
          messages: [
            { id: "o-sys", role: "system", content: "You are a sailing instructor." },
            { id: "o-u", role: "user", content: "When is high tide in Brest on Sunday?", timestamp: 1700000000000 },
            { id: "o-a", role: "assistant", content: "At 14:12, with a coefficient of 95.", timestamp: 1700000004000 },
          ],
        },
      ],
      settings: { theme: 0 },
      configVersion: 5,
    };
    const file = join(tmp, "chatbox-exported-data-2023-11-14.json");
    await writeFile(file, JSON.stringify(older));
    const { conversations } = await collectWithSkips(file);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.map((m) => m.content)])).toEqual([
      [
        "chatbox-old-1",
        ["[system prompt]\nYou are a sailing instructor.", "When is high tide in Brest on Sunday?", "At 14:12, with a coefficient of 95."],
      ],
    ]);
  });
});
