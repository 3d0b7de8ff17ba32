import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collectWithSkips, fixtures } from "./collect.js";

const backup = join(fixtures, "nextchat/Backup-2026_3_14 09_12_40.json");

describe("NextChat's backup", () => {
  it("every session with text is a conversation, its id the session's, its time the last update; an empty new chat is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(backup);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt])).toEqual([
      ["nextchat-Xq3vK9pLm2RtYw8ZbN4cD", "Sourdough hydration math", "2026-03-14T09:06:02.000Z"],
      ["nextchat-Pn7wQ2sVx5HkRj3FcT9aE", "Weather in Porto via MCP", "2026-03-13T18:40:09.000Z"],
    ]);
    expect(skipped).toEqual({ "conversations without any message text (an empty new chat)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["nextchat", "NextChat"]);
    }
  });

  it("keeps the mask's system prompt, text and images as [image]; not error replies or the app's summary", async () => {
    const { conversations } = await collectWithSkips(backup);
    expect(conversations[0]?.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["system-prompt", "human", "[system prompt]\nYou are a patient baking coach. Use grams and baker's percentages."],
      ["u1aB2cD3eF4gH5iJ6kL7m", "human", "I want 75% hydration with 500 g flour and 100 g of a 100% levain. How much water?"],
      [
        "a1aB2cD3eF4gH5iJ6kL7m",
        "assistant",
        "The levain brings 50 g flour and 50 g water, so total flour is 550 g. For 75% you need 412 g water in all: add 362 g.",
      ],
      ["u2aB2cD3eF4gH5iJ6kL7m", "human", "Does this crumb look underproofed?\n\n[image]"],
      [
        "a2aB2cD3eF4gH5iJ6kL7m",
        "assistant",
        "Yes: the dense band at the bottom and the few large holes up top point to underproofing. Give the bulk another hour.",
      ],
    ]);
  });

  it("a tool call is [tool: name]; what the MCP tool returned (sent as the user) is left out", async () => {
    const { conversations } = await collectWithSkips(backup);
    const messages = conversations[1]?.conversation.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(["human", "assistant", "assistant"]);
    expect(messages[1]?.content).toContain("[tool: get_forecast]");
    expect(messages.some((m) => m.content.includes("mcp-response"))).toBe(false);
  });
});
