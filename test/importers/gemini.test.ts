import { collect, fixtures } from "./collect.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeEntities, htmlToText } from "../../src/importers/gemini/html-text.js";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";

const activityFile = join(fixtures, "gemini/My Activity.json");

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-gemini-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("Gemini My Activity.json", () => {
  it("groups Gemini records into conversations (by URL, else by pauses, named by UTC day), oldest first", async () => {
    const conversations = await collect(activityFile);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["gemini-day-2023-08-20", "Suggest three beginner podcasts for learning Japanese", "2023-08-20T14:03:12.000Z", undefined],
        [
          "gemini-day-2025-03-08",
          "Explain the difference between a list and a tuple in Python",
          "2025-03-08T08:15:44.900Z",
          "2025-03-08T08:17:20.100Z",
        ],
        [
          "gemini-app-4f2a9c1e7b3d5a60",
          "What's the weather like in Lisbon in mid-May?",
          "2025-03-08T19:40:02.001Z",
          "2025-03-08T19:42:10.512Z",
        ],
        [
          "gemini-day-2025-03-09",
          "Why is the crumb of my sourdough so dense and gummy even though the loaf rose w…",
          "2025-03-09T06:05:31.250Z",
          undefined,
        ],
      ],
    );
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["gemini", "Gemini"]);
    }
  });

  it("turns each record into a prompt and a response, in time order, with plain-text responses", async () => {
    const conversations = await collect(activityFile);
    const lisbon = conversations.find((c) => c.conversation.id === "gemini-app-4f2a9c1e7b3d5a60");
    expect(lisbon?.conversation.messages).toEqual([
      {
        id: "gemini-2025-03-08T19:40:02.001Z-37b81243c4-prompt",
        role: "human",
        content: "What's the weather like in Lisbon in mid-May?",
        createdAt: "2025-03-08T19:40:02.001Z",
      },
      {
        id: "gemini-2025-03-08T19:40:02.001Z-37b81243c4-response",
        role: "assistant",
        content:
          "Mild and mostly dry: expect 17–24 °C in the afternoon and cooler evenings by the river.\n\nPack a light jacket & sunscreen — the sun is strong even when the wind isn't warm.",
        createdAt: "2025-03-08T19:40:02.001Z",
      },
      {
        id: "gemini-2025-03-08T19:42:10.512Z-376b728b6f-prompt",
        role: "human",
        content: "Make me a carry-on packing list for 4 days there",
        createdAt: "2025-03-08T19:42:10.512Z",
      },
      {
        id: "gemini-2025-03-08T19:42:10.512Z-376b728b6f-response",
        role: "assistant",
        content:
          "Here's a compact list:\n\n- 2 pairs of comfortable walking shoes (the calçada cobbles are slippery)\n- Light layers: 3 T-shirts, 1 jumper, 1 rain jacket\n- Adapter? No — Portugal uses the same plugs as Germany\n\nTip: leave room for a tin of sardines or two.",
        createdAt: "2025-03-08T19:42:10.512Z",
      },
    ]);
    const python = conversations.find((c) => c.conversation.id === "gemini-day-2025-03-08");
    expect(python?.conversation.messages.map((m) => m.content)).toEqual([
      "Explain the difference between a list and a tuple in Python",
      'Both are ordered sequences, but:\n\n- a list is mutable: xs.append(4)\n- a tuple is immutable, so it is hashable when its items are\n\npoint = (52.52, 13.40)\nsizes = ["S", "M"]\nsizes.append("L")  # fine\n\nUse a tuple for fixed records, a list for collections that grow.',
      "Give me a tiny example where that matters",
      "Tuples can be dictionary keys: {(52.52, 13.40): \"Berlin\"} works, but a list key raises TypeError: unhashable type: 'list'.",
    ]);
  });

  it("strips the prompt verb (Prompted / Asked), accepts legacy Bard records and lists attached files", async () => {
    const conversations = await collect(activityFile);
    const bard = conversations[0];
    expect(bard?.conversation.messages.map((m) => m.content)).toEqual([
      "Suggest three beginner podcasts for learning Japanese",
      "Try these:\n\n- Nihongo con Teppei – short, slow, fun\n- JapanesePod101 – structured lessons\n- Learn Japanese Pod – conversational grammar\n\nがんばってね！ 🎧",
    ]);
    const crumb = conversations[3];
    expect(crumb?.conversation.messages[0]?.content).toBe(
      "Why is the crumb of my sourdough so dense and gummy even though the loaf rose well overnight in the fridge?\n[file: crumb-shot.jpg]",
    );
    expect(crumb?.conversation.messages[1]?.content).toBe(
      "A dense, gummy crumb after a good rise usually means under-baking or cutting too early:\n\n1. Bake until the internal temperature reaches 96 °C.\n2. Let the loaf cool for at least an hour — the crumb is still setting.\n3. If it persists, shorten the cold retard: over-proofed dough collapses in the oven.",
    );
  });

  it("strips 'Added chat from link: ', the verb of a prompt in a chat continued from a shared link", async () => {
    // As real Takeouts of 2026 write it (public readers of them, in JSON and on the page, all read
    // the record as a prompt and its answer).
    const path = join(tmp, "shared-link.json");
    const record = (title: string, time: string, html: string) => ({
      header: "Gemini Apps",
      title,
      time,
      products: ["Gemini Apps"],
      safeHtmlItem: [{ html }],
    });
    await writeFile(
      path,
      JSON.stringify([
        record("Prompted And the dose?", "2026-05-03T01:58:00Z", "<p>Usually 200 mg.</p>"),
        record("Added chat from link: Tell me about quinidine in Brugada syndrome", "2026-05-03T01:52:14Z", "<p>Quinidine…</p>"),
      ]),
    );
    const [conversation] = await collect(path);
    expect(conversation?.conversation.messages.filter((m) => m.role === "human").map((m) => m.content)).toEqual([
      "Tell me about quinidine in Brugada syndrome",
      "And the dose?",
    ]);
  });

  it("ignores other Google products and activity without a prompt or response", async () => {
    const texts = (await collect(activityFile)).flatMap((c) => c.conversation.messages.map((m) => m.content)).join("\n");
    expect(texts).not.toContain("Searched for");
    expect(texts).not.toContain("batard");
    expect(texts).not.toContain("Used Gemini Apps");
  });

  it("splits a day's records without a conversation URL where an hour passes between two", async () => {
    const record = (time: string, prompt: string) => ({
      header: "Gemini Apps",
      title: `Prompted ${prompt}`,
      time,
      products: ["Gemini Apps"],
    });
    const path = join(tmp, "one-day.json");
    const day = [
      record("2025-04-02T07:10:00Z", "How long do I boil an egg?"),
      record("2025-04-02T07:55:00Z", "And for a soft yolk?"),
      record("2025-04-02T21:30:00Z", "Translate good night to Portuguese"),
      record("2025-04-02T23:59:00Z", "Summarise the plot of Dune"),
    ];
    await writeFile(path, JSON.stringify(day.reverse()));
    const conversations = await collect(path);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.map((m) => m.content)])).toEqual([
      ["gemini-day-2025-04-02", ["How long do I boil an egg?", "And for a soft yolk?"]],
      ["gemini-day-2025-04-02-2", ["Translate good night to Portuguese"]],
      ["gemini-day-2025-04-02-3", ["Summarise the plot of Dune"]],
    ]);
  });

  it("puts a turn from before a branch point in the original chat and in each branch (a record linking to several)", async () => {
    // The shape of a real Takeout (mposition/Tomverse's docs/policy/external-import-gemini-a2.md measured
    // one: 231 of 819 records linked to 2-4 chats, titled "Branched …"): `details` lists every chat
    // the turn is in, as `{ name: url, url }`.
    const chat = (id: string) => ({ name: `https://gemini.google.com/app/${id}`, url: `https://gemini.google.com/app/${id}` });
    const record = (time: string, title: string, answer: string, chats: string[]) => ({
      header: "Gemini Apps",
      title,
      time,
      products: ["Gemini Apps"],
      details: chats.map(chat),
      safeHtmlItem: [{ html: `<p>${answer}</p>` }],
    });
    const path = join(tmp, "branched.json");
    const records = [
      record("2026-03-02T10:00:00Z", "Branched Plan a weekly report format", "Decide where it lives first.", [
        "aaaa1111bbbb2222",
        "cccc3333dddd4444",
      ]),
      record("2026-03-02T10:05:00Z", "Prompted Compare the two in a table", "A is simpler; B is easier to undo.", ["aaaa1111bbbb2222"]),
      record("2026-03-02T10:06:00Z", "Prompted Make it shorter", "Three lines: where, when, what if it fails.", ["cccc3333dddd4444"]),
    ];
    await writeFile(path, JSON.stringify(records.reverse()));
    const conversations = await collect(path);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.map((m) => [m.role, m.content])])).toEqual([
      [
        "gemini-app-aaaa1111bbbb2222",
        [
          ["human", "Plan a weekly report format"],
          ["assistant", "Decide where it lives first."],
          ["human", "Compare the two in a table"],
          ["assistant", "A is simpler; B is easier to undo."],
        ],
      ],
      [
        "gemini-app-cccc3333dddd4444",
        [
          ["human", "Plan a weekly report format"],
          ["assistant", "Decide where it lives first."],
          ["human", "Make it shorter"],
          ["assistant", "Three lines: where, when, what if it fails."],
        ],
      ],
    ]);
  });

  it("gives the same ids on every import (re-import de-duplicates)", async () => {
    expect(await collect(activityFile)).toEqual(await collect(activityFile));
  });

  it("numbers repeated identical records instead of giving two messages one id", async () => {
    const record = {
      header: "Gemini Apps",
      title: "Prompted Hi",
      time: "2025-01-01T10:00:00Z",
      products: ["Gemini Apps"],
      safeHtmlItem: [{ html: "<p>Hello!</p>" }],
    };
    const path = join(tmp, "repeated.json");
    await writeFile(path, JSON.stringify([record, record]));
    const [conversation] = await collect(path);
    expect(conversation?.conversation.messages.map((m) => m.id)).toEqual([
      "gemini-2025-01-01T10:00:00.000Z-0c8c4cfc23-prompt",
      "gemini-2025-01-01T10:00:00.000Z-0c8c4cfc23-response",
      "gemini-2025-01-01T10:00:00.000Z-0c8c4cfc23-prompt-2",
      "gemini-2025-01-01T10:00:00.000Z-0c8c4cfc23-response-2",
    ]);
  });

  it("the Takeout zip and folder give what the single file gives (Search activity file ignored)", async () => {
    const single = await collect(activityFile);
    const zip = await openExport(join(fixtures, "gemini-takeout.zip"));
    expect(zip.format).toBe("gemini");
    expect(await collect(join(fixtures, "gemini-takeout.zip"))).toEqual(single);
    expect(await collect(join(fixtures, "gemini"))).toEqual(single);
  });
});

