// Markdown transcripts: the ChatGPT Exporter's (pionxzh/chatgpt-exporter) and the long tail's, read
// as text (fixtures/exports/chatgpt-exporter, fixtures/exports/markdown), and what is no transcript.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import type { AppError } from "../../src/shared/errors.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const md = (name: string) => join(fixtures, "markdown", name);
const exporter = (name: string) => join(fixtures, "chatgpt-exporter", name);

/** A file of this text in a temp dir. */
function textFile(text: string | Buffer, name = "chat.md"): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

const contents = (messages: { role: string; content: string }[]) => messages.map((m) => `${m.role}: ${m.content}`);

describe("the ChatGPT Exporter's Markdown", () => {
  it("keeps the chat's id, title, times and every message the page showed, without the thinking", async () => {
    const reader = await openExport(exporter("ChatGPT-Sourdough Starter Rescue.md"));
    expect(reader.format).toBe("chatgpt-exporter");
    const [chat] = await collect(exporter("ChatGPT-Sourdough Starter Rescue.md"));
    expect(chat).toMatchObject({
      platform: "chatgpt",
      platformDisplayName: "ChatGPT",
      complete: true,
      conversation: {
        id: "67a1c2d3-0b4e-8000-9f11-2a3b4c5d6e7f", // the source link's: the same chat as ChatGPT's own export holds
        title: "Sourdough Starter Rescue",
        createdAt: "2025-02-03T18:20:11.000Z",
        updatedAt: "2025-02-03T18:31:45.000Z",
      },
    });
    const messages = chat!.conversation.messages;
    expect(messages.map((m) => [m.id, m.role, m.createdAt])).toEqual([
      ["m1", "human", "2025-02-03T18:20:11.000Z"],
      ["m2", "assistant", "2025-02-03T18:20:40.000Z"],
      ["m3", "human", "2025-02-03T18:29:02.000Z"],
      ["m4", "assistant", "2025-02-03T18:29:30.000Z"],
      ["m5", "assistant", "2025-02-03T18:29:41.000Z"], // Plugin (python): what the tool showed is the answer's
      ["m6", "assistant", "2025-02-03T18:29:50.000Z"],
    ]); // the last "You:" had no text
    expect(messages[0]!.content).toBe(
      "My rye starter smells like nail polish remover and has a grey liquid on top. Is it dead?\n\n[image]",
    );
    const answer = messages[1]!.content;
    expect(answer).toMatch(/^It is almost certainly \*\*not dead\*\*/);
    expect(answer).not.toMatch(/Thought for|Reading the symptoms|<time|<details/);
    expect(answer).toContain("#### Feeding schedule\n\n1. Pour off the hooch"); // a heading of the answer's, not a speaker
    expect(answer).toContain("```\n## You\n(this heading is inside a code block"); // code starts no message
    expect(answer).toContain("[^1]: King Arthur Baking");
    expect(messages[4]!.content).toBe("[image]");
  });

  it("without its metadata: the title from the heading, an id from the title and first prompt, the same each time", async () => {
    const [first] = await collect(exporter("ChatGPT-Tram 28 in Lisbon.md"));
    const [again] = await collect(exporter("ChatGPT-Tram 28 in Lisbon.md"));
    expect(first!.conversation.id).toMatch(/^md-[0-9a-f]{24}$/);
    expect(again!.conversation.id).toBe(first!.conversation.id);
    expect(first!.conversation.title).toBe("Tram 28 in Lisbon");
    expect(contents(first!.conversation.messages)).toEqual([
      "human: When does tram 28 start running from Martim Moniz?",
      "assistant: Tram 28 usually leaves **Martim Moniz** from about 7:00 on weekdays, every 10 to 15 minutes. Board at the first stop to get a seat.",
      "human: Is it covered by the Viva Viagem card?",
      "assistant: Yes: a zapping balance or a 24-hour Carris/Metro pass on the Viva Viagem card covers it.",
    ]);
  });

  it("its JSON (one chat, or Export All's zip) is ChatGPT's API conversation, read by the ChatGPT importer on the branch last seen", async () => {
    const reader = await openExport(exporter("ChatGPT-Tram 28 in Lisbon.json"));
    expect(reader.format).toBe("chatgpt");
    const [tram] = await collect(exporter("ChatGPT-Tram 28 in Lisbon.json"));
    expect(tram!.platform).toBe("chatgpt");
    expect(tram!.conversation.id).toBe("67a0b1c2-1d2e-8000-8a9b-0c1d2e3f4a5b");
    expect(tram!.conversation.messages.map((m) => m.id)).toEqual(["u-1", "a-1b", "u-2", "a-2"]); // not the regenerated a-1
    const all = await collect(join(fixtures, "chatgpt-exporter-json.zip"));
    expect(all.map((c) => [c.conversation.title, c.conversation.messages.length])).toEqual([
      ["Cacilhas ferry", 2],
      ["Tram 28 in Lisbon", 4],
    ]);
  });

  it("Export All's zip of Markdown files: each file a chat", async () => {
    const reader = await openExport(join(fixtures, "chatgpt-exporter-markdown.zip"));
    expect(reader.format).toBe("chatgpt-exporter");
    const chats = await collect(join(fixtures, "chatgpt-exporter-markdown.zip"));
    expect(chats.map((c) => [c.conversation.title, c.conversation.messages.length])).toEqual([
      ["Sourdough Starter Rescue", 6],
      ["Tram 28 in Lisbon", 4],
    ]);
  });
});

