import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli, tempDir } from "../helpers.js";
import { api, launchChromium, startUi, type UiServer, waitUntilIndexed } from "./browser.js";

/** The web app's trash, bulk actions, filter errors, markdown, live imports, backup and dates, in a real Chromium. */

const EXPORT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");

let server: UiServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startUi(), launchChromium()]);
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  page.on("dialog", (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  await page.goto(server.loginUrl);
  await page.waitForURL(`${server.url}/memories`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
};

async function upload(id: string, title: string, messages: string[]): Promise<string> {
  const { body } = await api<{ conversationId: string }>(server, "POST", "/api/chat-history/ingest/custom-online", {
    platform: "custom",
    conversation: {
      id,
      title,
      createdAt: "2025-05-01T10:00:00Z",
      messages: messages.map((content, i) => ({ id: `${id}-${i}`, role: i % 2 === 0 ? "human" : "assistant", content })),
    },
  });
  return body.conversationId;
}

const flash = async () => (await page.locator(".flash").first().textContent())?.trim();

/** The focused element's id, whether it is marked invalid, and the text of what describes it. */
const focusedField = () =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: DocLike }).document;
    const field = doc.activeElement;
    const describedBy = field?.getAttribute("aria-describedby");
    return {
      id: field?.id,
      invalid: field?.getAttribute("aria-invalid"),
      description: describedBy ? doc.getElementById(describedBy)?.textContent?.trim() : undefined,
    };
  });
interface ElementLike {
  id: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
}
interface DocLike {
  activeElement: ElementLike | null;
  getElementById(id: string): ElementLike | null;
}

describe("the trash", () => {
  it("takes a conversation deleted on its page, lists it, and restores it searchable, with its pin", async () => {
    const id = await upload("trash-1", "Sourdough starter", ["My sourdough starter is flat", "Feed it **twice** a day."]);
    await waitUntilIndexed(server);
    await api(server, "POST", "/api/chat-history/chats/pin", { ids: [id], pinned: true });
    await page.goto(`${server.url}/conversations/${id}`);
    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(`${server.url}/conversations`);
    expect(await flash()).toMatch(/^Moved 1 conversation to the trash\.\s*Undo$/);
    expect(await page.getByText("Sourdough starter").count()).toBe(0);

    await page.getByRole("link", { name: "Trash" }).click();
    const item = page.locator("li.item", { hasText: "Sourdough starter" });
    expect(await item.locator(".item-head").textContent()).toContain("custom · 2 messages");
    await item.getByRole("button", { name: "Restore" }).click();
    await page.getByText("Restored 1 conversation.").waitFor();
    expect(await page.locator("li.item").count()).toBe(0);
    await page.goto(`${server.url}/search?q=sourdough`);
    expect(await page.locator("ol.items h3").allTextContents()).toContain("Sourdough starter");
    await page.goto(`${server.url}/conversations?pinned=1`);
    expect(await page.locator("td.title").allTextContents()).toEqual([expect.stringContaining("Sourdough starter")]);
  });

  it("undoes a delete from the message it leaves, back on the page it was deleted from", async () => {
    const id = await upload("trash-2", "Bike repair", ["How do I fix a flat?", "Patch the tube."]);
    await page.goto(`${server.url}/conversations/${id}`);
    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(`${server.url}/conversations`);
    await page.locator(".flash").getByRole("button", { name: "Undo" }).click();
    await page.waitForURL(`${server.url}/conversations/${id}`);
    expect(await page.locator("h1").textContent()).toBe("Bike repair");
    expect(await flash()).toBe("Restored 1 conversation.");
  });

  it("deletes selected items for good after asking, and empties the trash after asking", async () => {
    for (const text of ["Old phone PIN hint", "Old locker number", "Old wifi name"]) await api(server, "POST", "/api/memory", { text });
    await page.goto(`${server.url}/memories`);
    for (const text of ["Old phone PIN hint", "Old locker number", "Old wifi name"]) {
      await page.locator("li.item", { hasText: text }).locator("input[type=checkbox]").check();
    }
    await page.getByRole("button", { name: "Delete selected" }).click();
    expect(await flash()).toMatch(/^Moved 3 memories to the trash\./);

    await page.goto(`${server.url}/trash`);
    // Two selected and restored at once, then deleted again.
    for (const text of ["Old locker number", "Old wifi name"]) {
      await page.locator("li.item", { hasText: text }).locator("input[type=checkbox]").check();
    }
    await page.getByRole("button", { name: "Restore selected" }).click();
    expect(await flash()).toBe("Restored 2 memories.");
    expect(await page.locator("li.item").allTextContents()).toEqual([expect.stringContaining("Old phone PIN hint")]);
    await page.goto(`${server.url}/memories`);
    for (const text of ["Old locker number", "Old wifi name"]) {
      await page.locator("li.item", { hasText: text }).locator("input[type=checkbox]").check();
    }
    await page.getByRole("button", { name: "Delete selected" }).click();

    await page.goto(`${server.url}/trash`);
    await page.locator("li.item", { hasText: "Old phone PIN hint" }).locator("input[type=checkbox]").check();
    await page.getByRole("button", { name: "Delete selected for good" }).click();
    await page.getByText("Delete this for good?").waitFor();
    await page.getByRole("button", { name: "Delete for good" }).click();
    expect(await flash()).toBe("Deleted 1 item for good.");
    expect(await page.locator("li.item").count()).toBe(2);
    // Back goes to the question, at an address of its own: not to a form post the browser would send again.
    await page.goBack();
    await page.getByText("Delete this for good?").waitFor();
    await page.goForward();

    await page.getByRole("button", { name: "Empty the trash" }).click();
    await page.getByText("The 2 items in the trash will be deleted for good.").waitFor();
    await page.getByRole("button", { name: "Empty the trash" }).click();
    expect(await flash()).toBe("The trash is empty: 2 items deleted for good.");
    expect(await page.getByText("The trash is empty.", { exact: true }).count()).toBe(1);
    const { body } = await api<{ memories: string[] }>(server, "GET", "/api/v2/memory?count=1000");
    expect(body.memories.filter((text) => text.startsWith("Old "))).toEqual([]);
  });
});

