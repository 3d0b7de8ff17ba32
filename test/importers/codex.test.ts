import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "codex", "sessions");
const ferry = join(sessions, "2025/10/29/rollout-2025-10-29T09-12-03-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl");

describe("Codex sessions", () => {
  it("~/.codex/sessions: a conversation per session, named by its first prompt; a sub-agent's review counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["5c1e9a7b-2d3f-4e5a-9b8c-7d6e5f4a3b2c", "Écris un haïku sur le pont du 25 Avril dans le brouillard.", 2],
      ["019a2d7a-41c4-78b1-b7cc-a45d62a89cd5", "The timetable endpoint returns 500 for the Cacilhas ferry. Find out why.", 4],
    ]);
    expect(skipped).toEqual({ "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["codex", "Codex", true]);
    }
  });

  it("says each prompt and the agent's whole answer once, tools named on one line; Codex's own context and reasoning left out", async () => {
    const [session] = await collect(ferry);
    expect(session?.conversation).toMatchObject({ createdAt: "2025-10-29T09:12:05.340Z", updatedAt: "2025-10-29T09:14:52.001Z" });
    expect(session?.conversation.messages).toEqual([
      {
        // The event, not the response item saying the same; AGENTS.md and the environment left out.
        id: "line-5",
        role: "human",
        content: "The timetable endpoint returns 500 for the Cacilhas ferry. Find out why.",
        createdAt: "2025-10-29T09:12:05.340Z",
      },
      {
        id: "line-9",
        role: "assistant",
        content:
          "[tool: shell] [tool: shell] [tool: apply_patch]\n\nThe handler parsed departure times with `%H:%M`, but the feed now sends `24:10` for boats after midnight. Times past 24:00 are now read as the next day, and the endpoint answers again.",
        createdAt: "2025-10-29T09:12:07.500Z",
      },
      {
        id: "line-19",
        role: "human",
        content: "Add a test for the 24:10 case, like the one on this screenshot.\n\n[image]",
        createdAt: "2025-10-29T09:14:40.000Z",
      },
      {
        id: "line-20",
        role: "assistant",
        content: "[tool: shell]\n\nAdded `test_after_midnight` in tests/test_timetable.py; it passes with the other 41.",
        createdAt: "2025-10-29T09:14:44.000Z",
      },
    ]);
  });

  it("reads an older rollout, which has no events, by its messages", async () => {
    const { conversations } = await collectWithSkips(join(sessions, "2025/08/14"));
    expect(conversations[0]?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "Écris un haïku sur le pont du 25 Avril dans le brouillard."],
      ["assistant", "Pont rouge effacé —\nseules les sirènes du Tage\ntraversent le gris."],
    ]);
  });
});
