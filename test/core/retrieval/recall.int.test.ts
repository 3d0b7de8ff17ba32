import * as lancedb from "@lancedb/lancedb";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import { AppError } from "../../../src/shared/errors.js";
import type { MnemoService } from "../../../src/core/service.js";
import { loadTokenizer } from "../../../src/text/tokens.js";
import { openAppWithChats, openTestApp, ROOT, settled } from "../../helpers.js";

const CROSS_ENCODER = path.join(ROOT, "fixtures", "models", "tiny-cross-encoder");

const chat = (id: string, title: string, createdAt: string, turns: [string, string][]) => ({
  platform: "chatgpt",
  conversation: {
    id,
    title,
    createdAt,
    messages: turns.map(([role, content], i) => ({
      id: `${id}-${i}`,
      role: role as "human" | "assistant",
      content,
      createdAt: new Date(Date.parse(createdAt) + i * 60_000).toISOString(),
    })),
  },
});

const CHATS = [
  chat("snake", "Caring for my ball python", "2024-02-10T10:00:00Z", [
    ["human", "My ball python Monty has not eaten in three weeks. Should I worry?"],
    ["assistant", "Ball pythons often fast in winter. Check the enclosure temperature: the warm side should be 31 to 33 °C."],
    ["human", "The warm side was only 26 °C. I bought a new heat mat."],
  ]),
  chat("code", "Python list comprehension help", "2024-03-05T09:00:00Z", [
    ["human", "How do I flatten a list of lists in Python?"],
    ["assistant", "Use a nested list comprehension: [x for row in rows for x in row]."],
  ]),
  chat("trip", "Kyoto in autumn", "2024-04-01T08:00:00Z", [
    ["human", "We are going to Kyoto in November to see the maple leaves."],
    ["assistant", "Tofuku-ji and Eikan-do are the best temples for autumn colours; go early to avoid crowds."],
  ]),
];

let app: App;
let service: MnemoService;

beforeAll(async () => {
  app = await openTestApp();
  app.indexer.start();
  service = await app.service();
  await service.conversations.uploadMany(CHATS);
  await settled(service);
});
afterAll(async () => app.close());

/** An app of its own with these conversations indexed, for a test that must not disturb the shared one. */
async function appWithChats(chats: Parameters<MnemoService["conversations"]["uploadMany"]>[0]): Promise<{ own: App; svc: MnemoService }> {
  const { app: own, service: svc } = await openAppWithChats(chats);
  return { own, svc };
}

