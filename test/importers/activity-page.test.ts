import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { activityPageRecords } from "../../src/importers/activity-page/records.js";
import { pageRecord } from "../../src/importers/activity-page/cell.js";
import { ByteTally, type ByteSource } from "../../src/importers/source.js";
import { openExport } from "../../src/importers/index.js";
import type { AppError } from "../../src/shared/errors.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const page = join(fixtures, "gemini-html/Takeout/My Activity/Gemini Apps/MyActivity.html");

/** One record cell as Takeout writes it. */
function cell(body: string, header = "Gemini Apps", caption = "<b>Products:</b><br>&emsp;Gemini Apps<br>"): string {
  return (
    '<div class="outer-cell mdl-cell mdl-cell--12-col mdl-shadow--2dp"><div class="mdl-grid">' +
    `<div class="header-cell mdl-cell mdl-cell--12-col"><p class="mdl-typography--title">${header}<br></p></div>` +
    `<div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1">${body}</div>` +
    '<div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1 mdl-typography--text-right"></div>' +
    `<div class="content-cell mdl-cell mdl-cell--12-col mdl-typography--caption">${caption}</div></div></div>`
  );
}

function pageOf(cells: string[]): string {
  return `<html><head><meta charset="UTF-8"><title>My Activity</title><style>.outer-cell{margin:8px}</style></head><body><div class="mdl-grid">${cells.join("")}</div></body></html>`;
}

/** The page's bytes as a source read in chunks of `size` bytes, so records are cut across chunks. */
function sourceOf(bytes: Buffer, size: number): ByteSource {
  const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
  return {
    label: "MyActivity.html",
    path: "MyActivity.html",
    size: bytes.length,
    mtime: new Date(),
    open: async () => Readable.from(chunks),
  };
}

async function recordsOf(source: ByteSource): Promise<{ value: unknown; repair: unknown }[]> {
  const out: { value: unknown; repair: unknown }[] = [];
  for await (const { value, repair } of activityPageRecords(source, new ByteTally())) out.push({ value, repair });
  return out;
}

describe("a record of Takeout's My Activity page (HTML)", () => {
  it("is read into the fields the same record has in Takeout's JSON", () => {
    const record = pageRecord(
      cell(
        'Prompted&nbsp;What plant is this?<br>Attached 1 file.<br>&emsp;-&emsp;<a href="IMG_0042%20(1).jpg">IMG_0042 (1).jpg</a><br>' +
          "Nov 26, 2024, 8:15:03\u202fPM PST<br><p>A <em>Monstera</em> &amp; more.</p><ul><li>Water weekly</li></ul>",
        "Gemini Apps",
        '<b>Products:</b><br>&emsp;Gemini Apps<br><b>Details:</b><br>&emsp;<a href="https://gemini.google.com/app/5f2c9a7e1b3d4a60">Continue conversation</a><br><b>Why is this here?</b><br>&emsp;Saved because of&nbsp;Gemini Apps Activity.',
      ),
    );
    expect(record).toEqual({
      header: "Gemini Apps",
      title: "Prompted What plant is this?",
      subtitles: [{ name: "Attached 1 file." }, { name: "- IMG_0042 (1).jpg", url: "IMG_0042%20(1).jpg" }],
      attachedFiles: ["IMG_0042 (1).jpg"],
      time: "2024-11-27T04:15:03.000Z",
      safeHtmlItem: [{ html: "<p>A <em>Monstera</em> &amp; more.</p><ul><li>Water weekly</li></ul>" }],
      products: ["Gemini Apps"],
      details: [
        { name: "Continue conversation", url: "https://gemini.google.com/app/5f2c9a7e1b3d4a60" },
        { name: "Saved because of Gemini Apps Activity." },
      ],
    });
  });

  it("keeps a prompt's lines, a title's link, and an answer that follows the time without a <br>", () => {
    const record = pageRecord(cell("Prompted&nbsp;first line<br>second line<br>10.03.2025, 09:30:00 MEZ<p>Antwort</p>"));
    expect(record).toMatchObject({
      title: "Prompted first line\nsecond line",
      time: "2025-03-10T08:30:00.000Z",
      safeHtmlItem: [{ html: "<p>Antwort</p>" }],
    });
    const search = pageRecord(
      cell('Searched for&nbsp;<a href="https://www.google.com/search?q=x">x</a><br>Jan 25, 2019, 8:23:48 AM GMT<br>', "Search"),
    );
    expect(search).toMatchObject({
      header: "Search",
      title: "Searched for x",
      titleUrl: "https://www.google.com/search?q=x",
      time: "2019-01-25T08:23:48.000Z",
    });
  });

  it("has no time when no line reads as one, so the importer counts it undated", () => {
    const record = pageRecord(cell("Prompted&nbsp;meet at 10:30?<br>sometime<br><p>ok</p>"));
    expect(record).toMatchObject({ header: "Gemini Apps", title: "Prompted meet at 10:30?" });
    expect(record.time).toBeUndefined();
  });

  it("with a time line run on for 1 MB is read at once (the zone's pattern backtracked over it for minutes)", () => {
    const record = pageRecord(
      cell(`Prompted&nbsp;when is the tide?<br>Jul 3, 2024, 9:15:20\u202fA${"x".repeat(1_000_000)}M PDT<br><p>at noon</p>`),
    );
    expect(record).toMatchObject({ header: "Gemini Apps", title: "Prompted when is the tide?" });
    expect(record.time).toBeUndefined();
  });
});

