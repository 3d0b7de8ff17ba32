import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lmStudioConversation } from "../../src/importers/lmstudio/conversation.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectReporting, collectWithSkips, fixtures, recordContext } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const folder = join(fixtures, "lmstudio/conversations");
const rust = join(folder, "1730000000000.conversation.json");

const tmp = tempDir("mnemo-lmstudio-");

describe("LM Studio conversations", () => {
  it("the conversations folder, subfolders too: one conversation per file, its id the file's; an empty chat is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["lmstudio-1730000000000", "Borrow checker and the cache struct", "2024-10-27T03:33:20.000Z", "2024-10-27T03:34:12.000Z"],
        ["lmstudio-1730500000000", "Untitled", "2024-11-01T22:26:40.000Z", undefined],
      ],
    );
    expect(skipped).toEqual({ "conversations without any message text (an empty new chat)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["lmstudio", "LM Studio"]);
    }
  });

  it("keeps the selected version of each message, its text, files and tool calls; not thinking, tool results or debug blocks", async () => {
    const [chat] = await collect(rust);
    expect(chat?.conversation.messages).toEqual([
      {
        id: "system-prompt",
        role: "human",
        content: "[system prompt]\nYou are a terse Rust reviewer. Answer with code first.", // the per-chat setting, over `systemPrompt`
        createdAt: "2024-10-27T03:33:20.000Z",
      },
      {
        id: "message-1",
        role: "human",
        content: "Why does the borrow checker reject `cache.get(&key).or_else(|| cache.insert(key, v))`?\n\n[image]",
      },
      {
        id: "message-2",
        role: "assistant",
        content:
          "Because `get` returns a reference that lives until the end of the expression, so `insert` would need a second, mutable borrow while the first is alive. Use the entry API: `cache.entry(key).or_insert(v)`.",
      },
      { id: "message-3", role: "human", content: "And if the value is expensive to build, say a parsed config file?" },
      {
        id: "message-4",
        role: "assistant",
        content:
          "[tool: search_docs]\n\nUse `or_insert_with(|| parse_config(path))`: the closure only runs when the key is missing, so the parse happens once.",
      },
    ]);
    const text = chat!.conversation.messages.map((m) => m.content).join("\n");
    for (const absent of [
      "immutable borrow alive",
      "lifetime problem",
      "Non-lexical",
      "Look up the docs",
      "fn or_insert_with<F",
      "naming technique",
    ]) {
      expect(text).not.toContain(absent);
    }
  });

  it("gpt-oss's analysis channel is reasoning; a document is named; a blank message is passed over", async () => {
    const [lease] = await collect(join(folder, "Work/1730500000000.conversation.json"));
    expect(lease?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Summarise the attached lease: when can the landlord raise the rent?\n\n[file: lease-2024.pdf]"],
      ["assistant", "Only once a year, on the anniversary of the start date, with two months' written notice (clause 7.2)."],
    ]);
  });

  it("a file not named by LM Studio gets an id from what it holds, the same each time", async () => {
    const copy = join(tmp, "rust chat.json");
    await copyFile(rust, copy);
    const [first] = await collect(copy);
    const [again] = await collect(copy);
    expect(first?.conversation.id).toMatch(/^lmstudio-[0-9a-f]{32}$/);
    expect(again?.conversation.id).toBe(first?.conversation.id);
  });

  it("in a folder, a file cut short costs that chat alone, named", async () => {
    const dir = join(tmp, "conversations");
    await mkdir(dir);
    await copyFile(rust, join(dir, "1730000000000.conversation.json"));
    const text = await readFile(join(folder, "Work/1730500000000.conversation.json"), "utf8");
    await writeFile(join(dir, "1730500000000.conversation.json"), text.slice(0, Math.floor(text.length / 2)));
    const { conversations, problems } = await collectReporting(dir);
    expect(conversations.map((c) => c.conversation.id)).toEqual(["lmstudio-1730000000000"]);
    expect(problems).toEqual([expect.stringMatching(/1730500000000\.conversation\.json.*unexpected end of file/)]);
  });

  it("a chat of only its system prompt is an empty chat", () => {
    const context = recordContext("1.conversation.json");
    const record = { name: "x", createdAt: 1730000000000, tokenCount: 0, systemPrompt: "Be brief.", messages: [] };
    expect(lmStudioConversation(record, context)).toBeUndefined();
    expect(context.skipped).toEqual(new Map([["conversations without any message text (an empty new chat)", 1]]));
  });

  it("a message without versions (an older file) is read as it is; a version out of range falls back to the last", () => {
    const record = {
      name: "Old",
      createdAt: 1730000000000,
      tokenCount: 10,
      messages: [
        { role: "user", content: [{ type: "text", text: "hello" }] },
        {
          currentlySelected: 7,
          versions: [
            { role: "assistant", content: "first" },
            { role: "assistant", content: "second" },
          ],
        },
      ],
    };
    const converted = lmStudioConversation(record, recordContext("2.conversation.json"));
    expect(converted?.conversation.messages.map((m) => m.content)).toEqual(["hello", "second"]);
  });
});
