import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const backup = join(fixtures, "big-agi/backup_chats_localhost_3_2025-04-12-1025.agi.json");
const single = join(fixtures, "big-agi/conversation_ingwer-lagern_2024-03-02-0920.agi.json");
const contents = (conversation: UploadConversation | undefined) =>
  conversation?.conversation.messages.map((m) => [m.id, m.role, m.content]);

describe("big-AGI's chats backup", () => {
  it("every chat with text is a conversation, its id big-AGI's, titled by the user's title over the automatic one; an empty chat is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(backup);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["big-agi-6f1c2e8a-4b3d-4e9f-a2c1-7d8e9f0a1b2c", "Apertura española", "2025-04-12T09:26:40.000Z", "2025-04-12T09:33:22.000Z"],
        ["big-agi-0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b", "Flatten nested lists", "2025-04-11T08:26:40.000Z", "2025-04-11T08:26:56.000Z"],
      ],
    );
    expect(skipped).toEqual({ "conversations without any message text (an empty new chat)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["big-agi", "big-AGI"]);
    }
  });

  it("keeps the Custom persona's system message, text, attachments and tool calls as placeholders; not placeholders, tool responses or an error notice", async () => {
    const { conversations } = await collectWithSkips(backup);
    expect(contents(conversations[0])).toEqual([
      [
        "system-prompt",
        "human",
        "[system prompt]\nEres un profesor de ajedrez paciente. Usa notación algebraica y explica el porqué de cada jugada.",
      ],
      [
        "a1b2c3d4-0001",
        "human",
        "¿Por qué 3.Ab5 en la apertura española? Te adjunto mi partida y una foto del tablero.\n\n[file: partida.pgn]\n\n[image]",
      ],
      ["a1b2c3d4-0002", "assistant", "3.Ab5 presiona el caballo de c6, que defiende el peón de e5: es la idea de Ruy López."],
      ["a1b2c3d4-0003", "human", "¿Y qué dice la teoría actual sobre la defensa Berlinesa?"],
      [
        "a1b2c3d4-0004",
        "assistant",
        "[tool: web_search]\n\nLa Berlinesa (3...Cf6 4.O-O Cxe4) sigue siendo sólida: lleva a un final sin damas donde las negras tienen la pareja de alfiles.",
      ],
      ["a1b2c3d4-0005", "human", "¿Y la variante del cambio?"],
    ]);
  });

  it("another persona's system message is the app's, left out", async () => {
    const { conversations } = await collectWithSkips(backup);
    expect(contents(conversations[1])?.map(([id]) => id)).toEqual(["b2c3d4e5-0001", "b2c3d4e5-0002"]);
  });

  it("a damaged chat costs only itself", async () => {
    const data = JSON.parse(await readFile(backup, "utf8")) as { conversations: unknown[] };
    data.conversations[0] = "not a chat";
    const damaged = join(tempDir("mnemo-big-agi-"), "backup_chats_localhost_3_2025-04-12-1025.agi.json");
    await writeFile(damaged, JSON.stringify(data));
    const { conversations, problems } = await collectReporting(damaged);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Flatten nested lists"]);
    expect(problems).toHaveLength(1);
  });
});

describe("a big-AGI file longer than the detection sample", () => {
  it("a backup whose first chat outruns the first 256 KB before its persona shows is known by that chat's first message", async () => {
    const data = JSON.parse(await readFile(backup, "utf8")) as { conversations: { messages: { fragments: unknown[] }[] }[] };
    const pasted = { ft: "attachment", fId: "fA9z8y7x", title: "notes.txt", caption: "Pasted", created: 1744450100000 };
    const text = "1. e4 e5 2. Cf3 Cc6 3. Ab5 a6 ".repeat(12_000);
    data.conversations[0]!.messages[1]!.fragments.push({
      ...pasted,
      part: { pt: "doc", vdt: "text/plain", data: { idt: "text", text }, ref: "notes.txt", l1Title: "notes.txt" },
    });
    const long = join(tempDir("mnemo-big-agi-"), "backup_chats_localhost_3_2025-04-12-1025.agi.json");
    await writeFile(long, JSON.stringify(data));
    expect((await readFile(long, "utf8")).indexOf("systemPurposeId")).toBeGreaterThan(256 * 1024);
    const { conversations } = await collectWithSkips(long);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Apertura española", "Flatten nested lists"]);
    expect(conversations[0]?.conversation.messages[1]?.content).toContain("[file: notes.txt]");
  });
});

describe("big-AGI's flash backup of the whole app", () => {
  const flash = join(fixtures, "big-agi/Big-AGI-flash-2025-04-12.agi.json");

  it("reads the chat store's conversations as the backup does, and nothing else of the app's storage (an API key)", async () => {
    const { conversations } = await collectWithSkips(flash);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.length])).toEqual([
      ["big-agi-6f1c2e8a-4b3d-4e9f-a2c1-7d8e9f0a1b2c", 6],
      ["big-agi-0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b", 2],
    ]);
    expect(JSON.stringify(conversations)).not.toContain("sk-placeholder");
  });

  it("a chat store whose text is damaged is reported, not taken for no chats", async () => {
    const data = JSON.parse(await readFile(flash, "utf8")) as {
      storage: { indexedDB: { "keyval-store": { keyval: { value: string }[] } } };
    };
    const item = data.storage.indexedDB["keyval-store"].keyval[0]!;
    item.value = item.value.slice(0, 500);
    const damaged = join(tempDir("mnemo-big-agi-"), "Big-AGI-flash-2025-04-12.agi.json");
    await writeFile(damaged, JSON.stringify(data));
    const { conversations, problems } = await collectReporting(damaged);
    expect([conversations.length, problems.length]).toEqual([0, 1]);
  });
});

describe("big-AGI's download of one chat", () => {
  it("from before May 2024, its messages' text; the Custom persona's default ChatGPT prompt left out", async () => {
    const { conversations } = await collectWithSkips(single);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title])).toEqual([
      ["big-agi-3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e7f", "Ingwer lagern"],
    ]);
    expect(contents(conversations[0])).toEqual([
      ["c3d4e5f6-0001", "human", "Wie lange hält sich frischer Ingwer im Kühlschrank?"],
      ["c3d4e5f6-0002", "assistant", "Ungeschält, in einem Gefrierbeutel, etwa drei Wochen."],
    ]);
  });
});
