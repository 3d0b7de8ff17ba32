import { cp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sillyTavernTime } from "../../src/importers/sillytavern/chat.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const folder = join(fixtures, "sillytavern");
const chat = join(folder, "chats/Mirela/Mirela - 2024-05-01@12h30m15s.jsonl");

const tmp = tempDir("mnemo-sillytavern-");

describe("SillyTavern chats", () => {
  it("a folder of chats: one conversation per file, titled by its name; a chat of only its header is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(
      conversations.map((c) => [c.conversation.title, c.conversation.messages.length, c.conversation.createdAt, c.conversation.updatedAt]),
    ).toEqual([
      ["Branch #3 - 2024-05-02@09h00m00s", 5, "2024-05-01T12:30:00.000Z", "2024-05-02T09:02:00.000Z"],
      ["Mirela - 2024-05-01@12h30m15s", 8, "2024-05-01T12:30:00.000Z", "2024-05-01T13:05:00.000Z"],
      ["1717171717171", 4, "2025-06-01T10:00:00.000Z", "2025-06-01T10:02:00.000Z"],
    ]);
    expect(skipped).toEqual({ "chats without any message text": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual([
        "sillytavern",
        "SillyTavern",
        true,
      ]);
    }
  });

  it("keeps the swipe shown, the hidden message, the narrator and the comment; leaves out notices, tool calls and an empty answer", async () => {
    const [mirela] = await collect(chat);
    expect(mirela?.conversation.messages).toEqual([
      {
        id: "line-2",
        role: "assistant",
        content: "*The lighthouse keeper looks up from her logbook.* Another storm tonight. What brings you out to Saltmarsh Point?",
        createdAt: "2024-05-01T12:30:00.000Z",
      },
      {
        id: "line-3",
        role: "human",
        content: "I need to know why the lamp went dark on the night the Albatross sank.\n\n[image]",
        createdAt: "2024-05-01T12:31:00.000Z",
      },
      {
        id: "line-4",
        role: "assistant",
        content:
          '*Mirela closes the logbook slowly.* "The paraffin was watered down. Someone on the mainland wanted that ship on the rocks, and the page for that night was torn out before the inspector came."',
        createdAt: "2024-05-01T12:34:10.540Z", // the time of the swipe shown, not of the first
      },
      { id: "line-6", role: "human", content: "(OOC: keep the answers short please)", createdAt: "2024-05-01T12:36:40.000Z" },
      { id: "line-7", role: "assistant", content: "System: The wind rattles the shutters.", createdAt: "2024-05-01T12:37:00.000Z" },
      {
        id: "line-8",
        role: "human",
        content: "Remember: the logbook page for 14 March is missing.",
        createdAt: "2024-05-01T12:38:00.000Z",
      },
      {
        id: "line-10",
        role: "human",
        content: "Here is the ship's cargo manifest.\n\n[file: albatross-manifest.txt]",
        createdAt: "2024-05-01T12:40:00.000Z",
      },
      {
        id: "line-12",
        role: "assistant",
        content: "Forty crates of lamp oil, and not one of them reached the lighthouse. That is your answer.",
        createdAt: "2024-05-01T13:05:00.000Z",
      },
    ]);
    const text = mirela!.conversation.messages.map((m) => m.content).join("\n");
    for (const absent of ["never went dark", "Who told you", "reveal the sabotage", "Web Search", "help topic", "ferry"])
      expect(text).not.toContain(absent);
  });

  it("a branch is a conversation of its own although it copies its chat's header, with the swipe it showed", async () => {
    const conversations = await collect(folder);
    const [branch, main] = conversations;
    expect(branch?.conversation.id).not.toBe(main?.conversation.id);
    expect(branch?.conversation.messages[2]?.content).toBe('She shrugs. "The lamp never went dark."');
  });

  it("a group chat (no header): each character's answer starts with its name; the app's notice is left out", async () => {
    const [group] = await collect(join(folder, "group chats/1717171717171.jsonl"));
    expect(group?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Both of you saw the harbour that night. Look at this photo.\n\n[image]"],
      ["assistant", "Mirela: That is the harbourmaster's skiff, tied up where it should not be."],
      ["assistant", "Tomas: I rowed past it at midnight. The oars were still wet."],
      ["human", "Then he lied about Dunmore."],
    ]);
  });

  it("a renamed copy keeps the chat's messages under a new title; the same file imported again has the same id", async () => {
    const renamed = join(tmp, "Lighthouse mystery.jsonl");
    await cp(chat, renamed);
    const [original] = await collect(chat);
    const [copy] = await collect(renamed);
    expect(copy?.conversation.title).toBe("Lighthouse mystery");
    expect(copy?.conversation.messages).toEqual(original?.conversation.messages);
    expect((await collect(chat))[0]?.conversation.id).toBe(original?.conversation.id);
  });

  it("a line that is not JSON costs that line; a line that is not a message is left out and counted", async () => {
    const damaged = join(tmp, "damaged.jsonl");
    const lines = [
      JSON.stringify({ user_name: "Ana", character_name: "Mirela", create_date: "2024-05-01@12h30m15s", chat_metadata: {} }),
      JSON.stringify({ name: "Ana", is_user: true, mes: "First question", send_date: 1714566600000 }),
      '{"name": "Mirela", "is_user": false, "mes": "cut off',
      "42",
      JSON.stringify({ name: "Mirela", is_user: false, mes: "Second answer", send_date: "2024-05-01T12:35:00Z" }),
      JSON.stringify({ id: "x", role: "user", content: "a line of another app's chat" }),
      JSON.stringify({ name: "Ana", is_user: true, mes: "" }), // an empty message: nothing to say, as in SillyTavern
    ];
    await writeFile(damaged, lines.join("\n"));
    const { conversations, problems } = await collectReporting(damaged);
    expect(conversations[0]?.conversation.messages.map((m) => m.content)).toEqual(["First question", "Second answer"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/damaged\.jsonl, record 3: invalid JSON/);
    await writeFile(damaged, lines.filter((_, i) => i !== 2).join("\n"));
    const { conversations: read, skipped } = await collectWithSkips(damaged);
    expect(read[0]?.conversation.messages.map((m) => m.content)).toEqual(["First question", "Second answer"]);
    expect(skipped).toEqual({ "lines that are no chat message": 2 });
  });
});

describe("SillyTavern's times", () => {
  it.each([
    ["June 19, 2023 2:20pm", "2023-06-19T14:20:00.000Z"],
    ["May 1, 2024 12:30am", "2024-05-01T00:30:00.000Z"],
    ["May 1, 2024 12:30pm", "2024-05-01T12:30:00.000Z"],
    ["2024-7-12@01h31m37s", "2024-07-12T01:31:37.000Z"],
    ["2024-6-5 @14h 56m 50s 682ms", "2024-06-05T14:56:50.682Z"],
    ["2025-06-01T10:00:00.000Z", "2025-06-01T10:00:00.000Z"],
    [1714567000000, "2024-05-01T12:36:40.000Z"],
  ])("%s", (value, iso) => {
    expect(sillyTavernTime(value)).toBe(iso);
  });

  it.each([["Smarch 3, 2024 1:00pm"], ["2024-2-30@10h00m00s"], [""], [null], ["yesterday"]])("not a time: %s", (value) => {
    expect(sillyTavernTime(value)).toBeUndefined();
  });
});