describe("recall (extractive)", () => {
  it("cites every source once, counts tokens exactly, stays within maxTokens, and is deterministic", async () => {
    const tokenizer = await loadTokenizer();
    const first = await service.recall({ query: "why is my snake not eating?", maxTokens: 120 });
    const again = await service.recall({ query: "why is my snake not eating?", maxTokens: 120 });
    expect(again.content).toBe(first.content);
    expect(first.model).toBe("extractive");
    expect(first.processingTime).toMatch(/^\d+ms$/);
    expect(first.tokenCount).toBe(tokenizer.count(first.content));
    expect(first.tokenCount).toBeLessThanOrEqual(120);
    expect(first.content).toContain("ball python Monty has not eaten");
    const cited = [...first.content.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect([...new Set(cited)].sort((x, y) => x - y)).toEqual(first.sources.map((_, i) => i + 1));
    expect(first.sources[0]).toMatchObject({ conversationTitle: "Caring for my ball python", messageId: expect.stringMatching(/^snake-/) });
    for (const source of first.sources) {
      expect(source.relevanceScore).toBeGreaterThan(0);
      expect(Date.parse(source.date)).not.toBeNaN();
    }
  });

  it("a small budget still gets the best passage, cut to fit, never an empty answer", async () => {
    const tokenizer = await loadTokenizer();
    for (const maxTokens of [30, 40, 60]) {
      const small = await service.recall({ query: "why is my snake not eating?", maxTokens });
      expect(small.content, String(maxTokens)).toMatch(/\[1\]/);
      expect(small.sources.length).toBeGreaterThan(0);
      expect(tokenizer.count(small.content)).toBeLessThanOrEqual(maxTokens);
    }
    expect((await service.recall({ query: "why is my snake not eating?", maxTokens: 30 })).content).toContain("…");
    expect((await service.recall({ query: "why is my snake not eating?", maxTokens: 20 })).tokenCount).toBeLessThanOrEqual(20);
  });

  it("the platform hint shapes the formatting", async () => {
    const markdown = await service.recall({ query: "Kyoto temples", maxTokens: 200, platform: "claude" });
    expect(markdown.content).toMatch(/^\*\*Kyoto in autumn\*\*/);
    const plain = await service.recall({ query: "Kyoto temples", maxTokens: 200, platform: "typingmind" });
    expect(plain.content).not.toMatch(/\*\*/);
    expect(plain.content).toMatch(/^Kyoto in autumn \(2024-04-01\):\n(You|Assistant): /);
    expect(plain.content).not.toMatch(/^- /m); // no bullet markers in plain text
    const unhinted = await service.recall({ query: "Kyoto temples", maxTokens: 200 });
    expect(unhinted.content).toMatch(/^- (You|Assistant): /m);
  });

  it("conversation context disambiguates the query", async () => {
    const reptile = await service.recall({
      query: "python",
      maxTokens: 60,
      conversationContext: "keeping reptiles as pets, terrarium heating",
    });
    expect(reptile.sources[0]!.conversationTitle).toBe("Caring for my ball python");
    const code = await service.recall({
      query: "python",
      maxTokens: 60,
      conversationHistory: [{ content: "I am writing a script with lists and loops" }],
    });
    expect(code.sources[0]!.conversationTitle).toBe("Python list comprehension help");
  });

  it("answers several queries at once, each in its own budget, with merged sources", async () => {
    const result = await service.recall({
      queries: [
        { query: "snake heating", maxTokens: 80 },
        { query: "autumn in Kyoto", maxTokens: 80 },
      ],
    });
    expect(result.results!.map((r) => r.query)).toEqual(["snake heating", "autumn in Kyoto"]);
    for (const part of result.results!) expect(part.tokenCount).toBeLessThanOrEqual(80);
    expect(result.content).toMatch(/^snake heating:\n/);
    const keys = result.sources.map((s) => `${s.conversationId}/${s.messageId}`);
    expect(new Set(keys).size).toBe(keys.length);
    const cited = new Set([...result.content.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
    expect([...cited].sort((x, y) => x - y)).toEqual(result.sources.map((_, i) => i + 1));
  });

  it("heads each answer with its query on one line, cut: 15 queries of 4,000 characters were 60 KB of headings", async () => {
    const long = `snake heating ${"z".repeat(3_980)}`;
    const result = await service.recall({ queries: [{ query: long }, { query: "autumn\n### in Kyoto" }] });
    expect(result.content.startsWith(`${long.slice(0, 199)}…:\n`)).toBe(true);
    expect(result.content).toContain("\n\nautumn ### in Kyoto:\n");
    expect(result.content).not.toContain("z".repeat(200));
    expect(result.results!.map((r) => r.query)).toEqual([long, "autumn\n### in Kyoto"]);
  });

  it("refuses bad parameters, naming the field", async () => {
    const error = async (body: unknown) => {
      const e = await service.recall(body as never).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(AppError);
      return (e as AppError).message;
    };
    expect(await error({ query: "" })).toMatch(/^query:/);
    expect(await error({ query: "x", maxTokens: 2001 })).toMatch(/^maxTokens:/);
    expect(await error({ query: "x", maxTokens: 0 })).toMatch(/^maxTokens:/);
    expect(await error({})).toMatch(/^query: is required/);
    expect(await error({ queries: Array.from({ length: 16 }, () => ({ query: "x" })) })).toMatch(/^queries:/);
    expect(await error({ query: "x", platform: "msn" })).toMatch(/^platform:/);
  });

  it("leaves excluded conversations out of search and recall", async () => {
    const [trip] = (await service.conversations.list({ title: "Kyoto" })).items;
    await service.conversations.exclude({ ids: [trip!.id], excluded: true });
    expect((await service.search({ query: "Kyoto maple leaves" })).results.some((r) => r.conversationId === trip!.id)).toBe(false);
    expect((await service.recall({ query: "Kyoto maple leaves" })).sources.some((s) => s.conversationId === trip!.id)).toBe(false);
    await service.conversations.exclude({ ids: [trip!.id], excluded: false });
    expect((await service.search({ query: "Kyoto maple leaves" })).results[0]!.conversationId).toBe(trip!.id);
  });
});

describe("recall and search that an assistant can repeat", () => {
  const nothing = [
    "zxqv blorptangle frobnicate",
    "what did my cardiologist say about the stent?",
    "What did Priya say about the visa interview?",
  ];

  it("says plainly that the history holds nothing on a question about nothing stored, with no source", async () => {
    for (const query of nothing) {
      const result = await service.recall({ query, maxTokens: 500 });
      expect(result, query).toMatchObject({ content: "Nothing in your chat history is about this.", sources: [], model: "none" });
      expect(result.tokenCount).toBe((await loadTokenizer()).count(result.content));
      const searched = await service.search({ query });
      expect(searched, query).toMatchObject({ results: [], totalResults: 0 });
      expect(searched.unrelatedResults).toBeGreaterThan(0);
    }
    const several = await service.recall({ queries: [{ query: nothing[0]! }, { query: "why is my snake not eating?" }] });
    expect(several.results![0]).toMatchObject({ content: "Nothing in your chat history is about this.", sources: [] });
    expect(several.results![1]!.sources.length).toBeGreaterThan(0);
    expect(several.content).toMatch(/^zxqv blorptangle frobnicate:\nNothing in your chat history is about this\.\n\n/);
  });

  it("search marks what it left out, and shows it on request with scores on one scale", async () => {
    const all = await service.search({ query: nothing[1]!, includeUnrelated: true });
    expect(all.results.length).toBe(all.unrelatedResults);
    for (const hit of all.results) expect(hit).toMatchObject({ probablyUnrelated: true, score: expect.any(Number) });
    expect(Math.max(...all.results.map((hit) => hit.score))).toBeLessThan(0.5);
    // No rescaling per query: the best hit of an answered question is not 1 by construction, and scores fall.
    const answered = await service.search({ query: "heat mat for the ball python enclosure" });
    expect(answered.results[0]!.score).toBeGreaterThanOrEqual(0.5);
    const scores = answered.results.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const hit of answered.results) expect(hit.probablyUnrelated).toBe(false);
  });

  it("cites the conversation that answers first and leaves the one that shares a word out", async () => {
    const { own, svc } = await appWithChats([
      chat("goals", "Daily tasks for goal-setting", "2024-01-05T08:00:00Z", [
        ["human", "Help me plan my daily tasks so I reach my goals."],
        ["assistant", "Plan three tasks each morning, review them at night, and keep a weekly plan for bigger goals."],
      ]),
      chat("meals", "High-protein meal plan", "2024-02-05T08:00:00Z", [
        ["human", "Can you plan a high-protein meal plan for the week?"],
        ["assistant", "Here is a plan: eggs and yoghurt for breakfast, chicken and lentils for lunch, fish for dinner."],
      ]),
      chat("lisbon", "Lisbon long weekend", "2024-05-02T08:00:00Z", [
        ["human", "We're spending four days in Lisbon in May. Can you sketch an itinerary?"],
        ["assistant", "Day 1 Alfama, Day 2 Belém and pastéis de nata, Day 3 Sintra, Day 4 Bairro Alto and fado."],
        ["human", "Is tram 28 worth it?"],
        ["assistant", "Tram 28 is worth it once: board at Martim Moniz before 9:00."],
      ]),
    ]);
    const result = await svc.recall({ query: "what did we plan for Lisbon?", maxTokens: 1000 });
    expect(result.sources[0]!.conversationTitle).toBe("Lisbon long weekend");
    expect(new Set(result.sources.map((s) => s.conversationTitle))).toEqual(new Set(["Lisbon long weekend"]));
    // Within the conversation, time order; [1] is its first cited message.
    const times = result.sources.map((s) => s.date);
    expect(times).toEqual([...times].sort());
    expect(result.content.indexOf("[1]")).toBeLessThan(result.content.indexOf("[2]"));
    await own.close();
  }, 180_000);

  it("numbers sources from the most relevant conversation, not the oldest", async () => {
    const { own, svc } = await appWithChats([
      chat("old", "Balcony herbs", "2023-03-01T08:00:00Z", [["human", "The basil on the balcony needs more sun; I moved it."]]),
      chat("new", "Basil pesto and balcony basil", "2024-07-01T08:00:00Z", [
        ["human", "My balcony basil is flowering: should I pinch the flowers off before making pesto?"],
        ["assistant", "Yes, pinch the basil flowers off so the leaves stay sweet for pesto."],
      ]),
    ]);
    const result = await svc.recall({ query: "should I pinch the basil flowers before making pesto?", maxTokens: 1000 });
    expect(result.sources[0]!.conversationTitle).toBe("Basil pesto and balcony basil");
    const titles = result.sources.map((s) => s.conversationTitle);
    const older = titles.indexOf("Balcony herbs");
    if (older >= 0) expect(titles.slice(older).every((title) => title === "Balcony herbs")).toBe(true);
    await own.close();
  }, 180_000);
});

describe("search", () => {
  it("finds words of scripts written without spaces, which the text index keeps as whole runs", async () => {
    const { own, svc } = await appWithChats([
      chat("ja-cake", "日本語の練習", "2024-07-01T09:00:00Z", [
        ["human", "誰がケーキを食べましたか。"],
        ["assistant", "弟がケーキを食べました。"],
      ]),
      chat("ja-student", "自己紹介", "2024-07-02T09:00:00Z", [["human", "私は学生です。東京に住んでいます。"]]),
      chat("zh-tower", "旅行", "2024-07-03T09:00:00Z", [["human", "东京塔在哪里？"]]),
      chat("en", "Baking", "2024-07-04T09:00:00Z", [["human", "How long do I bake a sponge cake?"]]),
    ]);
    const titleOf = async (query: string) => (await svc.search({ query, limit: 3, skipRerank: true })).results[0]?.title;
    expect(await titleOf("ケーキ")).toBe("日本語の練習");
    expect(await titleOf("学生")).toBe("自己紹介");
    expect(await titleOf("东京塔")).toBe("旅行");
    expect(await titleOf("学生 です")).toBe("自己紹介"); // です alone would match every Japanese text
    const memory = await svc.memories.store({ text: "東京タワーに行った" });
    await svc.memories.store({ text: "I visited the Eiffel tower" });
    const found = await svc.memories.listV2({ query: "東京タワー", count: 1, includeIds: true });
    expect((found.memories as { id: string }[])[0]!.id).toBe(memory.memoryId);
    await own.close();
  });

  it("returns the spec's result shape with neighbouring chunks as context", async () => {
    const result = await service.search({ query: "heat mat temperature", limit: 2, contextChunks: 2, includeUnrelated: true });
    expect(result).toMatchObject({ query: "heat mat temperature", provider: "all", totalResults: 2 });
    expect(result.results[0]).toMatchObject({ title: "Caring for my ball python", sender: "human", context: [] });
    expect(result.results[0]!.text).toContain("heat mat");
    expect((await service.search({ query: "flatten lists", provider: "chatgpt" })).results[0]!.title).toBe(
      "Python list comprehension help",
    );
  });

  it("ranks rows the text index does not cover yet by their score, even at limit 1", async () => {
    const filler = "We compared the glue and the drying time once more before moving on to the next part of the build.";
    const turns = Array.from({ length: 24 }, (_, i): [string, string] => [
      i % 2 ? "assistant" : "human",
      `${i === 23 ? "The varnish dried overnight in the garage." : ""} ${filler} ${filler}`,
    ]);
    const { app: own, service: svc } = await openAppWithChats([chat("varnish", "Varnish", "2024-05-01T08:00:00Z", turns)]);
    const chunks = await (await lancedb.connect(path.join(own.config.paths.dataDir, "db"))).openTable("chunks");
    expect((await chunks.indexStats("text_idx"))!.numUnindexedRows).toBeGreaterThan(3); // what LanceDB cut in storage order
    const [hit] = (await svc.search({ query: "varnish dried overnight garage", limit: 1, contextChunks: 0 })).results;
    expect(hit!.text).toContain("The varnish dried overnight");
    await own.close();
  });

  it("a hit's sender and timestamp are those of its message that matches the query best", async () => {
    const [hit] = (await service.search({ query: "ball pythons fast in winter", limit: 1 })).results;
    expect(hit!.text).toContain("Monty has not eaten"); // the chunk starts with the human's question
    expect(hit).toMatchObject({ sender: "assistant", timestamp: "2024-02-10T10:01:00.000Z" });
    const [later] = (await service.search({ query: "bought a new heat mat", limit: 1 })).results;
    expect(later).toMatchObject({ sender: "human", timestamp: "2024-02-10T10:02:00.000Z" });
    expect(later!.parts.map((part) => [part.sender, part.timestamp])).toEqual([
      ["human", "2024-02-10T10:00:00.000Z"],
      ["assistant", "2024-02-10T10:01:00.000Z"],
      ["human", "2024-02-10T10:02:00.000Z"],
    ]);
  });

  it("cites a long paragraph repeated with other numbers once, where a short one that differs in its numbers is a fact of its own", async () => {
    const plan = (step: number) =>
      `Step ${step} of the rye starter plan: feed it ${step * 10} g of whole rye flour and the same weight of water, keep it at 24 °C near the radiator in the kitchen, and discard half of it before the next feeding so that it stays active.`;
    const turns: [string, string][] = [
      ["human", "What next with the rye starter?"],
      ["assistant", plan(1)],
      ["human", "And after that, for the rye starter?"],
      ["assistant", plan(2)],
      ["human", "The rye starter feeding is at 9:15 each morning."],
      ["human", "The rye starter feeding is at 10:40 on Sundays."],
    ];
    const { own, svc } = await appWithChats([chat("rye", "Rye starter", "2024-05-01T08:00:00Z", turns)]);
    const { content, sources } = await svc.recall({ query: "rye starter plan feeding", maxTokens: 2000 });
    expect(plan(1).length).toBeGreaterThanOrEqual(200);
    expect(content.match(/of the rye starter plan: feed it/g)).toHaveLength(1);
    expect(content).toContain("9:15");
    expect(content).toContain("10:40");
    expect(new Set(sources.map((source) => source.messageId)).size).toBe(sources.length);
    await own.close();
  });

  it("a hit that a better one shows as context is left out, and the limit is filled from the hits after it", async () => {
    const filler = "We compared the glue, the clamps, the sanding grit and the drying time once more before the next part of the build.";
    const said = (i: number) =>
      i === 3 || i === 6 ? "The walnut frame and the walnut frame joints. " : i === 21 ? "Oil the walnut frame. " : "";
    const turns = Array.from({ length: 24 }, (_, i): [string, string] => [i % 2 ? "assistant" : "human", `${said(i)}${filler} ${filler}`]);
    const { own, svc } = await appWithChats([chat("frame", "Workshop", "2024-05-01T08:00:00Z", turns)]);
    const { results } = await svc.search({ query: "walnut frame", limit: 2, contextChunks: 1 });
    const shown = results.flatMap((hit) => [...hit.parts, ...hit.context].map((part) => part.text));
    expect(results).toHaveLength(2);
    expect(shown.filter((text) => text.includes("walnut frame"))).toHaveLength(3); // each once
    await own.close();
  });

  it("gives a hit the chunks around it in its own conversation, in order", async () => {
    const filler =
      "We compared the glue, the clamps, the sanding grit and the drying time once more before moving on to the next part of the build.";
    const turns = Array.from({ length: 14 }, (_, i): [string, string] => [
      i % 2 === 0 ? "human" : "assistant",
      `Step ${i}. ${i === 7 ? "The zeppelin hangar model needs a walnut frame." : ""}${i === 13 ? "The varnish dried overnight in the garage." : ""} ${filler} ${filler}`,
    ]);
    await service.conversations.upload(chat("build", "Building a model hangar", "2024-05-01T08:00:00Z", turns));
    await settled(service);
    const steps = (text: string) => [...text.matchAll(/Step (\d+)\./g)].map((m) => Number(m[1]));
    const [hit] = (await service.search({ query: "zeppelin hangar walnut frame", limit: 1, contextChunks: 2 })).results;
    expect(hit!.title).toBe("Building a model hangar");
    expect(hit!.text).toContain("zeppelin hangar");
    const before = hit!.context.filter((near) => near.position === "before");
    const after = hit!.context.filter((near) => near.position === "after");
    expect([before.length > 0, after.length > 0]).toEqual([true, true]);
    expect(hit!.context.map((near) => near.position)).toEqual([...before, ...after].map((near) => near.position));
    expect(Math.max(...before.flatMap((near) => steps(near.text)))).toBeLessThan(Math.min(...steps(hit!.text)));
    expect(Math.min(...after.flatMap((near) => steps(near.text)))).toBeGreaterThan(Math.max(...steps(hit!.text)));

    // Where one side runs out, the other makes up for it.
    const hits = (await service.search({ query: "varnish dried overnight garage", limit: 5, contextChunks: 3 })).results;
    const end = hits.find((hit) => steps(hit.text).includes(13));
    expect(end!.context.every((near) => near.position === "before")).toBe(true);
    const order = end!.context.map((near) => Math.min(...steps(near.text)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("does not repeat a hit that a better hit already shows as its context", async () => {
    const filler = "We checked the tide tables, the wind and the forecast again before deciding anything at all.";
    const turns = Array.from({ length: 10 }, (_, i): [string, string] => [
      i % 2 === 0 ? "human" : "assistant",
      `Leg ${i}. ${i === 4 || i === 5 ? "The catamaran mooring in Porto Santo costs forty euros a night." : ""} ${filler.repeat(8)}`,
    ]);
    await service.conversations.upload(chat("sail", "Sailing to Madeira", "2024-06-01T08:00:00Z", turns));
    await settled(service);
    const search = (contextChunks: number) => service.search({ query: "catamaran mooring Porto Santo", limit: 5, contextChunks });
    const legs = (text: string) => [...text.matchAll(/Leg (\d+)\./g)].map((m) => Number(m[1]));
    // Without context both matching chunks are hits; with it, the second is the first's context.
    const alone = (await search(0)).results.filter((hit) => hit.title === "Sailing to Madeira");
    expect(alone.length).toBeGreaterThanOrEqual(2);
    const shown = (await search(2)).results.filter((hit) => hit.title === "Sailing to Madeira");
    expect(shown).toHaveLength(1);
    const everything = [shown[0]!.text, ...shown[0]!.context.map((near) => near.text)].flatMap(legs);
    expect(everything).toEqual(expect.arrayContaining([4, 5]));
  });

  it("says who said each part of a passage and its context, with the part's own time", async () => {
    // Short turns: a chunk holds several of them, so a context chunk holds both speakers.
    const turns = Array.from({ length: 30 }, (_, i): [string, string] => [
      i % 2 === 0 ? "human" : "assistant",
      `Turn ${i}. ${i === 15 ? "The orchid greenhouse humidity sensor reads ninety percent." : "We talked about the weather and the garden."} ${"More small talk about nothing in particular. ".repeat(3)}`,
    ]);
    const start = "2024-06-01T08:00:00Z";
    const { own, svc } = await appWithChats([chat("speakers", "Who said what", start, turns)]);
    const [hit] = (await svc.search({ query: "orchid greenhouse humidity sensor", limit: 1, contextChunks: 2 })).results;
    const turnOf = (text: string) => Number(/Turn (\d+)\./.exec(text)![1]);
    const expected = (n: number) => ({
      sender: n % 2 === 0 ? "human" : "assistant",
      timestamp: new Date(Date.parse(start) + n * 60_000).toISOString(),
    });
    // The hit: its sender and time are the matching message's; every part names its own.
    expect(hit).toMatchObject(expected(15));
    expect(hit!.parts.length).toBeGreaterThan(1);
    expect(hit!.parts.map((part) => part.text).join("\n")).toBe(hit!.text);
    for (const part of hit!.parts) expect(part).toMatchObject(expected(turnOf(part.text)));
    // The context: one item per message, each with its own sender and time, both speakers among them.
    expect(hit!.context.length).toBeGreaterThan(2);
    for (const near of hit!.context) {
      expect(near).toMatchObject(expected(turnOf(near.text)));
      expect(near.text.match(/Turn \d+\./g)).toHaveLength(1);
    }
    expect(new Set(hit!.context.map((near) => near.sender))).toEqual(new Set(["human", "assistant"]));
    // Recall's sources name the writer of each cited message.
    const recalled = await svc.recall({ query: "orchid greenhouse humidity sensor", maxTokens: 300 });
    expect(recalled.sources[0]).toMatchObject({ messageId: "speakers-15", sender: "assistant" });
    await own.close();
  });
});

describe("recall with an OpenAI-compatible LLM", () => {
  let llm: http.Server;
  let llmUrl: string;
  let answer = "";
  let requests: { messages: { role: string; content: string }[] }[] = [];
  /** A request whose body contains this gets a 503. */
  let failFor: string | undefined;
  let own: App;

  beforeAll(async () => {
    llm = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        requests.push(JSON.parse(body));
        res.setHeader("content-type", "application/json");
        if (failFor && body.includes(failFor)) {
          res.statusCode = 503;
          return res.end(JSON.stringify({ error: { message: "overloaded" } }));
        }
        res.end(
          JSON.stringify({
            id: "x",
            object: "chat.completion",
            model: "fake-model-1",
            choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => llm.listen(0, "127.0.0.1", resolve));
    llmUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
    // One store with these settings for the tests that only recall from it: each store of its own
    // indexed CHATS again (~1 s of CPU).
    own = await appWithLlm(llmUrl);
  });
  afterAll(async () => {
    await own?.close();
    await new Promise<void>((resolve) => llm.close(() => resolve()));
  });

  async function appWithLlm(baseUrl: string): Promise<App> {
    const settings = { synthesizer: "openai", llm: { baseUrl, model: "fake-model-1", timeoutMs: 2000, retries: 0 } };
    return (await openAppWithChats(CHATS, settings)).app;
  }

  it("keeps the model's valid citations, renumbered onto the sources, and drops invented ones", async () => {
    requests = [];
    answer = "Monty the ball python stopped eating [1][9]. The warm side was too cold [3, 1] and you bought a heat mat [2].";
    const result = await (await own.service()).recall({ query: "why is my snake not eating?", maxTokens: 300 });
    expect(result.model).toBe("openai:fake-model-1");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.messages[1]!.content).toContain("[1] (Caring for my ball python");
    expect(result.content).not.toContain("[9]");
    const cited = [...result.content.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited).toEqual([1, 2, 1, 3]);
    expect(result.sources).toHaveLength(3);
  });

  it("passes its passages numbered from the most relevant conversation, and is not called when nothing is relevant", async () => {
    requests = [];
    answer = "Tofuku-ji [1].";
    await (await own.service()).recall({ query: "which temples for autumn colours in Kyoto?", maxTokens: 300 });
    const listed = requests[0]!.messages[1]!.content;
    expect(listed).toMatch(/^Passages:\n\[1\] \(Kyoto in autumn, /);
    requests = [];
    const none = await (await own.service()).recall({ query: "what did my cardiologist say about the stent?", maxTokens: 300 });
    expect(requests).toHaveLength(0);
    expect(none).toMatchObject({ content: "Nothing in your chat history is about this.", sources: [], model: "none" });
  });

  it("cuts a long answer without a sentence end between words, and replaces one that cites nothing it was given", async () => {
    answer = `Monty stopped eating [1] because ${"the enclosure was cold and ".repeat(400)}so on [2].`;
    const long = await (await own.service()).recall({ query: "why is my snake not eating?", maxTokens: 50 });
    expect(long.model).toBe("openai:fake-model-1");
    expect(long.content).toMatch(/^Monty stopped eating \[1\] because the enclosure .* …$/);
    expect(long.tokenCount).toBeLessThanOrEqual(50);
    expect(long.sources).toHaveLength(1);

    answer = "Your snake is fine [7].";
    const uncited = await (await own.service()).recall({ query: "why is my snake not eating?", maxTokens: 200 });
    expect(uncited.model).toBe("extractive (fallback: openai:fake-model-1 cited none of the passages within 200 tokens)");
    expect(uncited.content).toContain("Monty");
    expect(uncited.sources.length).toBeGreaterThan(0);
  });

  it("falls back to extractive when the endpoint is unreachable, and says so in model", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await appWithLlm(`http://127.0.0.1:${port}/v1`);
    const result = await (await unreachable.service()).recall({ query: "Kyoto temples", maxTokens: 200 });
    expect(result.model).toMatch(
      /^extractive \(fallback: openai:fake-model-1 failed: Cannot reach the LLM endpoint at http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
    expect(result.content).toContain("Tofuku-ji");
    await unreachable.close();
  });

  it("says in model when one of several queries fell back, and which one in its result", async () => {
    answer = "It is about [1].";
    failFor = "Kyoto temples";
    const result = await (await own.service()).recall({
      queries: [{ query: "why is my snake not eating?" }, { query: "Kyoto temples" }],
      maxTokens: 200,
    });
    failFor = undefined;
    expect(result.results!.map((r) => r.model)).toEqual([
      "openai:fake-model-1",
      expect.stringMatching(/^extractive \(fallback: openai:fake-model-1 failed: /),
    ]);
    expect(result.model).toMatch(/^openai:fake-model-1; extractive \(fallback: openai:fake-model-1 failed: /);
    expect(result.results![1]!.content).toContain("Tofuku-ji");
  });
});

describe("recall of text with brackets in it", () => {
  it("keeps a message's code and a title's brackets as they are, and cites only what it adds", async () => {
    const { own, svc } = await appWithChats([
      chat("retro", "Sprint [2] retro", "2024-05-02T10:00:00Z", [
        ["human", "How do I take the first two wombat weights of a list in Python?"],
        ["assistant", "Slice it: with wombats = [1, 2, 3], wombats[0:2] gives [1, 2] and wombats[0] gives 1."],
      ]),
    ]);
    const result = await svc.recall({ query: "first two wombat weights python list", maxTokens: 300 });
    expect(result.content).toContain("Sprint [2] retro");
    expect(result.content).toContain("wombat weights of a list in Python? [1]");
    expect(result.content).toContain("Slice it: with wombats = [1, 2, 3], wombats[0:2] gives [1, 2] and wombats[0] gives 1. [2]");
    expect(result.sources.map((s) => s.messageId)).toEqual(["retro-0", "retro-1"]);
    await own.close();
  });

  it("keeps two conversations of one title and day apart, leaves out messages without words, and joins a long message's pieces", async () => {
    const filler = (i: number) =>
      `Paragraph ${i} is about the garden, the weather and the neighbours' plans for the summer fair this year.`;
    const long = Array.from({ length: 12 }, (_, i) =>
      i === 0 || i === 9 ? `In paragraph ${i} the mongoose ate a cobra by the shed.` : filler(i),
    ).join("\n\n");
    const { own, svc } = await appWithChats([
      chat("notes-a", "Daily notes", "2024-06-01T09:00:00Z", [
        ["human", "Booked the zeppelin ride for Saturday."],
        ["assistant", "👍"],
      ]),
      chat("notes-b", "Daily notes", "2024-06-01T15:00:00Z", [["human", "The zeppelin museum tickets cost 12 euros."]]),
      chat("mongoose", "Garden diary", "2024-06-02T09:00:00Z", [["human", long]]),
    ]);

    const zeppelin = await svc.recall({ query: "zeppelin ride museum", maxTokens: 300 });
    expect(zeppelin.content.match(/Daily notes \(2024-06-01\)/g)).toHaveLength(2);
    expect(zeppelin.content).not.toContain("👍");
    expect(zeppelin.sources.map((s) => s.messageId)).not.toContain("notes-a-1");

    const cobra = await svc.recall({ query: "when did the mongoose eat a cobra", maxTokens: 400 });
    const ids = cobra.sources.map((s) => s.messageId);
    expect(ids.filter((id) => id === "mongoose-0")).toHaveLength(1);
    expect(cobra.content).toContain("In paragraph 0 the mongoose ate a cobra");
    expect(cobra.content).toContain("In paragraph 9 the mongoose ate a cobra");
    await own.close();
  });

  it("puts a prompt before its answer when they share a time (Gemini records do)", async () => {
    const at = "2025-03-08T08:15:44.900Z";
    const { own, svc } = await appWithChats([
      {
        platform: "gemini",
        conversation: {
          id: "quokka",
          title: "Rottnest",
          createdAt: at,
          messages: [
            { id: "q-prompt", role: "human", content: "Where do quokkas live?", createdAt: at },
            { id: "q-response", role: "assistant", content: "Quokkas live on Rottnest Island, off Perth.", createdAt: at },
          ],
        },
      },
    ]);
    const result = await svc.recall({ query: "Rottnest Island quokkas live", maxTokens: 300 });
    expect(result.sources.map((s) => s.messageId)).toEqual(["q-prompt", "q-response"]);
    await own.close();
  });
});

describe("reranking", () => {
  it("reorders with a cross-encoder unless skipRerank, each hit keeping its score on the one scale", async () => {
    const { app: own, service: svc } = await openAppWithChats(CHATS, { reranker: `cross-encoder:${CROSS_ENCODER}` });
    const query = { query: "maple leaves Kyoto November", limit: 3, includeUnrelated: true };
    const reranked = await svc.search(query);
    const fused = await svc.search({ ...query, skipRerank: true });
    expect(reranked.results[0]!.title).toBe("Kyoto in autumn");
    const scoreOf = (results: typeof fused.results) => new Map(results.map((r) => [r.text, r.score]));
    expect(scoreOf(reranked.results)).toEqual(scoreOf(fused.results));
    for (const r of reranked.results) expect(r.score).toBeGreaterThan(0);
    await own.close();
  }, 180_000);
});
