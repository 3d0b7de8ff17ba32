// Gemini Takeout in other languages and the 2026 record shapes (fixtures/exports/gemini-ja,
// gemini-locales, gemini-2026), checked against what the raw records say, read here on their own.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

interface RawRecord {
  header: string;
  title: string;
  time: string;
  safeHtmlItem?: { html: string }[];
}
const records = (path: string): RawRecord[] => JSON.parse(readFileSync(path, "utf8"));
const humans = (conversations: Awaited<ReturnType<typeof collect>>) =>
  conversations.flatMap((c) => c.conversation.messages.filter((m) => m.role === "human").map((m) => m.content));

const SKIPPED = {
  otherProduct: "activity of other Google products",
  undated: "Gemini records without a readable time",
  notAPrompt: "Gemini activity that is neither a prompt nor an answer (feedback, settings, an empty Canvas, a Gem used, a draft chosen)",
};

describe("a Japanese Takeout", () => {
  const folder = join(fixtures, "gemini-ja");
  const activity = join(folder, "Takeout", "マイ アクティビティ", "Gemini アプリ", "マイアクティビティ.json");

  it("is found inside its localised folders, its prompts without the verb, and the Search file said to be left out", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    const prompts = records(activity)
      .filter((r) => r.header === "Gemini アプリ")
      .reverse() // Takeout writes newest first
      .map((r) => r.title.replace(/^送信したメッセージ: /, ""));
    expect(humans(conversations).map((text) => text.split("\n")[0])).toEqual(prompts);
    expect(conversations.map((c) => c.conversation.id)).toEqual([
      "gemini-app-3b9d0c7e2f1a4856",
      "gemini-day-2026-03-05",
      "gemini-day-2026-03-07",
    ]);
    expect(skipped).toEqual({ "files of another Google product's activity, not read": 1 });
  });

  it("the zip, named in Japanese throughout, gives what the folder gives", async () => {
    const zip = join(fixtures, "gemini-ja-takeout.zip");
    expect((await openExport(zip)).format).toBe("gemini");
    expect(await collect(zip)).toEqual(await collect(folder));
  });
});