describe("htmlToText", () => {
  it("decodes named and numeric entities", () => {
    expect(decodeEntities("&amp; &lt;b&gt; &quot;x&quot; &#39;y&#39; &#x1F600; &eacute;&nbsp;&unknown;")).toBe(
      "& <b> \"x\" 'y' 😀 &eacute; &unknown;",
    );
  });

  it("keeps paragraphs, line breaks and nested lists; collapses other whitespace", () => {
    expect(htmlToText("<p>First   line<br>second</p>\n<p>Next</p>")).toBe("First line\nsecond\n\nNext");
    expect(htmlToText("<ul><li>One</li><li>Two<ul><li>Nested</li></ul></li><li>Three</li></ul><ol><li>a</li><li>b</li></ol>")).toBe(
      "- One\n- Two\n  - Nested\n- Three\n\n1. a\n2. b",
    );
  });

  it("keeps <pre> verbatim and drops scripts, styles and comments", () => {
    expect(
      htmlToText("<pre><code>def f():\n    return 1</code></pre><!-- x --><script>alert(1)</script><style>p{}</style><h2>Done</h2>"),
    ).toBe("def f():\n    return 1\n\nDone");
  });

  it("reads a page saved with Windows (CRLF) or old Mac (CR) line ends as a browser does: no \\r in <pre>", () => {
    expect(htmlToText("<p>One\r\ntwo</p><pre>a = 1\r\nb = 2\rc = 3</pre>")).toBe("One two\n\na = 1\nb = 2\nc = 3");
  });

  it("leaves a stray < that is not a tag", () => {
    expect(htmlToText("<p>3 < 4 &amp;&amp; 5 > 4</p>")).toBe("3 < 4 && 5 > 4");
  });
});