describe("the records of a page", () => {
  it("are the same however the bytes arrive, and words of an answer that name the cell's class do not cut a record", async () => {
    const tricky = cell('Prompted&nbsp;html?<br>Nov 27, 2024, 10:00:00 AM PST<br><p>Write &lt;div class="outer-cell"&gt; like this.</p>');
    const bytes = Buffer.from(
      pageOf([
        tricky,
        ...Array.from({ length: 40 }, (_, i) =>
          cell(`Prompted&nbsp;question ${i}<br>Nov 27, 2024, 9:00:${String(i).padStart(2, "0")} AM PST<br><p>answer ${i}</p>`),
        ),
      ]),
    );
    const whole = await recordsOf(sourceOf(bytes, bytes.length));
    expect(whole).toHaveLength(41);
    expect(whole[0]!.value).toMatchObject({ safeHtmlItem: [{ html: "<p>Write &lt;div class=&quot;outer-cell&quot;&gt; like this.</p>" }] });
    for (const size of [1, 7, 100, 4096]) expect(await recordsOf(sourceOf(bytes, size))).toEqual(whole);
  });

  it("are found past a stylesheet longer than the first look at a file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mnemo-page-"));
    try {
      const path = join(dir, "MyActivity.html");
      const style = `.mdl-cell{margin:8px}${".x{color:red}".repeat(30_000)}`;
      await writeFile(
        path,
        pageOf([cell("Prompted&nbsp;hello<br>Nov 27, 2024, 10:00:00 AM PST<br><p>hi</p>")]).replace("<style>", `<style>${style}`),
      );
      const [conversation] = await collect(path);
      expect(conversation?.conversation.messages.map((message) => message.content)).toEqual(["hello", "hi"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a record nested past the stack's depth costs itself alone, reported", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mnemo-page-"));
    try {
      const path = join(dir, "MyActivity.html");
      const deep = cell(`Prompted&nbsp;deep<br>Nov 27, 2024, 10:00:00 AM PST<br>${"<div>".repeat(10_000)}x`);
      const fine = (i: number) => cell(`Prompted&nbsp;fine ${i}<br>Nov 27, 2024, 9:0${i}:00 AM PST<br><p>ok</p>`);
      await writeFile(path, pageOf([fine(1), deep, fine(2)]));
      const problems: AppError[] = [];
      const reader = await openExport(path, { onUnreadable: (problem) => problems.push(problem) });
      const prompts: string[] = [];
      for await (const { conversation } of reader.conversations())
        prompts.push(...conversation.messages.filter((m) => m.role === "human").map((m) => m.content));
      expect(prompts).toEqual(["fine 1", "fine 2"]);
      expect(problems.map((problem) => problem.message)).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("repair bytes that are not UTF-8 within their record and say so", async () => {
    const text = Buffer.from(pageOf([cell("Prompted&nbsp;caf@<br>Nov 27, 2024, 10:00:00 AM PST<br><p>ok</p>")]));
    const at = text.indexOf("@");
    const bytes = Buffer.concat([text.subarray(0, at), Buffer.from([0xe9]), text.subarray(at + 1)]);
    const [record] = await recordsOf(sourceOf(bytes, 64));
    expect(record!.value).toMatchObject({ title: "Prompted caf\uFFFD", time: "2024-11-27T18:00:00.000Z" });
    expect(record!.repair).toMatchObject({ fields: ["title"], count: 1 });
  });
});

describe("Gemini's My Activity page imported", () => {
  it("gives the conversations its JSON would: by the conversation linked, else by pause, with files named", async () => {
    const { conversations, skipped } = await collectWithSkips(page);
    expect(
      conversations.map(({ conversation }) => [conversation.id, conversation.title, conversation.createdAt, conversation.messages.length]),
    ).toEqual([
      ["gemini-app-5f2c9a7e1b3d4a60", "What is the difference between a list and a tuple in Python?", "2024-07-03T16:15:00.000Z", 4],
      ["gemini-day-2024-11-27", "What plant is this?", "2024-11-27T04:15:03.000Z", 2],
      ["gemini-day-2024-11-27-2", "How much water for a 70% hydration pizza dough with 500 g of flour?", "2024-11-27T17:58:40.000Z", 4],
    ]);
    const [python, plant, pizza] = conversations.map(({ conversation }) => conversation.messages.map((message) => message.content));
    expect(python![1]).toBe("A list can change; a tuple cannot:\n\npoint = (1, 2)\npoint[0] = 3  # TypeError");
    expect(plant![0]).toBe("What plant is this?\n[file: IMG_0042 (1).jpg]");
    expect(pizza![1]).toBe("350 g of water (500 × 0.70). For the rest:\n\n- 10 g of salt\n- 3 g of dry yeast");
    expect(skipped).toEqual({
      "Gemini activity that is neither a prompt nor an answer (feedback, settings, an empty Canvas, a Gem used, a draft chosen)": 2,
    });
  });

  it("keeps a Canvas's text, written in the lines before the time, as Gemini's document; an empty Canvas is left out", async () => {
    // The page's shape as public converters of real Takeouts read it (a Canvas's text as lines
    // between "Created Gemini Canvas titled …" and the time; a bare title line and the time when empty).
    const dir = await mkdtemp(join(tmpdir(), "mnemo-page-"));
    try {
      const html = join(dir, "MyActivity.html");
      await writeFile(
        html,
        pageOf([
          cell(
            "Created Gemini Canvas titled&nbsp;Packing list<br>Wool sweater<br>Rain jacket &amp; boots<br>Feb 2, 2026, 7:28:02\u202fAM PST<br>",
          ),
          cell("Created Gemini Canvas titled&nbsp;A thing<br>Feb 2, 2026, 7:27:00\u202fAM PST<br>"),
          cell("Prompted&nbsp;What should I pack for Iceland?<br>Feb 2, 2026, 7:25:02\u202fAM PST<br><p>Layers.</p>"),
        ]),
      );
      const { conversations, skipped } = await collectWithSkips(html);
      expect(conversations.flatMap(({ conversation }) => conversation.messages.map((m) => [m.role, m.content]))).toEqual([
        ["human", "What should I pack for Iceland?"],
        ["assistant", "Layers."],
        ["assistant", "[document: Packing list]\nWool sweater\nRain jacket & boots"],
      ]);
      expect(skipped).toEqual({
        "Gemini activity that is neither a prompt nor an answer (feedback, settings, an empty Canvas, a Gem used, a draft chosen)": 1,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("gives the conversations and ids the same account's JSON gives, a session not cut at midnight (the page's nor UTC's)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mnemo-page-"));
    try {
      // An afternoon in California that runs past UTC's midnight, an evening whose day is the 26th on
      // the page and the 27th in the JSON, and the next morning.
      const turns: [string, string, string][] = [
        ["first question", "Nov 26, 2024, 3:50:00 PM PST", "2024-11-26T23:50:00Z"],
        ["and the second?", "Nov 26, 2024, 4:10:00 PM PST", "2024-11-27T00:10:00Z"],
        ["what plant is this?", "Nov 26, 2024, 8:15:00 PM PST", "2024-11-27T04:15:00Z"],
        ["how much water for pizza dough?", "Nov 27, 2024, 9:58:40 AM PST", "2024-11-27T17:58:40Z"],
      ];
      const html = join(dir, "MyActivity.html");
      const json = join(dir, "My Activity.json");
      await writeFile(html, pageOf(turns.map(([prompt, written]) => cell(`Prompted&nbsp;${prompt}<br>${written}<br><p>ok</p>`))));
      const records = turns.map(([prompt, , time]) => ({
        header: "Gemini Apps",
        title: `Prompted ${prompt}`,
        time,
        products: ["Gemini Apps"],
        safeHtmlItem: [{ html: "<p>ok</p>" }],
      }));
      await writeFile(json, JSON.stringify(records.reverse()));
      const shape = (conversations: Awaited<ReturnType<typeof collect>>) =>
        conversations.map(({ conversation }) => ({ id: conversation.id, messages: conversation.messages.map((m) => [m.id, m.content]) }));
      const fromPage = shape(await collect(html));
      expect(fromPage.map(({ id, messages }) => [id, messages.length])).toEqual([
        ["gemini-day-2024-11-26", 4],
        ["gemini-day-2024-11-27", 2],
        ["gemini-day-2024-11-27-2", 2],
      ]);
      expect(shape(await collect(json))).toEqual(fromPage);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("from Takeout's folder, leaving the Search page aside", async () => {
    const { conversations, skipped } = await collectWithSkips(join(fixtures, "gemini-html"));
    expect(conversations).toHaveLength(3);
    expect(Object.keys(skipped)).toContain("files of another Google product's activity, not read");
  });

  it("in German, as the page of odd/ has it", async () => {
    const [conversation] = await collect(join(fixtures, "odd/MyActivity.html"));
    expect(conversation?.conversation.messages.map((message) => [message.role, message.content, message.createdAt])).toEqual([
      ["human", "Wie lange koche ich ein Ei?", "2025-03-10T08:30:00.000Z"],
      ["assistant", "Etwa sechs Minuten – das sagt auch ChatGPT.", "2025-03-10T08:30:00.000Z"],
    ]);
  });

  it("another product's page alone gives nothing, and says why", async () => {
    const { conversations, skipped } = await collectWithSkips(join(fixtures, "gemini-html/Takeout/My Activity/Search/MyActivity.html"));
    expect(conversations).toEqual([]);
    expect(skipped).toEqual({ "activity of other Google products": 1 });
  });
});