describe("a Korean Takeout", () => {
  it("keeps prompts written without a verb whole, and strips 'branched' (분기된) from a turn a branch shares", async () => {
    // As mposition/Tomverse measured a real one: header "Gemini 앱", a prompt's title is the prompt
    // alone, and a turn from before a branch point opens with "분기된 " and links to both chats.
    const record = (time: string, title: string, answer: string, chats: string[]) => ({
      header: "Gemini 앱",
      title,
      time,
      products: ["Gemini 앱"],
      details: chats.map((id) => ({ name: `https://gemini.google.com/app/${id}`, url: `https://gemini.google.com/app/${id}` })),
      safeHtmlItem: [{ html: `<p>${answer}</p>` }],
    });
    const dir = mkdtempSync(join(tmpdir(), "mnemo-gemini-ko-"));
    try {
      const path = join(dir, "내활동.json");
      writeFileSync(
        path,
        JSON.stringify([
          record("2026-03-02T10:05:00Z", "표로 비교해 줘", "A가 더 단순합니다.", ["aaaa1111bbbb2222"]),
          record("2026-03-02T10:00:00Z", "분기된 주간 보고서 형식을 정하고 싶어", "보관 위치부터 정하세요.", [
            "aaaa1111bbbb2222",
            "cccc3333dddd4444",
          ]),
        ]),
      );
      const conversations = await collect(path);
      expect(conversations.map((c) => [c.conversation.id, humans([c])])).toEqual([
        ["gemini-app-aaaa1111bbbb2222", ["주간 보고서 형식을 정하고 싶어", "표로 비교해 줘"]],
        ["gemini-app-cccc3333dddd4444", ["주간 보고서 형식을 정하고 싶어"]],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Takeout files in eight languages", () => {
  // The verbs of de, el and es were seen in real exports or read by other parsers; those of fr, it,
  // pt, ko and zh are placeholders in the fixtures (fixtures/exports/README.md), which the importer
  // does not know: it learns them from the file.
  const VERBS: Record<string, string> = {
    de: "Eingegebener Prompt: ",
    el: "Υποβλήθηκε το ερώτημα ",
    es: "Has dicho: ",
    fr: "Vous avez demandé : ",
    it: "Hai chiesto: ",
    pt: "Você perguntou: ",
    ko: "보낸 메시지: ",
    zh: "已提示",
  };
  for (const [lang, verb] of Object.entries(VERBS)) {
    it(`${lang}: every prompt, without its verb, and activity that is not a prompt counted`, async () => {
      const path = join(fixtures, "gemini-locales", `${lang}.json`);
      const raw = records(path).reverse();
      const prompts = raw.filter((r) => r.title.startsWith(verb)).map((r) => r.title.slice(verb.length));
      const { conversations, skipped } = await collectWithSkips(path);
      expect(humans(conversations)).toEqual(prompts);
      expect(conversations.flatMap((c) => c.conversation.messages).filter((m) => m.role === "assistant")).toHaveLength(
        raw.filter((r) => r.safeHtmlItem).length,
      );
      const others = raw.length - prompts.length;
      expect(skipped).toEqual(others === 0 ? {} : { [SKIPPED.notAPrompt]: others });
    });
  }
});

describe("Gemini records of 2026", () => {
  const path = join(fixtures, "gemini-2026", "My Activity.json");

  it("imports every prompt and says how many records it left out, and why", async () => {
    const raw = records(path);
    const { conversations, skipped } = await collectWithSkips(path);
    expect(skipped).toEqual({
      [SKIPPED.otherProduct]: raw.filter((r) => !/gemini|bard/i.test(r.header)).length,
      [SKIPPED.undated]: raw.filter((r) => r.time === "").length,
      // A Canvas with its text is kept (below), not counted as left out.
      [SKIPPED.notAPrompt]: raw.filter((r) => /^(Used|Gave|Selected) /.test(r.title)).length,
    });
    expect(conversations.map((c) => c.conversation.id)).toEqual([
      "gemini-day-2023-06-01",
      "gemini-app-a1b2c3d4e5f60718",
      "gemini-app-0f9e8d7c6b5a4321",
      "gemini-day-2026-01-12",
      "gemini-app-9a9a9a9a3b3b3b3b",
      "gemini-app-5c5c5c5c1d1d1d1d",
      "gemini-day-2026-01-16",
      "gemini-day-2026-01-17",
    ]);
  });

  it("keeps /app/c/ links apart, strips 'Asked: ', and keeps files given as objects", async () => {
    const byId = new Map((await collect(path)).map((c) => [c.conversation.id, c.conversation.messages.map((m) => m.content)]));
    expect(byId.get("gemini-app-a1b2c3d4e5f60718")).toHaveLength(4); // two records of one chat
    expect(byId.get("gemini-day-2023-06-01")).toEqual(["What's the capital of Australia?", "Canberra."]);
    expect(byId.get("gemini-day-2026-01-12")?.[0]).toBe("[file: IMG_2041.jpeg]");
    expect(byId.get("gemini-day-2026-01-17")?.[0]).toBe(
      "Which of these two photos is sharper?\n[file: photo-a-3f2e.jpg]\n[file: photo-b-9c1d.jpg]",
    );
  });

  it("reads an answer written as several HTML items whole, in order; nothing is a draft unless Takeout says so", async () => {
    const { conversations, skipped } = await collectWithSkips(path);
    const byId = new Map(conversations.map((c) => [c.conversation.id, c.conversation.messages.map((m) => m.content)]));
    expect(byId.get("gemini-app-5c5c5c5c1d1d1d1d")).toEqual([
      "What's a good stretch for tight calves?",
      "Wall calf stretch: 30 seconds each side, knee straight.\n\nThen a downward dog, pedalling the heels, for a minute.",
    ]);
    expect(byId.get("gemini-app-9a9a9a9a3b3b3b3b")).toEqual([
      "Give me a name for a hiking club",
      "Three that fit a club:\n\n- Trail Blazers of the North\n- The Summit Seekers\n\nBoots and Views is the friendliest of them.",
    ]);
    expect(Object.keys(skipped).filter((reason) => /draft/.test(reason) && reason !== SKIPPED.notAPrompt)).toEqual([]);
  });

  it("keeps the text of a Canvas Gemini wrote as its document, named, with no words of the user's", async () => {
    // Takeout writes a Canvas as its own record, "Created Gemini Canvas titled …", its text in
    // `subtitles` (public converters of real exports read it there, and from the page's lines before
    // the time); one real export of 2,061 records had 68 of them.
    const canvas = (await collect(path)).find((c) => c.conversation.id === "gemini-day-2026-01-16")!.conversation;
    expect(canvas.title).toBe("Trip budget");
    expect(canvas.messages.map((m) => [m.role, m.content])).toEqual([
      ["assistant", "[document: Trip budget]\nFlights 240 €, hotel 3 nights 330 €, food 150 €."],
    ]);
  });

  it("does not take a Search record for Gemini's because its words or link mention gemini", async () => {
    const texts = (await collect(path)).flatMap((c) => c.conversation.messages.map((m) => m.content)).join("\n");
    expect(texts).not.toContain("release date");
  });
});
