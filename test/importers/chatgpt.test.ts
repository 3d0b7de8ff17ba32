import { collect, fixtures, recordContext } from "./collect.js";
import { copyFile, mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatgptConversation } from "../../src/importers/chatgpt/conversation.js";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";

const plainFile = join(fixtures, "chatgpt/conversations.json");

function summary(conversations: UploadConversation[]): Array<[string, string, string[]]> {
  return conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.map((m) => `${m.role}:${m.id}`)]);
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-chatgpt-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A node of a GPT-5 conversation's mapping, as its exports write one. */
const gpt5Node = (id: string, parent: string | null, message: object) => ({
  id,
  parent,
  children: [] as string[],
  message: { id, create_time: 1_760_000_000, ...message },
});
const gpt5Answer = (id: string, parent: string, message: object) => gpt5Node(id, parent, { author: { role: "assistant" }, ...message });
const gpt5Text = (words: string) => ({ content_type: "text", parts: [words] });

describe("ChatGPT conversations.json", () => {
  it("reads the current branch of each conversation, in order, with exact fields", async () => {
    const conversations = await collect(plainFile);
    expect(conversations.every((c) => c.complete === true)).toBe(true); // a re-import drops what the branch no longer holds
    expect(summary(conversations)).toEqual([
      [
        "6633a1f0-5b1c-8005-9e51-1c2a7b4f0a11",
        "Lisbon long weekend in May",
        [
          "human:u1-itinerary",
          "assistant:a1-itinerary",
          "human:u2-airport",
          "assistant:a2-airport",
          "human:u3-pastelaria",
          "assistant:a3-pastelaria",
        ],
      ],
      [
        "67a0c3d2-2f40-800a-b7d1-55e3f6a0c2b9",
        "Fix KeyError in CSV sales report",
        [
          "human:u1-traceback",
          "assistant:a1-answer",
          "human:u2-decimal",
          "assistant:a2-run-code",
          "assistant:t2-output",
          "assistant:a3-final",
        ],
      ],
      ["b2f0e1c4-7d3a-4c55-9a0e-3f1d2c8b6e70", "日本語: は vs が", ["human:u1-jp", "assistant:a1-jp", "human:u2-jp", "assistant:a2-jp"]],
      [
        "65f1d9a0-0c3e-8001-a4b2-8d9e0f1a2b3c",
        "Sauerteig-Starter blubbert nicht",
        ["human:u1-de", "assistant:a1-de", "human:u2-de", "assistant:a2-de"],
      ],
    ]);
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect(conversation.platform).toBe("chatgpt");
      expect(conversation.platformDisplayName).toBe("ChatGPT");
    }
  });

  it("keeps the conversation and message timestamps (fractional seconds included)", async () => {
    const [lisbon, python, japanese, sourdough] = await collect(plainFile);
    expect(lisbon?.conversation.createdAt).toBe("2024-05-02T18:20:00.125Z");
    expect(lisbon?.conversation.updatedAt).toBe("2024-05-02T18:41:37.000Z");
    expect(lisbon?.conversation.messages.map((m) => m.createdAt)).toEqual([
      "2024-05-02T18:20:00.125Z",
      "2024-05-02T18:20:14.000Z",
      "2024-05-02T18:25:40.000Z",
      "2024-05-02T18:25:58.000Z",
      "2024-05-02T18:40:03.000Z",
      "2024-05-02T18:41:37.000Z",
    ]);
    // A message without create_time has no createdAt (the key is absent, not undefined-valued).
    const decimal = python?.conversation.messages[2];
    expect(decimal?.id).toBe("u2-decimal");
    expect(decimal && "createdAt" in decimal).toBe(false);
    // No conversation-level times: the earliest message time, and no updatedAt.
    expect(japanese?.conversation.createdAt).toBe("2023-11-18T07:05:09.000Z");
    expect(japanese?.conversation.updatedAt).toBeUndefined();
    expect(sourdough?.conversation.createdAt).toBe("2024-03-13T16:02:11.500Z");
  });

  it("follows current_node, not the newest child: the regenerated answer is left out", async () => {
    const [lisbon] = await collect(plainFile);
    const texts = lisbon?.conversation.messages.map((m) => m.content).join("\n") ?? "";
    expect(texts).not.toContain("ABANDONED BRANCH");
    expect(lisbon?.conversation.messages[1]?.content).toBe(
      "Here's a relaxed four-day plan built around neighbourhoods and food:\n\n" +
        "**Day 1 – Alfama & Graça:** wander the alleys, lunch on grilled sardines, sunset at Miradouro da Senhora do Monte.\n" +
        "**Day 2 – Belém:** walk the riverfront to the Torre de Belém and queue for pastéis de nata at the original bakery.\n" +
        "**Day 3 – Sintra day trip:** train from Rossio (40 min), hike up to the Moorish Castle.\n" +
        "**Day 4 – Bairro Alto & LX Factory:** brunch, the Sunday market, then petiscos and fado in the evening.",
    );
  });

  it("skips system, hidden, context, reasoning, tool-call, tool-result and empty messages", async () => {
    const ids = (await collect(plainFile)).flatMap((c) => c.conversation.messages.map((m) => m.id));
    for (const skipped of [
      "sys-0",
      "ctx-0",
      "a2-search-call",
      "t2-search-result",
      "sys-py",
      "a1-thoughts",
      "a1-recap",
      "a2-empty",
      "a2-memory",
    ]) {
      expect(ids).not.toContain(skipped);
    }
  });

  it("keeps a code interpreter cell and its output as code, from the assistant", async () => {
    const [, python] = await collect(plainFile);
    const byId = new Map(python!.conversation.messages.map((m) => [m.id, m]));
    expect(byId.get("a2-run-code")).toMatchObject({ role: "assistant", content: "```python\nprint(parse_amount('1.234,50'))\n```" });
    expect(byId.get("t2-output")).toMatchObject({ role: "assistant", content: "Output:\n```\n1234.5\n```" });
  });

  it("does not yield a conversation with nothing visible in it", async () => {
    const ids = (await collect(plainFile)).map((c) => c.conversation.id);
    expect(ids).not.toContain("6701aa00-0000-8000-8000-000000000000");
  });

  it("renders parts: text exactly, images/audio as placeholders, attachments as [file: name], citations removed", async () => {
    const [lisbon, python, japanese] = await collect(plainFile);
    const byId = (c: UploadConversation | undefined, id: string): string | undefined =>
      c?.conversation.messages.find((m) => m.id === id)?.content;
    expect(byId(lisbon, "u2-airport")).toBe("How do we get from the airport to Alfama? And is tram 28 worth it? 🚋");
    expect(byId(lisbon, "u3-pastelaria")).toBe("[image]\nIs this pastelaria near our Airbnb any good? The queue was around the block.");
    expect(byId(lisbon, "a2-airport")).toBe(
      "Take the red metro line from Aeroporto to Alameda, change to the green line and get off at Baixa-Chiado; from there it's a 10-minute uphill walk to Alfama.\n\n" +
        "Tram 28 is worth it once: board at Martim Moniz before 9:00 to get a seat. A 24-hour Carris/Metro pass costs €6.80. Obrigado goes a long way — say obrigada if you're a woman.",
    );
    expect(byId(python, "u1-traceback")).toBe(
      "My script crashes when I run it on the January export:\n\n```\nTraceback (most recent call last):\n" +
        '  File "sales_report.py", line 14, in <module>\n    totals[row["region"]] += float(row["amount"])\nKeyError: \'EMEA\'\n```\n\nWhat\'s wrong?\n[file: sales_report.py]',
    );
    expect(byId(python, "a3-final")).toBe(
      'Those are European-formatted numbers. Normalise them before converting:\n\n```python\ndef parse_amount(text: str) -> float:\n    return float(text.replace(".", "").replace(",", "."))\n```\n\n`parse_amount("1.234,50")` returns `1234.5`.',
    );
    expect(byId(japanese, "u2-jp")).toBe("Can you give me three practice sentences?\n[audio]");
    expect(byId(japanese, "a2-jp")).toBe(
      "1. 猫が好きです。 — I like cats.\n2. 今日は暑いですね。 — It's hot today, isn't it?\n3. 誰がケーキを食べましたか？ — Who ate the cake? 🍰\n\nがんばって！",
    );
  });

  it("keeps the names entity markers show, and drops citation markers without leaving a space", () => {
    const answer = (text: string) => ({
      id: "c-entity",
      title: "Plants",
      create_time: 1_700_000_000,
      current_node: "a",
      mapping: {
        root: { id: "root", children: ["a"] },
        a: {
          id: "a",
          parent: "root",
          children: [],
          message: { id: "a", author: { role: "assistant" }, create_time: 1_700_000_001, content: { content_type: "text", parts: [text] } },
        },
      },
    });
    const context = recordContext();
    const text = (raw: string) => chatgptConversation(answer(raw), context)!.conversation.messages[0]!.content;
    expect(text('Buy one at \ue200entity\ue202["local_business","Gartencenter Zarzuela",0]\ue201 today.')).toBe(
      "Buy one at Gartencenter Zarzuela today.",
    );
    expect(text("Prices rose this year \ue200cite\ue202turn0search0\ue201.")).toBe("Prices rose this year.");
    expect(text("Prices rose this year 【4:0†source】.")).toBe("Prices rose this year.");
    expect(text("Odd \ue200entity\ue202not json\ue201 marker.")).toBe("Odd marker.");
  });

  it("keeps a document the assistant wrote in a canvas and the text its edits put in, not other tool calls", () => {
    const node = (id: string, parent: string | null, message: object) => ({
      id,
      parent,
      children: [] as string[],
      message: { id, create_time: 1_700_000_000, ...message },
    });
    const record = {
      id: "c-canvas",
      title: "Care guide",
      current_node: "a3",
      mapping: {
        u1: node("u1", null, { author: { role: "user" }, content: { content_type: "text", parts: ["Write a care guide for my fern"] } }),
        a1: node("a1", "u1", {
          author: { role: "assistant" },
          recipient: "canmore.create_textdoc",
          content: {
            content_type: "code",
            text: JSON.stringify({ name: "fern_care", type: "document", content: "# Fern care\nMist the fronds every morning." }),
          },
        }),
        a2: node("a2", "a1", {
          author: { role: "assistant" },
          recipient: "canmore.update_textdoc",
          content: { content_type: "code", text: '{"updates":[{"pattern":".*","replacement":"x"}]}' },
        }),
        a3: node("a3", "a2", {
          author: { role: "assistant" },
          recipient: "all",
          content: { content_type: "text", parts: ["I've written it in the canvas."] },
        }),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.id, m.content])).toEqual([
      ["u1", "Write a care guide for my fern"],
      ["a1", "[document: fern_care]\n# Fern care\nMist the fronds every morning."],
      ["a2", "[document edit: fern_care]\nx"],
      ["a3", "I've written it in the canvas."],
    ]);
  });

  it("keeps a GPT-5 answer, not its preambles (commentary channel) nor code sent to all (a tool call)", () => {
    // A thinking turn as GPT-5 exports write it: public parsers of real exports (convoviz, the
    // userscript exporters) show the final-channel text as the answer and fold the rest away.
    const record = {
      id: "c-gpt5",
      title: "Ferry times",
      current_node: "a6",
      mapping: {
        u1: gpt5Node("u1", null, { author: { role: "user" }, content: gpt5Text("When does the last ferry to Cacilhas leave?") }),
        a1: gpt5Answer("a1", "u1", {
          recipient: "all",
          channel: "commentary",
          content: gpt5Text("I'll check Transtejo's current timetable."),
        }),
        a2: gpt5Answer("a2", "a1", {
          recipient: "web.run",
          channel: "commentary",
          content: { content_type: "code", text: '{"search_query":[{"q":"Transtejo"}]}' },
        }),
        a3: gpt5Answer("a3", "a2", {
          recipient: "all",
          content: { content_type: "code", language: "unknown", text: 'search("Cais do Sodré Cacilhas last ferry")' },
        }),
        a4: gpt5Answer("a4", "a3", {
          recipient: "all",
          metadata: { is_thinking_preamble_message: true },
          content: gpt5Text("Now reading the timetable page."),
        }),
        a5: gpt5Answer("a5", "a4", { recipient: "all", channel: "analysis", content: gpt5Text("The page lists 01:40.") }),
        a6: gpt5Answer("a6", "a5", {
          recipient: "all",
          channel: "final",
          content: gpt5Text("The last ferry leaves Cais do Sodré at 01:40."),
        }),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.id, m.content])).toEqual([
      ["u1", "When does the last ferry to Cacilhas leave?"],
      ["a6", "The last ferry leaves Cais do Sodré at 01:40."],
    ]);
  });

  it("a GPT-5 turn stopped before its final answer keeps the preambles the user read, never its reasoning", () => {
    // The user pressed stop while the model was working: the turn has preambles, tool calls and
    // reasoning but no final-channel message. What the chat showed of it is its preambles.
    const record = {
      id: "c-stopped",
      title: "Heimdall",
      current_node: "c2",
      mapping: {
        u1: gpt5Node("u1", null, { author: { role: "user" }, content: gpt5Text("Why does Heimdall fail with libusb error -12?") }),
        a1: gpt5Answer("a1", "u1", {
          recipient: "all",
          channel: "commentary",
          metadata: { is_thinking_preamble_message: true },
          content: gpt5Text("I'm going to check the driver Heimdall needs on Windows."),
        }),
        a2: gpt5Answer("a2", "a1", { recipient: "all", content: { content_type: "thoughts", thoughts: [{ content: "Maybe WinUSB." }] } }),
        a3: gpt5Answer("a3", "a2", {
          recipient: "web.run",
          content: { content_type: "code", text: '{"search_query":[{"q":"libusb -12"}]}' },
        }),
        a4: gpt5Answer("a4", "a3", {
          recipient: "all",
          channel: "analysis",
          content: gpt5Text("Error -12 is LIBUSB_ERROR_NOT_SUPPORTED."),
        }),
        a5: gpt5Answer("a5", "a4", {
          recipient: "all",
          metadata: { is_thinking_preamble_message: true },
          content: gpt5Text("Now reading Zadig's notes."),
        }),
        u2: gpt5Node("u2", "a5", { author: { role: "user" }, content: gpt5Text("Never mind, just tell me the short answer.") }),
        b1: gpt5Answer("b1", "u2", { recipient: "all", channel: "commentary", content: gpt5Text("Answering from what I found.") }),
        b2: gpt5Answer("b2", "b1", { recipient: "all", channel: "final", content: gpt5Text("Install WinUSB with Zadig.") }),
        // A deep-research turn: its answer is the report a tool message holds, so its preamble stays out.
        u3: gpt5Node("u3", "b2", { author: { role: "user" }, content: gpt5Text("Research Heimdall's driver history.") }),
        c1: gpt5Answer("c1", "u3", { recipient: "all", channel: "commentary", content: gpt5Text("Starting the research.") }),
        c2: gpt5Node("c2", "c1", {
          author: { role: "tool", name: "research_kickoff_tool" },
          content: gpt5Text(""),
          metadata: {
            chatgpt_sdk: {
              widget_state: JSON.stringify({ report_message: { content: { content_type: "text", parts: ["# Report\nUse WinUSB."] } } }),
            },
          },
        }),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["u1", "human", "Why does Heimdall fail with libusb error -12?"],
      ["a1", "assistant", "I'm going to check the driver Heimdall needs on Windows."],
      ["a5", "assistant", "Now reading Zadig's notes."],
      ["u2", "human", "Never mind, just tell me the short answer."],
      ["b2", "assistant", "Install WinUSB with Zadig."],
      ["u3", "human", "Research Heimdall's driver history."],
      ["c2", "assistant", "# Report\nUse WinUSB."],
    ]);
  });

  it("leaves out the code a thinking model ran while it reasoned, and its output", () => {
    // As real exports write it (conversations published in the code corpus): GPT-5.1 Thinking's
    // python calls and their execution_output carry reasoning_status "is_reasoning" (December
    // 2025), the code as a text part or as code; GPT-5 Thinking's are on the commentary channel
    // (November 2025). ChatGPT folds them into the thinking panel. A GPT-4o code interpreter cell
    // has neither and is shown (the fixture).
    const reasoning = { reasoning_status: "is_reasoning", reasoning_title: "Counting words per chapter" };
    const record = {
      id: "c-thinking-python",
      title: "Feedback on manuscript",
      current_node: "b2",
      mapping: {
        u1: gpt5Node("u1", null, { author: { role: "user" }, content: gpt5Text("How long is my manuscript?") }),
        a1: gpt5Answer("a1", "u1", { recipient: "all", metadata: reasoning, content: { content_type: "thoughts", thoughts: [] } }),
        a2: gpt5Answer("a2", "a1", {
          recipient: "python",
          metadata: reasoning,
          content: gpt5Text("sum(len(ch.split()) for ch in chapters)"),
        }),
        t2: gpt5Node("t2", "a2", {
          author: { role: "tool", name: "python" },
          recipient: "all",
          metadata: reasoning,
          content: { content_type: "execution_output", text: "17058" },
        }),
        a3: gpt5Answer("a3", "t2", {
          recipient: "python",
          metadata: reasoning,
          content: { content_type: "code", language: "unknown", text: "print(text[400:1000])" },
        }),
        t3: gpt5Node("t3", "a3", {
          author: { role: "tool", name: "python" },
          recipient: "all",
          metadata: reasoning,
          content: { content_type: "execution_output", text: "The assistant resets the switch." },
        }),
        a4: gpt5Answer("a4", "t3", {
          recipient: "all",
          metadata: { reasoning_status: "reasoning_ended" },
          content: { content_type: "reasoning_recap", content: "Thought for 1m 8s" },
        }),
        a5: gpt5Answer("a5", "a4", { recipient: "all", content: gpt5Text("It runs to about 17,000 words.") }),
        u2: gpt5Node("u2", "a5", { author: { role: "user" }, content: gpt5Text("Summarise each novella bible.") }),
        b1: gpt5Answer("b1", "u2", { recipient: "python", channel: "commentary", content: gpt5Text("records = parse(root)") }),
        s1: gpt5Node("s1", "b1", {
          author: { role: "tool", name: "python" },
          recipient: "all",
          channel: "commentary",
          content: { content_type: "execution_output", text: "{'json_extracts': '/mnt/data/Extracts.json'}" },
        }),
        b2: gpt5Answer("b2", "s1", { recipient: "all", channel: "final", content: gpt5Text("N01 opens in the forge.") }),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.id, m.content])).toEqual([
      ["u1", "How long is my manuscript?"],
      ["a5", "It runs to about 17,000 words."],
      ["u2", "Summarise each novella bible."],
      ["b2", "N01 opens in the forge."],
    ]);
  });

  it("leaves out what the agent sent in the user's name to go on (is_auto_proceed_message), keeping what it asked", () => {
    // As a real agent-mode export of August 2025 writes it (a conversation published in the code
    // corpus): the agent's reply waits for an answer (auto_proceed_timeout_seconds) on the
    // commentary channel; none came, so ChatGPT sent "Please proceed. …" as a user message with
    // is_auto_proceed_message, and a "Continue" (weight 0) on a branch left behind.
    const agent = { n7jupd_message: true };
    const record = {
      id: "c-agent",
      title: "Engaging narrative elements",
      current_node: "a3",
      mapping: {
        u1: gpt5Node("u1", null, { author: { role: "user" }, content: gpt5Text("**Prologue**\n\nVael perched atop Meridian's spire.") }),
        a1: gpt5Answer("a1", "u1", {
          recipient: "all",
          channel: "commentary",
          metadata: { ...agent, auto_proceed_timeout_seconds: 60 },
          content: gpt5Text("Your prologue sets a vivid mood."),
        }),
        u2: gpt5Node("u2", "a1", {
          author: { role: "user" },
          metadata: { is_auto_proceed_message: true },
          content: gpt5Text("Please proceed. Do not ask any additional follow-up questions."),
        }),
        u3: gpt5Node("u3", "a1", {
          author: { role: "user" },
          weight: 0,
          metadata: { is_auto_proceed_message: true, system_hints: ["agent"] },
          content: gpt5Text("Continue"),
        }),
        a2: gpt5Answer("a2", "u2", {
          recipient: "all",
          channel: "commentary",
          metadata: agent,
          content: gpt5Text("I'll write Chapter 5."),
        }),
        a3: gpt5Answer("a3", "a2", {
          recipient: "all",
          channel: "final",
          metadata: agent,
          content: gpt5Text("**Chapter 5: The Final Circuit**"),
        }),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["u1", "human", "**Prologue**\n\nVael perched atop Meridian's spire."],
      ["a1", "assistant", "Your prologue sets a vivid mood."],
      ["a3", "assistant", "**Chapter 5: The Final Circuit**"],
    ]);
  });

  it("quotes the passage a reply to a selection answers (targeted_reply) above the user's words", () => {
    // As a real export of March 2026 writes it (a deep-research conversation published in the code
    // corpus): the user selected a heading of the answer and replied to it.
    const record = {
      id: "c-reply",
      title: "High-demand services",
      current_node: "u2",
      mapping: {
        u1: gpt5Node("u1", null, { author: { role: "user" }, content: gpt5Text("What do people buy every day?") }),
        a1: gpt5Answer("a1", "u1", { recipient: "all", content: gpt5Text("## Everyday high-demand resources\n\nWater filters, …") }),
        u2: gpt5Node("u2", "a1", {
          author: { role: "user" },
          metadata: { targeted_reply: "Everyday high-demand resources", targeted_reply_label: "Everyday high-demand resources" },
          content: gpt5Text("not products. services"),
        }),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => m.content)[2]).toBe("> Everyday high-demand resources\n\nnot products. services");
  });

  it("is detected by structure, whatever the file is called", async () => {
    const renamed = join(tmp, "data.json");
    await copyFile(plainFile, renamed);
    const reader = await openExport(renamed);
    expect(reader.format).toBe("chatgpt");
    expect(await collect(renamed)).toEqual(await collect(plainFile));
  });

  it("reports byte totals and progress", async () => {
    const reader = await openExport(plainFile);
    const size = (await stat(plainFile)).size;
    expect(reader.totalBytes).toBe(size);
    expect(reader.bytesRead()).toBe(0);
    const seen: number[] = [];
    for await (const _ of reader.conversations()) seen.push(reader.bytesRead());
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(reader.bytesRead()).toBe(size);
  });

  it("applies a platform override", async () => {
    const conversations = await collect(plainFile, { platform: "chatgpt-work" });
    expect(conversations.map((c) => c.platform)).toEqual(["chatgpt-work", "chatgpt-work", "chatgpt-work", "chatgpt-work"]);
  });
});

