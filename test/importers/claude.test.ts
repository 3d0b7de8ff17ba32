import { collect, fixtures, recordContext } from "./collect.js";
import { copyFile, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTACHMENT_TEXT_CHARS, claudeConversation } from "../../src/importers/claude/conversation.js";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";

const plainFile = join(fixtures, "claude/conversations.json");

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-claude-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("Claude conversations.json", () => {
  it("yields every conversation with messages, exactly", async () => {
    const conversations = await collect(plainFile);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        [
          "8f3a4c2e-1b7d-4e9a-b6c5-2d0e9f8a7b61",
          "Reviving a sluggish sourdough starter",
          "2024-09-14T08:02:11.482Z",
          "2024-09-14T08:19:54.120Z",
        ],
        ["2b7e9d10-4c3a-4f8e-a1d2-6e5f4a3b2c1d", "Kanji study plan (JLPT N4)", "2025-01-20T21:14:02.000Z", "2025-01-20T21:16:45.000Z"],
        ["5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "Untitled", "2024-06-01T10:00:00.000Z", "2024-06-01T10:01:10.000Z"],
      ],
    );
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["claude", "Claude"]);
    }
  });

  it("orders messages by created_at although the export does not", async () => {
    const [sourdough] = await collect(plainFile);
    expect(sourdough?.conversation.messages.map((m) => [m.role, m.id, m.createdAt])).toEqual([
      ["human", "c0a1b2c3-0001-4000-8000-000000000001", "2024-09-14T08:02:11.482Z"],
      ["assistant", "c0a1b2c3-0002-4000-8000-000000000002", "2024-09-14T08:02:34.551Z"],
      ["human", "c0a1b2c3-0003-4000-8000-000000000003", "2024-09-14T08:18:40.003Z"],
      ["assistant", "c0a1b2c3-0004-4000-8000-000000000004", "2024-09-14T08:19:54.120Z"],
    ]);
  });

  it("takes text blocks only: not the placeholder text, thinking, tool or unknown blocks", async () => {
    const [sourdough, kanji] = await collect(plainFile);
    expect(sourdough?.conversation.messages[1]?.content).toBe(
      "Your log shows the classic day-3 slump: the early bubbles on day 2 came from bacteria that die off once the dough turns acidic, before the wild yeast takes over. Nothing is wrong — it just needs warmth and patience.\n\n" +
        "Keep it at 24–26 °C, feed once a day at 1:2:2, and switch to filtered water for a week: very hard water can slow fermentation.",
    );
    expect(sourdough?.conversation.messages[3]?.content).toBe(
      "Yes — at 75% hydration it will be stiffer and rise more slowly, but it tolerates cooler kitchens better. Feed 20 g starter, 40 g flour, 30 g water.",
    );
    expect(kanji?.conversation.messages[1]?.content).toBe(
      "N4 needs about 300 kanji. With roughly 24 weeks left, 3 new kanji a day plus reviews gets you there with a month to spare:\n\n" +
        "- Mon–Fri: 3 new kanji with their most common words (e.g. 食べる, 飲む, 読む)\n- Sat: review the week in Anki\n- Sun: read one graded reader story",
    );
    const all = (await collect(plainFile)).flatMap((c) => c.conversation.messages.map((m) => m.content)).join("\n");
    expect(all).not.toContain("This block is not supported");
    expect(all).not.toContain("UNKNOWN BLOCK TEXT");
    expect(all).not.toContain("WaniKani");
  });

  it("keeps the artifacts and files the assistant wrote whole, the text of their edits, and reads `text` beside an empty content array", () => {
    const record = {
      uuid: "c-artifact",
      name: "Fibonacci",
      created_at: "2024-05-01T10:00:00Z",
      chat_messages: [
        { uuid: "h1", sender: "human", created_at: "2024-05-01T10:00:00Z", content: [], text: "Write fib in Python" },
        {
          uuid: "a1",
          sender: "assistant",
          created_at: "2024-05-01T10:00:05Z",
          content: [
            { type: "text", text: "Here it is:" },
            {
              type: "tool_use",
              name: "artifacts",
              input: { command: "create", title: "fib.py", content: "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)" },
            },
            { type: "tool_use", name: "artifacts", input: { command: "update", id: "fib", old_str: "n < 2", new_str: "n <= 1" } },
            // Written again whole: real exports' artifact commands are create, update and rewrite
            // (Sinity/polylogue's schema of claude.ai exports, 2026), a rewrite naming the id only.
            { type: "tool_use", name: "artifacts", input: { command: "rewrite", id: "fib", content: "from functools import cache" } },
            { type: "tool_use", name: "create_file", input: { path: "/notes/plan.md", file_text: "Plan: memoise it." } },
            {
              type: "tool_use",
              name: "str_replace",
              input: { path: "/notes/plan.md", old_str: "memoise it", new_str: "memoise it with lru_cache" },
            },
            { type: "tool_use", name: "web_search", input: { query: "fibonacci" } },
          ],
        },
      ],
    };
    const messages = claudeConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => m.content)).toEqual([
      "Write fib in Python",
      "Here it is:\n\n[artifact: fib.py]\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n[artifact edit: fib]\nn <= 1\n\n" +
        "[artifact: fib]\nfrom functools import cache\n\n" +
        "[file: /notes/plan.md]\nPlan: memoise it.\n\n[file edit: /notes/plan.md]\nmemoise it with lru_cache",
    ]);
  });

  it("keeps a voice note's transcript (a `voice_note` block), not a `token_budget` block", () => {
    // The block's shape as public readers of real exports have it (osteele/claude-chat-viewer's
    // schema, echomine's Claude adapter): `{ type: "voice_note", title?, text }`.
    const record = {
      uuid: "c-voice",
      name: "Lisbon in May",
      chat_messages: [
        {
          uuid: "h1",
          sender: "human",
          created_at: "2025-10-05T10:00:00Z",
          text: "",
          content: [{ type: "voice_note", title: "Voice note", text: "What's the weather like in Lisbon in May?" }],
        },
        {
          uuid: "a1",
          sender: "assistant",
          created_at: "2025-10-05T10:00:04Z",
          text: "",
          content: [{ type: "token_budget" }, { type: "text", text: "Mild: around 20 °C, with little rain." }],
        },
      ],
    };
    const messages = claudeConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "What's the weather like in Lisbon in May?"],
      ["assistant", "Mild: around 20 °C, with little rain."],
    ]);
  });

  it('reads a sender and a block type in any case ("Human", "Assistant", "Text"), as re-saved exports write them', () => {
    const record = {
      uuid: "c-capitals",
      name: "Capitals",
      chat_messages: [
        { uuid: "h1", sender: "Human", created_at: "2025-04-01T09:00:00Z", text: "Name a tern.", content: [] },
        {
          uuid: "a1",
          sender: "Assistant",
          created_at: "2025-04-01T09:00:05Z",
          text: "",
          content: [{ type: "Text", text: "The Arctic tern." }],
        },
        { uuid: "s1", sender: "system", created_at: "2025-04-01T09:00:06Z", text: "Not a turn.", content: [] },
      ],
    };
    const messages = claudeConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Name a tern."],
      ["assistant", "The Arctic tern."],
    ]);
  });

  it("keeps the current branch where messages link to their parents (an edited prompt, a regenerated answer)", () => {
    const ROOT = "00000000-0000-4000-8000-000000000000";
    const message = (uuid: string, parent: string, sender: string, minute: number, text: string) => ({
      uuid,
      parent_message_uuid: parent,
      sender,
      created_at: `2024-06-01T09:0${minute}:00Z`,
      content: [{ type: "text", text }],
    });
    const chatMessages = [
      message("h1", ROOT, "human", 0, "Suggest a name for my cat"),
      message("a1", "h1", "assistant", 1, "How about Miso?"),
      message("a1b", "h1", "assistant", 2, "How about Pixel?"), // regenerated
      message("h2", "a1b", "human", 3, "Something longer"),
      message("a2", "h2", "assistant", 4, "Sir Pounce-a-lot"),
      message("h2b", "a1b", "human", 5, "Something Japanese"), // the prompt edited
      message("a2b", "h2b", "assistant", 6, "Tama"),
    ];
    const contents = (record: object) =>
      claudeConversation(
        { uuid: "c-branches", name: "Cat names", chat_messages: chatMessages, ...record },
        recordContext(),
      )!.conversation.messages.map((m) => m.content);

    expect(contents({ current_leaf_message_uuid: "a2" })).toEqual([
      "Suggest a name for my cat",
      "How about Pixel?",
      "Something longer",
      "Sir Pounce-a-lot",
    ]);
    // Without the leaf: the newest message nothing answers.
    expect(contents({})).toEqual(["Suggest a name for my cat", "How about Pixel?", "Something Japanese", "Tama"]);
    // A message whose parent is not in the export starts a tree of its own, kept whole.
    const orphans = [message("o1", "gone", "human", 7, "Unrelated question"), message("o2", "o1", "assistant", 8, "Unrelated answer")];
    expect(contents({ current_leaf_message_uuid: "a2b", chat_messages: [...chatMessages, ...orphans] })).toEqual([
      "Suggest a name for my cat",
      "How about Pixel?",
      "Something Japanese",
      "Tama",
      "Unrelated question",
      "Unrelated answer",
    ]);
    // Without links: every message, as exports without them have always been read.
    const unlinked = chatMessages.map(({ parent_message_uuid: _, ...rest }) => rest);
    expect(claudeConversation({ uuid: "c", chat_messages: unlinked }, recordContext("x"))!.conversation.messages).toHaveLength(7);
  });

  it("cuts a title longer than an upload takes (1,000 characters), and names a blank one Untitled", () => {
    const record = (name: string) => ({ uuid: "c-title", name, chat_messages: [{ uuid: "h", sender: "human", text: "hi" }] });
    const context = recordContext();
    const long = claudeConversation(record("t".repeat(5_000)), context)!.conversation.title;
    expect([long.length, long.endsWith("…")]).toEqual([1_000, true]);
    expect(claudeConversation(record("   "), context)!.conversation.title).toBe("Untitled");
  });

  it("drops messages left empty (a thinking-only reply) and conversations without messages", async () => {
    const conversations = await collect(plainFile);
    const [, kanji] = conversations;
    expect(kanji?.conversation.messages.map((m) => m.id)).toEqual([
      "d1e2f3a4-0001-4000-8000-000000000001",
      "d1e2f3a4-0002-4000-8000-000000000002",
    ]);
    expect(conversations.map((c) => c.conversation.id)).not.toContain("9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d");
  });

  it("turns attachments into a placeholder and their text (a long paste whole), and files into placeholders", async () => {
    const [sourdough, kanji] = await collect(plainFile);
    const question = sourdough?.conversation.messages[0]?.content ?? "";
    const [text, attachment] = question.split("\n\n");
    expect(text).toBe("My rye starter went quiet after day 2. Here's my log — what am I doing wrong?");
    expect(attachment?.startsWith("[attachment: starter-log.txt]\nStarter log — rye, 100% hydration\nDay 1 (Sat):")).toBe(true);
    // The log's last line: a paste Claude made an attachment is the user's own words, kept whole.
    expect(question).toContain("jar washed with hot water");
    expect(kanji?.conversation.messages[0]?.content).toBe(
      "I'm preparing for the JLPT N4 in July. Here's a photo of my textbook's kanji list. How many kanji a day should I learn? 頑張ります！\n\n[file: genki-kanji-list.jpg]",
    );
  });

  it("cuts an attachment's text past ATTACHMENT_TEXT_CHARS (a document's), not a long paste", () => {
    const paste = `${"a line of the pasted build log\n".repeat(300)}the last line`;
    const book = `${"A page of the contract. ".repeat(2_000)}THE END`;
    const record = {
      uuid: "c",
      chat_messages: [
        {
          uuid: "m",
          sender: "human",
          text: "Look at these",
          attachments: [
            { file_name: "paste.txt", extracted_content: paste },
            { file_name: "contract.pdf", extracted_content: book },
          ],
        },
      ],
    };
    const [content] = claudeConversation(record, recordContext())!.conversation.messages.map((m) => m.content);
    expect(content).toContain(`[attachment: paste.txt]\n${paste}`);
    const kept = content!.slice(content!.indexOf("[attachment: contract.pdf]\n") + "[attachment: contract.pdf]\n".length);
    expect(kept.endsWith("…")).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(ATTACHMENT_TEXT_CHARS + 1);
    expect(kept).not.toContain("THE END");
  });

  it("falls back to the top-level text when a message has no content array", async () => {
    const [, , kyoto] = await collect(plainFile);
    expect(kyoto?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "What's a good three-day itinerary for Kyoto in autumn?"],
      [
        "assistant",
        "Day 1: Fushimi Inari at sunrise, then Tōfuku-ji for the maples.\nDay 2: Arashiyama bamboo grove and Ōkōchi Sansō.\nDay 3: Philosopher's Path to Ginkaku-ji, dinner in Pontochō.",
      ],
    ]);
  });

  it("reads the top-level text when the content blocks hold none, never its placeholder", () => {
    const message = (uuid: string, text: string, content: unknown[]) => ({
      uuid,
      sender: "assistant",
      created_at: "2025-03-01T09:00:00Z",
      text,
      content,
    });
    const record = {
      uuid: "c-blank-blocks",
      name: "Blank blocks",
      chat_messages: [
        { uuid: "h1", sender: "human", created_at: "2025-03-01T08:59:00Z", text: "Name a tern.", content: [{ type: "text", text: "" }] },
        message("a1", "The Arctic tern.", [{ type: "text" }]),
        message("a2", "This block is not supported on your current device yet.", [{ type: "thinking", thinking: "Hm." }]),
      ],
    };
    const messages = claudeConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.id, m.content])).toEqual([
      ["h1", "Name a tern."],
      ["a1", "The Arctic tern."],
    ]);
  });

  it("the zip and the unzipped folder give exactly what the plain file gives", async () => {
    const plain = await collect(plainFile);
    const reader = await openExport(join(fixtures, "claude-export.zip"));
    expect(reader.format).toBe("claude");
    expect(reader.totalBytes).toBe((await stat(plainFile)).size);
    expect(await collect(join(fixtures, "claude-export.zip"))).toEqual(plain);
    expect(await collect(join(fixtures, "claude"))).toEqual(plain);
  });

  it("is detected by structure under any name", async () => {
    const renamed = join(tmp, "my-claude-backup.txt");
    await copyFile(plainFile, renamed);
    expect((await openExport(renamed)).format).toBe("claude");
    expect(await collect(renamed)).toEqual(await collect(plainFile));
  });
});