describe("conversations", () => {
  it("pins, excludes, includes and deletes the selected conversations at once", async () => {
    const ids = [await upload("bulk-1", "Bulk alpha", ["alpha?", "alpha."]), await upload("bulk-2", "Bulk beta", ["beta?", "beta."])];
    await upload("bulk-3", "Bulk gamma", ["gamma?", "gamma."]);
    await waitUntilIndexed(server);
    await page.goto(`${server.url}/conversations?title=Bulk`);
    const select = async (...titles: string[]) => {
      for (const title of titles) await page.locator("tr", { hasText: title }).locator("input[type=checkbox]").check();
    };
    await select("Bulk alpha", "Bulk beta");
    await page.getByRole("button", { name: "Pin", exact: true }).click();
    await page.waitForURL(`${server.url}/conversations?title=Bulk`);
    expect(await flash()).toBe("Pinned 2 conversations.");
    expect(
      await page
        .locator("tr", { has: page.locator(".badge", { hasText: "pinned" }) })
        .locator("td.title a")
        .allTextContents()
        .then((titles) => titles.sort()),
    ).toEqual(["Bulk alpha", "Bulk beta"]);

    await select("Bulk alpha", "Bulk beta");
    await page.getByRole("button", { name: "Exclude from search" }).click();
    expect(await flash()).toBe("Excluded from search, recall and count: 2 conversations.");
    expect(await page.locator("tr", { hasText: "Bulk alpha" }).locator(".badge", { hasText: "excluded" }).count()).toBe(1);
    await select("Bulk beta");
    await page.getByRole("button", { name: "Include in search" }).click();
    expect(await page.locator("tr", { hasText: "Bulk beta" }).locator(".badge", { hasText: "excluded" }).count()).toBe(0);

    await page.locator("input[data-select-all]").check();
    await page.getByRole("button", { name: "Delete selected" }).click();
    expect(await flash()).toMatch(/^Moved 3 conversations to the trash\./);
    expect(await page.getByText("No conversations match these filters.").count()).toBe(1);
    await page.locator(".flash").getByRole("button", { name: "Undo" }).click();
    expect((await page.locator("td.title a").allTextContents()).sort()).toEqual(["Bulk alpha", "Bulk beta", "Bulk gamma"]);
    const { body } = await api<{ items: { id: string; pinned: boolean }[] }>(server, "GET", "/api/chat-history/chats?title=Bulk");
    expect(body.items.filter((item) => ids.includes(item.id)).every((item) => item.pinned)).toBe(true);
  });

  it("shows a date the filter refuses at its field, keeping the other filters", async () => {
    const response = await page.goto(`${server.url}/conversations?title=Bulk&from=2025-13-45&pinned=1`);
    expect(response?.status()).toBe(400);
    const error = page.locator("#filter-error");
    expect(await error.textContent()).toBe("From: must be an ISO 8601 date (YYYY-MM-DD) or date-time, not “2025-13-45”");
    // A range that ends before it starts: said at From, the value not quoted a second time.
    await page.goto(`${server.url}/conversations?from=2026-01-01&to=2025-01-01`);
    expect(await error.textContent()).toBe("From: 2026-01-01 is after the range's end, 2025-01-01: nothing lies between them");
    await page.goto(`${server.url}/conversations?title=Bulk&from=2025-13-45&pinned=1`);
    expect(await page.locator("#f-from").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#f-from").getAttribute("aria-describedby")).toBe("filter-error");
    expect(await page.inputValue("#f-title")).toBe("Bulk");
    expect(await page.locator("input[name=pinned]").isChecked()).toBe(true);
    expect(await page.locator("h1").textContent()).toBe("Conversations");
    // Fixed in the form, the list comes back.
    await page.fill("#f-from", "2025-01-01");
    await page.getByRole("button", { name: "Filter" }).click();
    expect(await page.locator("#filter-error").count()).toBe(0);
    expect((await page.locator("td.title a").allTextContents()).sort()).toEqual(["Bulk alpha", "Bulk beta"]);
  });
});

describe("markdown", () => {
  it("renders a search hit's and recall's markdown (bold, tables, code) instead of showing ** and |, with marks and citations kept", async () => {
    await upload("md-1", "Tram table", [
      "Which trams go to Belém?",
      "Take **tram 15** from the centre.\n\n| Tram | To |\n| --- | --- |\n| 15 | Belém |\n| 28 | Graça |\n\n```sh\necho tram\n```",
    ]);
    await waitUntilIndexed(server);
    await page.goto(`${server.url}/search?q=${encodeURIComponent("tram 15 Belém")}`);
    const hit = page.locator("ol.items li", { hasText: "Tram table" }).first();
    expect(await hit.locator("strong mark").first().textContent()).toBe("tram");
    expect(await hit.locator("table td").allTextContents()).toContain("Belém");
    expect(await hit.textContent()).not.toMatch(/\*\*|\| ---/);

    await page.goto(`${server.url}/recall?q=${encodeURIComponent("which tram goes to Belém")}&platform=chatgpt`);
    const narrative = page.locator(".narrative");
    expect(await narrative.textContent()).not.toContain("**");
    expect(await narrative.locator("a.cite").count()).toBeGreaterThan(0);
    await narrative.locator("a.cite").first().click();
    await page.waitForURL(/#hit$/);
    expect(await page.locator("h1").textContent()).toBe("Tram table");
  });
});

describe("a long word", () => {
  it("in a search hit's title wraps on a phone: the page does not scroll sideways", async () => {
    const title = "Supercalifragilisticexpialidocious".repeat(4);
    await upload("long-word-1", title, ["Is a long word in a title a problem?", "Not for the page's width."]);
    await waitUntilIndexed(server);
    await page.setViewportSize({ width: 375, height: 700 });
    try {
      await page.goto(`${server.url}/search?q=${encodeURIComponent("long word in a title")}`);
      await page.locator("ol.items h3", { hasText: title }).waitFor();
      const sideways = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
          .documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(sideways).toBe(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });
});

describe("right-to-left text", () => {
  it("reads right to left where it is Hebrew, its punctuation at its end, beside English left to right", async () => {
    const id = await upload("rtl-1", "איך מכינים חלה?", ["שלום! איך מכינים חלה טובה?", "You need flour, water and yeast."]);
    await api(server, "POST", "/api/memory", { text: "אני אלרגי לבוטנים!" });
    const direction = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate(
          (element) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { direction: string } }).getComputedStyle(element).direction,
        );
    await page.goto(`${server.url}/conversations/${id}`);
    expect(await direction("h1")).toBe("rtl");
    expect(await direction("li.msg.human .md p")).toBe("rtl");
    expect(await direction("li.msg.assistant .md p")).toBe("ltr");
    await page.goto(`${server.url}/conversations?platform=custom&title=${encodeURIComponent("חלה")}`);
    expect(await direction("td.title a bdi")).toBe("rtl"); // a title is isolated from what follows it
    await page.goto(`${server.url}/memories`);
    expect(await direction('li.item p.text:has-text("אני אלרגי")')).toBe("rtl");
  });
});

describe("the Import page", () => {
  it("follows an import in Recent imports as it runs, without a reload", async () => {
    await page.goto(`${server.url}/import`);
    expect(await page.locator("#recent-imports").textContent()).toContain("None since the server started.");
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    await page.setInputFiles("#import-file", EXPORT);
    await page.getByRole("button", { name: "Upload and import" }).click();
    const row = page.locator("#recent-imports tbody tr", { hasText: "chatgpt-export.zip" });
    await row.waitFor({ timeout: 60_000 });
    await row.locator(".badge", { hasText: "done" }).waitFor({ timeout: 60_000 });
    expect(await row.textContent()).toMatch(/Imported \d+ new conversations|Nothing new: all \d+ conversations were already imported/);
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });
});

describe("a backup", () => {
  it("downloads the same export as mnemo export, which mnemo import restores into another store", async () => {
    await api(server, "POST", "/api/memory", { text: "2025-05-02 Backed up: the spare key is with Ana" });
    await page.goto(`${server.url}/settings`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download a backup" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^mnemo-backup-default-\d{4}-\d{2}-\d{2}\.jsonl\.gz$/);
    const file = path.join(tempDir(), download.suggestedFilename());
    await download.saveAs(file);
    const lines = gunzipSync(fs.readFileSync(file)).toString("utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: "mnemo-export", scope: "user", vectors: true });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "end" });

    // Without the search index: a far smaller file, which a restore indexes again.
    await page.getByLabel(/Leave out the search index/).check();
    const [small] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download a backup" }).click()]);
    const smallFile = path.join(tempDir(), "small.jsonl.gz");
    await small.saveAs(smallFile);
    const smallLines = gunzipSync(fs.readFileSync(smallFile)).toString("utf8").trim().split("\n");
    expect(JSON.parse(smallLines[0]!)).toMatchObject({ vectors: false });
    expect(fs.statSync(smallFile).size).toBeLessThan(fs.statSync(file).size);

    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "restored"), MNEMO_EMBEDDER: "bundled" });
    const restored = await runCli(["import", file], { env });
    expect(restored.code, restored.stderr).toBe(0);
    const listed = await runCli(["--json", "memories", "--all"], { env });
    expect(JSON.parse(listed.stdout).memories.map((m: { text: string }) => m.text)).toContain(
      "2025-05-02 Backed up: the spare key is with Ana",
    );
  });
});

describe("a memory's date", () => {
  it("starts a memory added here with today's date, as mnemo remember does, and shows the date once", async () => {
    await api(server, "POST", "/api/memory", { text: "A plugin's memory without a date" });
    await page.goto(`${server.url}/memories`);
    await page.getByText("Add a memory").click();
    await page.fill("#new-text", "The boiler code is 4471");
    await page.getByRole("button", { name: "Add memory" }).click();
    await page.getByText("Memory added.").waitFor();
    const added = page.locator("li.item", { hasText: "The boiler code is 4471" });
    expect(await added.locator("p.text").textContent()).toBe(`${today()} The boiler code is 4471`);
    expect(await added.locator(".item-head").textContent()).not.toContain(today());
    const undated = page.locator("li.item", { hasText: "A plugin's memory without a date" });
    expect(await undated.locator(".item-head").textContent()).toContain(today());

    await page.getByText("Add a memory").click();
    await page.fill("#new-text", "Undated on purpose");
    await page.getByLabel("Start it with today's date").uncheck();
    await page.getByRole("button", { name: "Add memory" }).click();
    await page.getByText("Memory added.").waitFor();
    expect(await page.locator("li.item", { hasText: "Undated on purpose" }).locator("p.text").textContent()).toBe("Undated on purpose");
  });
});

describe("a new user", () => {
  it("finds Add a memory open while they have none, and folded once they have one", async () => {
    const added = JSON.parse((await runCli(["--json", "users", "add", "newcomer"], { env: server.env })).stdout) as { token: string };
    const code = await fetch(`${server.url}/auth/code`, { method: "POST", headers: { authorization: `Bearer ${added.token}` } });
    const own = await browser.newContext();
    try {
      const tab = await own.newPage();
      await tab.goto(`${server.url}${((await code.json()) as { path: string }).path}`);
      await tab.waitForURL(`${server.url}/memories`);
      expect(await tab.locator("#new-text").isVisible()).toBe(true);
      await tab.fill("#new-text", "My first memory");
      await tab.getByRole("button", { name: "Add memory" }).click();
      await tab.getByText("Memory added.").waitFor();
      expect(await tab.locator("#new-text").isVisible()).toBe(false);
      await tab.goto(`${server.url}/memories?bucket=1`);
      expect(await tab.locator("#new-text").isVisible()).toBe(false);
    } finally {
      await own.close();
    }
  });
});

describe("a saved edit", () => {
  it("returns to the memory edited far down the list, focused, with its message there, not to the top of the page", async () => {
    for (let i = 0; i < 25; i++) await api(server, "POST", "/api/memory", { text: `2025-04-01 Filler memory number ${i}` });
    await page.goto(`${server.url}/memories`);
    const item = page.locator("li.item").last();
    const id = await item.getAttribute("id");
    await item.getByText("Edit or move").click();
    await item.locator("textarea").fill("2025-04-01 The last memory on the page, edited");
    await item.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(`${server.url}/memories#${id}`);
    const edited = page.locator(`li#${id}`);
    expect(await edited.locator("p.text").textContent()).toBe("2025-04-01 The last memory on the page, edited");
    expect(await edited.getByRole("status").textContent()).toMatch(/^Saved \(version 2\)\.$/);
    expect(await page.evaluate(() => (globalThis as unknown as { document: DocLike }).document.activeElement?.id)).toBe(id);
    expect(await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)).toBeGreaterThan(0);
    const box = (await edited.boundingBox())!;
    const viewport = page.viewportSize()!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeLessThan(viewport.height);
    expect(await page.locator("main > .flash").count()).toBe(0); // said once, where the memory is
  });
});