describe("ChatGPT containers", () => {
  it("the zip gives exactly what the plain file gives", async () => {
    const zipPath = join(fixtures, "chatgpt-export.zip");
    const reader = await openExport(zipPath);
    expect(reader.format).toBe("chatgpt");
    expect(reader.totalBytes).toBe((await stat(plainFile)).size); // only conversations.json, uncompressed
    expect(await collect(zipPath)).toEqual(await collect(plainFile));
  });

  it("the unzipped folder gives exactly what the plain file gives (side files ignored)", async () => {
    expect(await collect(join(fixtures, "chatgpt"))).toEqual(await collect(plainFile));
  });

  it("the sharded layout (export_manifest.json + conversations-NNN.json) equals the unsharded file", async () => {
    const plain = await collect(plainFile);
    const folder = join(fixtures, "chatgpt-sharded");
    const reader = await openExport(folder);
    const shardSizes =
      (await stat(join(folder, "conversations-000.json"))).size + (await stat(join(folder, "conversations-001.json"))).size;
    expect(reader.format).toBe("chatgpt");
    expect(reader.totalBytes).toBe(shardSizes);
    expect(await collect(folder)).toEqual(plain);
    expect(await collect(join(fixtures, "chatgpt-sharded-export.zip"))).toEqual(plain);
  });

  it("reads shards in manifest order, not name order", async () => {
    const dir = await mkdtemp(join(tmp, "manifest-"));
    await copyFile(join(fixtures, "chatgpt-sharded/conversations-000.json"), join(dir, "b-first.json"));
    await copyFile(join(fixtures, "chatgpt-sharded/conversations-001.json"), join(dir, "a-second.json"));
    await writeFile(join(dir, "export_manifest.json"), JSON.stringify({ files: [{ path: "b-first.json" }, { path: "a-second.json" }] }));
    expect(await collect(dir)).toEqual(await collect(plainFile));
  });
});