describe("a Markdown transcript of any app", () => {
  it("## User / ## Assistant with times in the headings: the system prompt first (the user wrote it), the answer's own headings kept", async () => {
    expect((await openExport(md("user-assistant.md"))).format).toBe("markdown");
    const { conversations, skipped } = await collectWithSkips(md("user-assistant.md"));
    const [chat] = conversations;
    expect(chat).toMatchObject({ platform: "markdown", platformDisplayName: "Markdown transcript" });
    expect(chat!.conversation.title).toBe("Terrarium humidity for a ball python");
    expect(chat!.conversation.createdAt).toBe("2025-03-02T09:15:00.000Z");
    expect(chat!.conversation.updatedAt).toBe("2025-03-02T09:22:00.000Z");
    const [prompt, ...said] = chat!.conversation.messages;
    expect(prompt).toMatchObject({ role: "human", content: expect.stringMatching(/^\[system prompt\]\n\S/) });
    expect(said.map((m) => [m.role, m.createdAt])).toEqual([
      ["human", "2025-03-02T09:15:00.000Z"],
      ["assistant", "2025-03-02T09:15:00.000Z"],
      ["human", "2025-03-02T09:21:00.000Z"],
      ["assistant", "2025-03-02T09:22:00.000Z"],
    ]);
    const answer = said[1]!.content;
    expect(answer).toContain("## Step 1: measure");
    expect(answer).toContain("## User\n(a heading in a code block");
    expect(answer).not.toMatch(/---$/); // the rule between messages is no part of one
    expect(skipped).toEqual({});
  });

  it("emoji headings with the time on the next line, between rules (converters of Claude's export)", async () => {
    const [chat] = await collect(md("claude-converted.md"));
    expect(chat!.conversation.messages.map((m) => [m.role, m.createdAt, m.content.slice(0, 20)])).toEqual([
      ["human", "2025-04-14T10:02:00.000Z", "How many loaves shou"],
      ["assistant", "2025-04-14T10:03:00.000Z", "Plan for about **120"],
      ["human", "2025-04-14T10:09:00.000Z", "And how much broa de"],
      ["assistant", "2025-04-14T10:09:00.000Z", "Around 30 broas: it "],
    ]);
    // "14/04/2025" is day first, which a browser's locale string leaves unknown: the first message's time is the chat's.
    expect(chat!.conversation.createdAt).toBe("2025-04-14T10:02:00.000Z");
    expect(chat!.conversation.messages.every((m) => !m.content.includes("---"))).toBe(true);
  });

  it("Cherry Studio's topic export is Cherry Studio's, whatever model answered, without the box its reasoning is exported in", async () => {
    const [chat] = await collect(md("cherry-studio-topic.md"));
    expect([chat?.platform, chat?.platformDisplayName, chat?.conversation.title]).toEqual([
      "cherry-studio",
      "Cherry Studio",
      "酸种面包的含水量",
    ]);
    expect(chat?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "我的酵头 6 小时翻倍，第一次做面包用多少含水量？"],
      [
        "assistant",
        "建议从 70% 含水量开始：面团好整形，对年轻的酵头也更宽容[^1]。\n[^1]: [Hydration guide](https://example.org/hydration)",
      ],
      ["human", "黑麦呢？"],
      ["assistant", "黑麦吸水更多：大约 80%，面团会更黏。"],
    ]);
  });

  it("## Prompt: / ## Response: under a header naming the chat's link: ChatGPT's chat, by its id, without the exporter's credit", async () => {
    const [chat] = await collect(md("prompt-response.md"));
    expect(chat).toMatchObject({
      platform: "chatgpt",
      conversation: {
        id: "683c1a2b-4d5e-8000-b1c2-d3e4f5a6b7c8",
        title: "Sardine season in Lisbon",
        createdAt: "2025-06-01T10:00:00.000Z",
        updatedAt: "2025-06-01T10:04:30.000Z",
      },
    });
    const messages = chat!.conversation.messages;
    expect(messages.map((m) => m.role)).toEqual(["human", "assistant", "human", "assistant"]); // "**User:** Rui Costa" is the header's
    expect(messages.at(-1)!.content).toBe("Alfama and Bica during the festival; any tasca with a street grill the rest of the summer.");
  });

  it("bold labels in a pasted .txt with Windows line ends, and a ChatGPT page copied as text", async () => {
    const [bold] = await collect(md("pasted-bold.txt"));
    expect(bold!.platform).toBe("markdown");
    expect(bold!.conversation.title).toBe("Which Lisbon museum has the Bosch triptych?");
    expect(contents(bold!.conversation.messages)).toEqual([
      "human: Which Lisbon museum has the Bosch triptych?",
      "assistant: The Museu Nacional de Arte Antiga: *The Temptation of St Anthony* hangs there.",
      "human: Is it open on Mondays?",
      "assistant: No, it closes on Mondays; Tuesday to Sunday it opens from 10:00 to 18:00.",
    ]);
    const [copied] = await collect(md("copied-page.txt"));
    expect(copied!.platform).toBe("chatgpt");
    expect(copied!.conversation.messages.map((m) => m.role)).toEqual(["human", "assistant", "human", "assistant"]);
  });

  it("speakers' labels as exporters write them: a dash or parentheses with a time, a model, an emoji, 'said'", async () => {
    const text = [
      "## 🧑 You — 2025-06-01T10:00:00Z",
      "Hi",
      "## 🤖 ChatGPT (gpt-4o)",
      "Hello",
      "## User _(6/1/2025, 10:05:00 AM)_",
      "Again",
      "## Claude 3.5 Sonnet:",
      "Once more",
    ].join("\n");
    const [chat] = await collect(textFile(text));
    expect(chat!.conversation.messages.map((m) => [m.role, m.content, m.createdAt])).toEqual([
      ["human", "Hi", "2025-06-01T10:00:00.000Z"],
      ["assistant", "Hello", undefined],
      ["human", "Again", "2025-06-01T10:05:00.000Z"],
      ["assistant", "Once more", undefined],
    ]);
  });

  it("an answer that scripts a dialogue in bold labels is one answer: headings are the transcript's speakers", async () => {
    const text =
      "### You\nWrite a dialogue.\n\n### ChatGPT\n**User:** Hi!\n\n**Assistant:** Hello!\n\n**User:** Bye!\n\n**Assistant:** Bye!";
    const [chat] = await collect(textFile(text));
    expect(chat!.conversation.messages).toHaveLength(2);
    expect(chat!.conversation.messages[1]!.content).toContain("**Assistant:** Bye!");
  });

  it("bytes that are not UTF-8 are repaired and said so", async () => {
    const path = textFile(
      Buffer.concat([Buffer.from("## User\nCaf"), Buffer.from([0xe9]), Buffer.from(" au lait?\n## Assistant\nYes.\n")]),
    );
    const reader = await openExport(path);
    const chats = [];
    for await (const chat of reader.conversations()) chats.push(chat);
    expect(chats[0]!.conversation.messages[0]!.content).toBe("Caf\uFFFD au lait?");
    expect(reader.repaired()).toMatchObject([{ record: 1, fields: ["(the text)"], count: 1, text: "Caf\uFFFD au lait?" }]);
  });
});

