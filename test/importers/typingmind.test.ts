import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { typingMindChat } from "../../src/importers/typingmind/chat.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectReporting, collectWithSkips, fixtures, recordContext } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const flat = join(fixtures, "typingmind/data.json");

const tmp = tempDir("mnemo-typingmind-");

describe("TypingMind exports", () => {
  it("data.json: each chat of data.chats, read one by one; an empty chat is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(flat);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["Xk2P9qLm", "Allotment water budget", "2025-03-02T09:15:00.000Z", "2025-03-02T09:40:12.000Z"],
        ["q7Wn3RtY", "Pasta water salt", "2025-04-18T18:02:00.000Z", "2025-04-18T18:03:30.000Z"],
      ],
    );
    expect(skipped).toEqual({ "chats without any message text": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["typingmind", "TypingMind"]);
    }
  });

  it("an answer around tool calls is one message, a prompt and its files another; several models' answers all kept", async () => {
    const [allotment] = await collect(flat);
    expect(allotment?.conversation.messages).toEqual([
      {
        id: "system-prompt",
        role: "human",
        content: "[system prompt]\nYou are a frugal gardening assistant. Use metric units.",
        createdAt: "2025-03-02T09:15:00.000Z",
      },
      {
        id: "m-001",
        role: "human",
        content: "[file: rainfall-2024.csv]\n\nHow much water does a 10 m² bed need in July? My rainfall log is attached.",
        createdAt: "2025-03-02T09:15:10.000Z",
      },
      {
        id: "m-003",
        role: "assistant",
        content:
          "[tool: web_search]\n\nAbout 150 litres a week: 10–20 L/m², and your log shows only 38 mm of rain last July, so plan for the upper end.",
        createdAt: "2025-03-02T09:15:20.000Z",
      },
      {
        id: "m-008",
        role: "human",
        content: "Would a 200 L water butt cover that? Here is the shed roof.\n\n[image]",
        createdAt: "2025-03-02T09:30:00.000Z",
      },
      {
        id: "m-009-a",
        role: "assistant",
        content:
          "gpt-4o: Yes for about ten days of July; a 4 m² roof fills it after 50 mm of rain.\n\nclaude-3-5-sonnet: Roughly: 200 L is 1.3 weeks of watering, so add a second butt.",
        createdAt: "2025-03-02T09:30:09.000Z",
      },
      { id: "m-010", role: "human", content: "Draw me the rota as a table.", createdAt: "2025-03-02T09:39:00.000Z" },
      {
        id: "m-011",
        role: "assistant",
        content: "[tool: render_table]\n\n| Day | Litres |\n|---|---|\n| Mon | 50 |\n| Thu | 50 |\n| Sat | 50 |",
        createdAt: "2025-03-02T09:39:03.000Z",
      },
    ]);
    const text = allotment!.conversation.messages.map((m) => m.content).join("\n");
    for (const absent of ["RHS watering guide", "upper bound", "Example: how do I water", "Roof area times rainfall"])
      expect(text).not.toContain(absent);
  });

  it("an agent's greeting is kept; the app's default system prompt and reasoning parts are not", async () => {
    const [, pasta] = await collect(flat);
    expect(pasta?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["assistant", "Ciao! What are we cooking today?"],
      ["human", "How much salt in the pasta water for 500 g of spaghetti?"],
      ["assistant", "Five litres of water and 50 g of coarse salt: 10 g per litre."],
    ]);
  });

  it("the chunked export (zip or folder): the chats of chunks/chats_part_N.json, data.json and metadata.json passed over", async () => {
    const fromZip = await collect(join(fixtures, "typingmind-export.zip"));
    const fromFolder = await collect(join(fixtures, "typingmind-chunked"));
    expect(fromZip.map((c) => c.conversation.title)).toEqual(["Bike chain skipping", "Pasta water salt"]);
    expect(fromFolder).toEqual(fromZip.map((c) => ({ ...c, conversation: { ...c.conversation } })));
  });

  it("a damaged chat in data.json costs that chat, named; the chats after it are read", async () => {
    const text = (await readFile(flat, "utf8")).replace(
      '"content": "Ciao! What are we cooking today?"',
      '"content": "Ciao! What are we cooking today?',
    );
    const file = join(tmp, "damaged.json");
    await writeFile(file, text);
    const { conversations, problems } = await collectReporting(file);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Allotment water budget"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/damaged\.json, record 2/);
  });

  it("chats under data, not first among its keys and after a large one, are still found", async () => {
    const data = JSON.parse(await readFile(flat, "utf8")) as { data: Record<string, unknown> };
    const file = join(tmp, "prompts-first.json");
    const prompts = Array.from({ length: 400 }, (_, i) => ({ id: `up-${i}`, title: `Prompt ${i}`, content: "x".repeat(200) }));
    await writeFile(file, JSON.stringify({ data: { userPrompts: prompts, ...data.data } }, null, 2));
    expect((await collect(file)).map((c) => c.conversation.title)).toEqual(["Allotment water budget", "Pasta water salt"]);
  });

  it("data.json written on one line reads the same", async () => {
    const file = join(tmp, "minified.json");
    await writeFile(file, JSON.stringify(JSON.parse(await readFile(flat, "utf8"))));
    expect(await collect(file)).toEqual(await collect(flat));
  });

  it("a chat without ids gets one from what it holds", () => {
    const chat = { chatTitle: "No id", messages: [{ role: "user", content: "hi", createdAt: "2025-01-01T00:00:00Z" }] };
    const converted = typingMindChat(chat, recordContext());
    expect(converted?.conversation.id).toMatch(/^typingmind-[0-9a-f]{32}$/);
    expect(typingMindChat(chat, recordContext())?.conversation.id).toBe(converted?.conversation.id);
    expect(converted?.conversation.messages[0]?.id).toBe("message-1");
  });
});

describe("images written into a message's text", () => {
  it("a markdown or HTML image whose bytes are in the text becomes [image]; a linked one stays", () => {
    const png = `data:image/png;base64,${"A".repeat(50_000)}`;
    const chat = {
      chatID: "img",
      chatTitle: "Generated",
      messages: [
        { role: "user", content: "Draw a heron", createdAt: "2025-01-01T00:00:00Z" },
        {
          role: "assistant",
          content: `Here it is:\n\n![heron](${png})\n\n<img alt="again" src="${png}">\n\n![linked](https://example.com/heron.png)`,
          createdAt: "2025-01-01T00:00:05Z",
        },
      ],
    };
    expect(typingMindChat(chat, recordContext())?.conversation.messages[1]?.content).toBe(
      "Here it is:\n\n[image]\n\n[image]\n\n![linked](https://example.com/heron.png)",
    );
  });
});