describe("ChatGPT fallbacks", () => {
  const node = (id: string, parent: string | null, children: string[], message: unknown): Record<string, unknown> => ({
    id,
    parent,
    children,
    message,
  });
  const userMessage = (id: string, text: string, time: number | null): Record<string, unknown> => ({
    id,
    author: { role: "user" },
    create_time: time,
    content: { content_type: "text", parts: [text] },
    metadata: {},
    recipient: "all",
  });
  const assistantMessage = (id: string, text: string): Record<string, unknown> => ({
    ...userMessage(id, text, null),
    author: { role: "assistant" },
  });

  it("without any date uses the file's modification time; without an id derives a stable one", async () => {
    const path = join(tmp, "undated.json");
    const record = {
      title: "",
      mapping: { r: node("r", null, ["m1"], null), m1: node("m1", "r", [], userMessage("m1", "Undated question", null)) },
      current_node: "m1",
    };
    await writeFile(path, JSON.stringify([record]));
    const mtime = new Date("2024-01-02T03:04:05.000Z");
    await utimes(path, mtime, mtime);
    const [first] = await collect(path);
    const [again] = await collect(path);
    expect(first?.conversation.createdAt).toBe("2024-01-02T03:04:05.000Z");
    expect(first?.conversation.title).toBe("Untitled");
    expect(first?.conversation.id).toMatch(/^chatgpt-[0-9a-f]{32}$/);
    expect(again?.conversation.id).toBe(first?.conversation.id);
  });

  it("without current_node follows the newest child from the root", async () => {
    const path = join(tmp, "no-current-node.json");
    const record = {
      title: "Branches",
      create_time: 1_700_000_000,
      conversation_id: "branches",
      mapping: {
        r: node("r", null, ["q"], null),
        q: node("q", "r", ["old", "new"], userMessage("q", "Question", 1_700_000_000)),
        old: node("old", "q", [], assistantMessage("old", "Old answer")),
        new: node("new", "q", [], assistantMessage("new", "New answer")),
      },
    };
    await writeFile(path, JSON.stringify([record]));
    const [conversation] = await collect(path);
    expect(conversation?.conversation.messages.map((m) => m.content)).toEqual(["Question", "New answer"]);
  });

  it("a mapping whose parents form a cycle (no root, no current_node) keeps its messages, in order", () => {
    const record = {
      title: "Looped",
      conversation_id: "looped",
      current_node: null,
      mapping: {
        q: node("q", "a", ["a"], userMessage("q", "Question", 1_700_000_000)),
        a: node("a", "q", ["q"], assistantMessage("a", "Answer")),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => m.content)).toEqual(["Question", "Answer"]);
  });

  it("a current_node or parent named like an object's built-ins (__proto__) is no node: the messages are kept", () => {
    const record = {
      title: "Hostile ids",
      conversation_id: "hostile-ids",
      current_node: "__proto__",
      mapping: {
        q: node("q", "constructor", ["a"], userMessage("q", "Question", 1_700_000_000)),
        a: node("a", "q", [], assistantMessage("a", "Answer")),
      },
    };
    const messages = chatgptConversation(record, recordContext())!.conversation.messages;
    expect(messages.map((m) => m.content)).toEqual(["Question", "Answer"]);
  });

  it("a non-object element is invalid input naming the file and record", async () => {
    const path = join(tmp, "bad-element.json");
    const valid = {
      title: "Fine",
      create_time: 1_700_000_000,
      conversation_id: "fine",
      mapping: { r: node("r", null, ["q"], null), q: node("q", "r", [], userMessage("q", "Hello", 1_700_000_000)) },
      current_node: "q",
    };
    await writeFile(path, JSON.stringify([valid, 42]));
    const reader = await openExport(path);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of reader.conversations()) seen.push(c.conversation.id);
      })(),
    ).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/bad-element\.json, record 2 \(at byte \d+\): not a conversation object/),
    });
    expect(seen).toEqual(["fine"]);
  });
});
