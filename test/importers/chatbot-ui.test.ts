import { cp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const folder = join(fixtures, "chatbot-ui");
const v4 = join(folder, "chatbot_ui_history_3-14.json");

const tmp = tempDir("mnemo-chatbot-ui-");

describe("Chatbot UI exports", () => {
  it("a file whose time is a zero time (1970, as some tools extract files) dates its conversations by the import instead", async () => {
    const copy = join(tmp, "zero-time.json");
    await cp(v4, copy);
    await utimes(copy, new Date(0), new Date(0));
    const before = new Date().toISOString();
    const conversations = await collect(copy);
    expect(conversations).toHaveLength(2);
    for (const conversation of conversations) expect(conversation.conversation.createdAt >= before).toBe(true);
  });

  it("format 4: each conversation of its history, dated by the file (the export has no times); an empty one counted", async () => {
    const { conversations, skipped } = await collectWithSkips(v4);
    const date = (await stat(v4)).mtime.toISOString();
    expect(
      conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.messages.length]),
    ).toEqual([
      ["493cb218-9ebb-4d35-af8b-5aded3f351be", "Regex for UK postcodes", date, 4],
      ["f883fb40-6e5c-45fd-92d4-883a5595560f", "Haiku about rain", date, 3],
    ]);
    expect(skipped).toEqual({ "conversations without any message text": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["chatbot-ui", "Chatbot UI"]);
    }
  });

  it("a conversation's own system prompt is its first message; the app's default is not", async () => {
    const [regex, haiku] = await collect(v4);
    expect(regex?.conversation.messages.map((m) => m.role)).toEqual(["human", "assistant", "human", "assistant"]);
    expect(haiku?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "[system prompt]\nYou are a poet who writes only in haiku."],
      ["human", "A haiku about rain on a tin roof, please."],
      ["assistant", "Tin roof drums at dusk —\nthe gutter hums its one note,\nsparrows hold their breath."],
    ]);
  });

  it("format 1 (a list of conversations with numeric ids)", async () => {
    const { conversations, skipped } = await collectWithSkips(join(folder, "chatbot_ui_history_v1.json"));
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.map((m) => m.content)])).toEqual([
      ["1", "Sourdough starter", ["Why is my starter smelling of acetone?", "It is hungry: feed it twice a day for a few days."]],
    ]);
    expect(skipped).toEqual({ "conversations without any message text": 1 });
  });

  it("format 2 ({ history, folders }), a history of null, and format 3", async () => {
    const conversation = { id: "c-1", name: "Tea", messages: [{ role: "user", content: "Green or black?" }], prompt: "", folderId: null };
    const v2 = join(tmp, "v2.json");
    await writeFile(v2, JSON.stringify({ history: [conversation], folders: [{ id: 1, name: "Drinks" }] }, null, 2));
    expect((await collect(v2)).map((c) => c.conversation.title)).toEqual(["Tea"]);
    const none = join(tmp, "v2-null.json");
    await writeFile(none, JSON.stringify({ history: null, folders: null }, null, 2));
    const reader = await openExport(none);
    expect(reader.format).toBe("chatbot-ui");
    const read: unknown[] = [];
    for await (const c of reader.conversations()) read.push(c);
    expect(read).toEqual([]);
    const v3 = join(tmp, "v3.json");
    await writeFile(v3, JSON.stringify({ version: 3, history: [conversation], folders: [] }));
    expect((await collect(v3)).map((c) => c.conversation.title)).toEqual(["Tea"]);
  });

  it("an export written on one line reads the same", async () => {
    const file = join(tmp, "minified.json");
    await writeFile(file, JSON.stringify(JSON.parse(await readFile(v4, "utf8"))));
    const said = (conversations: UploadConversation[]) => conversations.map((c) => c.conversation.messages.map((m) => [m.role, m.content]));
    expect(said(await collect(file))).toEqual(said(await collect(v4))); // dated by each file
  });

  it("the 2024 app's chatbot-ui-data.json: the conversations it holds as text, never the API key beside them", async () => {
    const conversations = await collect(join(folder, "chatbot-ui-data.json"));
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Haiku about rain", "Tyre pressure"]);
    expect(JSON.stringify(conversations)).not.toContain("sk-not-a-real-key");
  });

  it("a folder of both: a conversation met in both files is read once", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => c.conversation.title)).toEqual([
      "Regex for UK postcodes",
      "Haiku about rain",
      "Sourdough starter",
      "Tyre pressure",
    ]);
    expect(skipped["conversations met again in the export, no newer (read once)"]).toBe(1);
  });

  it("a damaged conversation in a format-4 export costs that conversation, named; the rest are read", async () => {
    const good = (id: string) => ({ id, name: id, messages: [{ role: "user", content: `hello ${id}` }], prompt: "", folderId: null });
    const text = JSON.stringify({ version: 4, history: [good("a"), good("b"), good("c")], folders: [], prompts: [] }, null, 2).replace(
      '"hello b"',
      '"hello b',
    );
    const file = join(tmp, "damaged.json");
    await writeFile(file, text);
    const { conversations, problems } = await collectReporting(file);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["a", "c"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/damaged\.json, record 2/);
  });

  it("a localStorage download whose conversationHistory is not JSON is named, and nothing else is lost", async () => {
    const file = join(tmp, "chatbot-ui-data.json");
    await writeFile(file, JSON.stringify({ conversationHistory: "[{not json", folders: "[]" }));
    const { conversations, problems } = await collectReporting(file);
    expect(conversations).toEqual([]);
    expect(problems[0]).toMatch(/conversationHistory is not JSON/);
  });
});