describe("a refused form", () => {
  it("editing a memory another tab deleted says where it went: the Trash, not only that it may be gone", async () => {
    const stored = await api<{ memoryId: string }>(server, "POST", "/api/memory", { text: "Another tab deletes this one" });
    await page.goto(`${server.url}/memories`);
    await api(server, "POST", "/api/trash", { memoryIds: [stored.body.memoryId] });
    const item = page.locator("li.item", { hasText: "Another tab deletes this one" });
    await item.getByText("Edit or move").click();
    await item.locator("textarea").fill("Edited after it was deleted");
    await item.getByRole("button", { name: "Save" }).click();
    await page.getByText("not found").waitFor();
    expect(await page.locator("main").textContent()).toContain(
      "what is deleted here waits 30 days in the Trash, where Restore puts it back",
    );
    // What was typed is not lost with the memory's form: it waits in "Add a memory".
    expect(await page.inputValue("#new-text")).toBe("Edited after it was deleted");
    await page.getByText("Your edit of a memory that is no longer here").waitFor();
  });

  it("a refused edit of a memory shows the text as typed again in its form, to change", async () => {
    await api(server, "POST", "/api/memory", { text: "A memory edited with too much text" });
    await page.goto(`${server.url}/memories`);
    const item = page.locator("li.item", { hasText: "A memory edited with too much text" });
    await item.getByText("Edit or move").click();
    const tooLong = `${"word ".repeat(4_000)}and then some`; // over 20,000 characters: refused by the core
    await item
      .locator("textarea")
      .evaluate((area) => (area as unknown as { removeAttribute(name: string): void }).removeAttribute("maxlength"));
    await item.locator("textarea").fill(tooLong);
    await item.getByRole("button", { name: "Save" }).click();
    await page.getByText("at most 20000 characters").waitFor();
    expect(await item.locator("textarea").inputValue()).toBe(tooLong);
    // The error is at the field, which has the cursor (scrolled to, however far down the list), not only above the page.
    const textId = await item.locator("textarea").getAttribute("id");
    expect(await focusedField()).toEqual({ id: textId, invalid: "true", description: expect.stringContaining("at most 20000 characters") });
    expect(await item.getByText("at most 20000 characters").isVisible()).toBe(true);
    expect(await page.locator(".flash.error").filter({ visible: true }).count()).toBe(1);
  });

  it("keeps what was typed: a new bucket named as one that exists shows its name and description again to change", async () => {
    await page.goto(`${server.url}/buckets`);
    await page.fill("#bucket-name", "Recipes");
    await page.getByRole("button", { name: "Create bucket" }).click();
    await page.getByText("Created bucket “Recipes”.").waitFor();
    await page.fill("#bucket-name", "recipes");
    await page.fill("#bucket-description", "Dinners my family liked, with the changes I made");
    await page.getByRole("button", { name: "Create bucket" }).click();
    await page.getByText('A bucket named "recipes" already exists').waitFor();
    expect(await page.inputValue("#bucket-name")).toBe("recipes");
    expect(await focusedField()).toEqual({
      id: "bucket-name",
      invalid: "true",
      description: expect.stringContaining("already exists"),
    });
    expect(await page.inputValue("#bucket-description")).toBe("Dinners my family liked, with the changes I made");
    await page.reload();
    expect(await page.inputValue("#bucket-description")).toBe("");

    await page.fill("#bucket-name", "Cooking");
    await page.getByRole("button", { name: "Create bucket" }).click();
    const cooking = page.locator("tr", { hasText: "Cooking" });
    await cooking.getByText("Rename").click();
    await cooking.locator("input[name=name]").fill("Recipes");
    await cooking.locator("input[name=description]").fill("Weeknight dinners");
    await cooking.getByRole("button", { name: "Save" }).click();
    await page.getByText('A bucket named "Recipes" already exists').waitFor();
    expect(await cooking.locator("input[name=name]").isVisible()).toBe(true);
    expect(await focusedField()).toMatchObject({ invalid: "true", description: expect.stringContaining("already exists") });
    expect(await cooking.locator("input[name=name]").inputValue()).toBe("Recipes");
    expect(await cooking.locator("input[name=description]").inputValue()).toBe("Weeknight dinners");
  });
});