describe("hostile transcripts", () => {
  it("unclosed comments and folds repeated through a large message are kept as text, and read in one pass", async () => {
    const noise = "<!-- <details><summary>Thinking</summary>\n".repeat(50_000);
    const [chat] = await collect(textFile(`## User\nHi\n## Assistant\n${noise}Done.`));
    const answer = chat!.conversation.messages[1]!.content;
    expect(answer.endsWith("Done.")).toBe(true);
    expect(answer.length).toBeGreaterThan(noise.length - 100);
  });
});

describe("what is no transcript", () => {
  it("an ordinary note is refused, naming it text with no speakers, the formats there are, and what a transcript is", async () => {
    for (const note of ["notes-not-a-chat.md", "notes-headings.md"]) {
      const refused = await openExport(md(note)).then(
        () => undefined,
        (error: unknown) => error as AppError,
      );
      expect(refused?.message).toMatch(
        new RegExp(
          `${note}: not a supported chat export \\(it is text, not JSON, and no chat transcript: no speaker headings were found\\)\\. mnemo reads: .*Markdown transcript`,
        ),
      );
      expect(refused?.suggestion).toMatch(/^A Markdown transcript is a \.md or \.txt file of one chat, its speakers as headings \(## User/);
    }
  });

  it("a heading that only starts with a speaker's name, one speaker alone, or an assistant before any person is no transcript", async () => {
    for (const text of [
      "## User Guide\nRead me.\n## Assistant Manager\nHire one.",
      "## User\nA\n## User\nB",
      "## Assistant\nHello, how can I help?",
    ]) {
      await expect(openExport(textFile(text)), text).rejects.toThrow(/no chat transcript/);
    }
  });

  it("a JSON file that is not an export is still called invalid or unknown JSON, not text", async () => {
    await expect(openExport(textFile('{"a": 1,', "broken.json"))).rejects.toThrow(/invalid JSON/);
    await expect(openExport(textFile('["## User", "## Assistant"]', "list.json"))).rejects.toThrow(/no format's structure matches it/);
  });
});
