import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli, tempDir } from "../helpers.js";
import { api, launchChromium, openAddMemory, startUi, type UiServer, waitUntilIndexed } from "./browser.js";

const EXPORT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");
const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

let server: UiServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startUi(), launchChromium()]);
  context = await browser.newContext();
  page = await context.newPage();
  page.on("dialog", (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Whether the element is on the screen now (scrolled into view). */
async function onScreen(target: Page, selector: string): Promise<boolean> {
  return target.locator(selector).evaluate((element) => {
    const box = (element as unknown as { getBoundingClientRect(): { top: number; height: number } }).getBoundingClientRect();
    return box.top >= 0 && box.top < (globalThis as unknown as { innerHeight: number }).innerHeight && box.height > 0;
  });
}

describe("the web app in a real browser", () => {
  it("signs in through mnemo ui's one-time link, into an HttpOnly SameSite=Strict cookie, and the link works once", async () => {
    await page.goto(server.loginUrl);
    await page.waitForURL(`${server.url}/memories`);
    expect(page.url()).not.toContain("code");
    await expect(page.locator("h1").textContent()).resolves.toBe("Memories");
    const [cookie] = (await context.cookies()).filter((c) => c.name.startsWith("mnemo_session_"));
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe("");

    const other = await browser.newPage();
    const again = await other.goto(server.loginUrl);
    expect(again?.status()).toBe(401);
    await other.getByText("expired or was already used").waitFor();
    await other.close();
  });

  it("sends a browser without a session to the login page, which takes the token and comes back", async () => {
    const fresh = await browser.newContext();
    const tab = await fresh.newPage();
    await tab.goto(`${server.url}/buckets`);
    expect(new URL(tab.url()).pathname).toBe("/login");
    await tab.fill("#token", "mnemo_wrong");
    await tab.click("button[type=submit]");
    await tab.getByText("That token is not valid").waitFor();
    expect(await tab.getAttribute("#token", "aria-invalid")).toBe("true");
    await tab.fill("#token", server.token());
    await tab.click("button[type=submit]");
    await tab.waitForURL(`${server.url}/buckets`);
    // Back goes to the page that said the token was wrong (which, signed in now, goes on to the app),
    // not to a form post the browser would send again.
    await tab.goBack();
    expect(new URL(tab.url()).pathname).toBe("/buckets");
    await fresh.close();
  });

  it("imports an export through the page, with progress, and shows the summary once it is ready", async () => {
    await page.goto(`${server.url}/import`);
    await page.setInputFiles("#import-file", EXPORT);
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.getByText("is imported and searchable").waitFor({ timeout: 60_000 });
    const counts = await page.locator(".summary-counts li").allTextContents();
    expect(counts).toEqual(["4new", "0updated", "0unchanged", "0rejected", "0failed"]);
    expect(await page.locator(".summary-outcome").textContent()).toBe("Imported 4 new conversations");
    expect(await page.locator("#progress-indexing").getAttribute("value")).toBe("100");

    await page.goto(`${server.url}/conversations`);
    const statuses = await page.locator("td[data-label=Status] .badge").allTextContents();
    expect(statuses).toEqual(["ready", "ready", "ready", "ready"]);
  });

  it("on a phone: the upload on the first screen, the exports it reads a click away, a bucket card without bare labels", async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/import`);
    const upload = await phone.getByRole("button", { name: "Upload and import" }).boundingBox();
    expect(upload!.y + upload!.height).toBeLessThan(844);
    await phone.getByText(/^Which exports mnemo reads/).click();
    expect(await phone.getByText("Markdown transcript", { exact: true }).isVisible()).toBe(true);
    // A bucket's card shows no bare "Description:" when it has none (General has none).
    await phone.goto(`${server.url}/buckets`);
    expect(await phone.locator("td[data-label=Description]").first().isVisible()).toBe(false);
    await phone.close();
  });

  it("says a file that is no export was not imported, naming it as uploaded (not the server's path), with the fix", async () => {
    const notAnExport = path.join(tempDir(), "notes.json");
    fs.writeFileSync(notAnExport, '{"hello": 1}');
    await page.goto(`${server.url}/import`);
    await page.setInputFiles("#import-file", notAnExport);
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.getByText("Nothing was imported: notes.json could not be read").waitFor({ timeout: 60_000 });
    expect(await page.locator("#import-result h3").first().textContent()).toBe("notes.json");
    expect(await page.locator(".summary-outcome").textContent()).toBe("Nothing imported: the file could not be read");
    const problems = await page.locator("#import-result ul:not(.summary-counts) li").allTextContents();
    expect(problems.join("\n")).toMatch(/^notes\.json: not a supported chat export/);
    expect(problems.join("\n")).toContain("Pass the export as downloaded");
    expect(await page.locator("main").textContent()).not.toContain("uploads");
    expect(await page.locator("#progress-indexing-text").textContent()).toBe("nothing to index");
    expect(await page.locator("#progress-indexing").evaluate((bar) => (bar as unknown as { value: number }).value)).toBe(0);

    await page.reload();
    const row = page.locator("tbody tr", { hasText: "notes.json" });
    expect(await row.locator(".badge").textContent()).toBe("not read");
    expect(await row.textContent()).toContain("notes.json: not a supported chat export");
    expect(await row.textContent()).not.toContain("uploads");

    // An empty file is refused at once, in the page's words: the field is "Export file", not the API's `size`.
    const empty = path.join(tempDir(), "empty.json");
    fs.writeFileSync(empty, "");
    await page.goto(`${server.url}/import`);
    await page.setInputFiles("#import-file", empty);
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.getByText("The upload failed: Export file: must be at least 1 byte").waitFor();
  });

  it("search opens a hit's conversation scrolled to that message", async () => {
    await page.goto(`${server.url}/search?q=${encodeURIComponent("tram 28")}`);
    expect(await page.locator("mark").first().textContent()).toMatch(/tram/i);
    await page.locator("ol.items h3 a").first().click();
    await page.waitForURL(/\/conversations\/conv_.*#hit$/);
    expect(await page.locator("#hit").textContent()).toMatch(/tram 28/i);
    expect(await onScreen(page, "#hit")).toBe(true);
    expect(await page.locator("#hit").getAttribute("aria-current")).toBe("true");
  });

  it("search and recall say nothing is stored about a question on nothing in the history, and search shows what it left out on request", async () => {
    const query = encodeURIComponent("what did my cardiologist say about the stent?");
    await page.goto(`${server.url}/search?q=${query}`);
    expect(await page.locator("#results-heading").textContent()).toMatch(/^Nothing found/);
    expect(await page.locator("ol.items li").count()).toBe(0);
    await page.getByRole("link", { name: "Show them" }).click();
    await page.waitForURL(/all=1/);
    expect(await page.locator("ol.items li").count()).toBeGreaterThan(0);
    expect(await page.locator("ol.items .meta").first().textContent()).toContain("probably unrelated");
    await page.goto(`${server.url}/recall?q=${query}`);
    expect(await page.locator("p.empty").textContent()).toBe("Nothing in your chat history is about this.");
    expect(await page.locator("a.cite").count()).toBe(0);
  });

  it("search and recall between two days: the form keeps them, and says which days held nothing", async () => {
    await page.goto(`${server.url}/search`);
    await page.fill("#search-q", "tram 28");
    await page.fill("#search-from", "2024-05-01");
    await page.fill("#search-to", "2024-05-31");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/from=2024-05-01&to=2024-05-31/);
    expect(await page.locator("ol.items h3").first().textContent()).toBe("Lisbon long weekend in May");
    expect(await page.inputValue("#search-from")).toBe("2024-05-01");
    await page.goto(`${server.url}/recall?q=${encodeURIComponent("is tram 28 worth it?")}&from=2030-01-01`);
    expect(await page.locator("p.empty").textContent()).toBe("Nothing in your chat history from 2030-01-01 is about this.");
  });

  it("recall's [n] citation opens the message it cites", async () => {
    await page.goto(`${server.url}/recall?q=${encodeURIComponent("how do we get from the airport to Alfama")}&maxTokens=300`);
    const citation = page.locator("a.cite").first();
    const label = await citation.getAttribute("aria-label");
    expect(label).toMatch(/^Source 1: /);
    await citation.click();
    await page.waitForURL(/#hit$/);
    expect(await onScreen(page, "#hit")).toBe(true);
    expect(await page.locator("h1").textContent()).toBe(label!.replace(/^Source 1: /, ""));
  });

  it("adds, edits, moves and deletes a memory, with its history", async () => {
    await page.goto(`${server.url}/buckets`);
    await page.fill("#bucket-name", "Pets");
    await page.getByRole("button", { name: "Create bucket" }).click();
    await page.getByText("Created bucket “Pets”.").waitFor();

    await page.goto(`${server.url}/memories`);
    await openAddMemory(page);
    await page.fill("#new-text", "My dog Biscuit is a golden retriever");
    await page.getByRole("button", { name: "Add memory" }).click();
    await page.getByText("Memory added.").waitFor();
    const item = page.locator("li.item", { hasText: "My dog Biscuit" });
    await item.locator("summary", { hasText: "Edit or move" }).click();
    await item.locator("textarea").fill("My dog Biscuit is a 4-year-old golden retriever");
    await item.locator("select").selectOption({ label: "Pets" });
    await item.locator("button", { hasText: "Save" }).click();
    await page.getByText("Saved (version 2).").waitFor();
    const edited = page.locator("li.item", { hasText: "4-year-old" });
    expect(await edited.locator(".item-head").textContent()).toContain("Pets");

    await edited.locator("a", { hasText: "History" }).click();
    expect(await page.locator("ol.items li").count()).toBe(2);
    await page.goBack();

    await page.locator("li.item", { hasText: "4-year-old" }).locator("input[type=checkbox]").check();
    await page.selectOption("#bulk-bucket", { label: "General" });
    await page.getByRole("button", { name: "Move selected" }).click();
    await page.getByText("Moved 1 memory.").waitFor();
    expect(await page.locator("li.item", { hasText: "4-year-old" }).locator(".item-head").textContent()).toContain("General");

    // Delete moves it to the trash at once, and the message offers to undo it.
    await page.locator("li.item", { hasText: "4-year-old" }).locator("button", { hasText: "Delete" }).click();
    await page.getByText("Moved 1 memory to the trash.").waitFor();
    expect(await page.locator("li.item", { hasText: "4-year-old" }).count()).toBe(0);
    await page.locator(".flash").getByRole("button", { name: "Undo" }).click();
    await page.getByText("Restored 1 memory.").waitFor();
    const restored = page.locator("li.item", { hasText: "4-year-old" });
    expect(await restored.count()).toBe(1);
    await restored.locator("a", { hasText: "History" }).click();
    expect(await page.locator("ol.items li").count()).toBe(3); // added, edited, moved: its history came back with it
  });

  it("says to select a memory first when Delete or Move selected is pressed with none selected", async () => {
    await api(server, "POST", "/api/memory", { text: "2025-03-01 A memory to leave alone" });
    await page.goto(`${server.url}/memories`);
    await page.getByRole("button", { name: "Delete selected" }).click();
    await page.waitForURL(`${server.url}/memories`);
    expect((await page.locator(".flash").textContent())?.trim()).toBe("Select at least one memory first");
  });

  it("names a refused field by the label the page shows it under, not by the API's name for it", async () => {
    const notAnImage = path.join(tempDir(), "photo.png");
    fs.writeFileSync(notAnImage, "hello");
    await page.goto(`${server.url}/memories`);
    await openAddMemory(page);
    await page.setInputFiles("#new-image", notAnImage);
    await page.fill("#new-image-description", "the whiteboard after the sprint review");
    await page.getByRole("button", { name: "Add image" }).click();
    await page.waitForURL(`${server.url}/memories`);
    expect((await page.locator(".flash").textContent())?.trim()).toBe("Image: is not a PNG, JPEG, WebP or GIF image");
    // The form is still open with what was typed: only the file is to be chosen again.
    expect(await page.locator("#new-image-description").isVisible()).toBe(true);
    expect(await page.locator("#new-image-description").inputValue()).toBe("the whiteboard after the sprint review");
    await page.goto(`${server.url}/conversations?from=2025-13-45`);
    expect(await page.locator("main").textContent()).toContain("From: must be an ISO 8601 date");
    await page.goto(`${server.url}/search?q=tea&platform=myspace`);
    expect(await page.locator("main").textContent()).toContain('Platform: no conversations from platform "myspace"');
    await page.goto(`${server.url}/recall?q=tea&maxTokens=-5`);
    expect(await page.locator("main").textContent()).toMatch(/Max tokens: must be at least 1/i);
    // The date the Add form starts a memory with is what takes 19,995 characters past the limit: said so.
    await page.goto(`${server.url}/memories`);
    await openAddMemory(page);
    await page.fill("#new-text", "x".repeat(19_995));
    await page.getByRole("button", { name: "Add memory" }).click();
    await page.waitForURL(`${server.url}/memories`);
    expect((await page.locator(".flash").textContent())?.trim()).toContain(
      "Text: is 19,995 characters, and its date (11 more) takes it past the 20,000 a memory holds. Shorten it to 19,989 characters, store it without the date (untick “Start it with today's date”)",
    );
    const swapped = await page.goto(`${server.url}/search?q=tea&from=2024-05-31&to=2024-05-01`);
    expect(await page.locator("main").textContent()).toContain("From: 2024-05-31 is after the range's end, 2024-05-01");
    // Said on the search page itself, at the field, with what was typed still there to change.
    expect(swapped?.status()).toBe(400);
    expect(await page.locator("#search-from").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#search-q").inputValue()).toBe("tea");
    expect(await page.locator("#search-to").inputValue()).toBe("2024-05-01");
    await page.goto(`${server.url}/memories?bucket=999`);
    expect(await page.locator("main").textContent()).toContain("Bucket: bucket 999 does not exist");
  });

  it("folds each editor's setup under its name, so Settings reads to its backup in a few phone screens", async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/settings`);
    const backup = await phone.getByRole("heading", { name: "Back up your data" }).boundingBox();
    expect(backup!.y).toBeLessThan(4 * 844);
    const cursor = phone.locator(".snippet", { hasText: "Cursor" });
    expect(await cursor.locator("pre").isVisible()).toBe(false);
    await cursor.locator("summary").click();
    expect(await cursor.locator("pre").textContent()).toContain('"mcpServers"');
    expect(await cursor.locator("pre").isVisible()).toBe(true);
    await phone.close();
  });

  it("a Copy button without a clipboard (a page neither on localhost nor https) selects the snippet for copying by hand", async () => {
    await page.goto(`${server.url}/settings`);
    await page.evaluate(() =>
      Object.defineProperty((globalThis as unknown as { navigator: object }).navigator, "clipboard", { value: undefined }),
    );
    await page.locator(".snippet summary").first().click();
    const copy = page.locator("button[data-copy]").first();
    await copy.click();
    await expect(copy.textContent()).resolves.toBe("Selected: copy it with Ctrl+C or ⌘C");
    const selected = await page.evaluate(() => String((globalThis as unknown as { getSelection(): unknown }).getSelection()));
    expect(selected).toContain('"mcpServers"');
  });

  it("opens Edit or move across the memory's whole width, on a phone too", async () => {
    await api(server, "POST", "/api/memory", { text: "2025-03-02 A memory to edit on a phone" });
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/memories`);
    const item = phone.locator("li.item").first();
    await item.getByText("Edit or move").click();
    const [text, body] = await Promise.all([item.locator("textarea").boundingBox(), item.locator(".body").boundingBox()]);
    expect(text!.width).toBeGreaterThan(body!.width - 2);
    await phone.close();
  });

  it("shows a long memory cut in the list, and whole on request, and edits it in a tall box", async () => {
    const text = `2025-03-03 Kitchen renovation notes. ${"Tiles, grout and the budget again. ".repeat(300)}The end.`;
    await api(server, "POST", "/api/memory", { text });
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/memories`);
    const item = phone.locator("li.item", { hasText: "Kitchen renovation notes" });
    const whole = item.locator("p.text", { hasText: "The end." });
    expect(await whole.isVisible()).toBe(false);
    expect((await item.boundingBox())!.height).toBeLessThan(844); // the list goes on within a phone's screen
    await item.getByText(`Show all ${text.length.toLocaleString("en")} characters`).click();
    expect(await whole.isVisible()).toBe(true);
    expect(await whole.textContent()).toBe(text);
    expect(await item.locator("p.text.cut").isVisible()).toBe(false);
    // Its edit box opens tall enough to work in (16 lines), not the 3 of a short memory's.
    expect(await item.locator("textarea").getAttribute("rows")).toBe("16");
    await phone.close();
  });

  it("renames a bucket, and deletes one after saying how many memories move to General; General cannot be deleted", async () => {
    const created = await api<{ bucket: { id: string } }>(server, "POST", "/api/buckets", { name: "Trips" });
    await api(server, "POST", "/api/memory", { text: "Lisbon in May", bucketId: Number(created.body.bucket.id) });
    await page.goto(`${server.url}/buckets`);
    const row = page.locator("tr", { hasText: "Trips" });
    await row.locator("summary", { hasText: "Rename" }).click();
    await row.locator("input[name=name]").fill("Travel");
    await row.locator("button", { hasText: "Save" }).click();
    await page.getByText("Saved bucket “Travel”.").waitFor();

    await page.locator("tr", { hasText: "Travel" }).locator("button", { hasText: "Delete" }).click();
    await page.getByText("Its 1 memory will move to General; none is deleted.").waitFor();
    await page.getByRole("button", { name: "Delete bucket" }).click();
    await page.getByText("Bucket deleted. 1 memory moved to General.").waitFor();
    const general = page.locator("tr", { hasText: "General" });
    expect(await general.locator("button", { hasText: "Delete" }).count()).toBe(0);
    expect(await general.textContent()).toContain("cannot be deleted");
  });

  it("rotates the token: shown once, the old one stops working, the token file holds the new one", async () => {
    const old = server.token();
    await page.goto(`${server.url}/settings`);
    expect(await page.locator("pre").first().textContent()).toContain("<your token>");
    await page.getByRole("button", { name: "Rotate token" }).click();
    await page.getByText("The old one stops working at once").waitFor();
    await page.locator("main button", { hasText: "Rotate token" }).click();
    const token = await page.inputValue("#new-token");
    expect(token).toMatch(/^mnemo_/);
    expect(token).not.toBe(old);
    expect(await page.locator("pre").first().textContent()).toContain(token);
    expect(server.token()).toBe(token);
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // the API's token cache
    expect((await api(server, "GET", "/api/buckets", undefined, old)).status).toBe(401);
    expect((await api(server, "GET", "/api/buckets", undefined, token)).status).toBe(200);

    await page.reload();
    expect(await page.locator("#new-token").count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe("/settings"); // still signed in: rotating here renews this session
  });

  it("says what to do about something not found in the app's words, not with a CLI command or an endpoint", async () => {
    const missing = await page.goto(`${server.url}/conversations/conv_01ZZZZZZZZZZZZZZZZZZZZZZZZ`);
    expect(missing?.status()).toBe(404);
    const text = await page.locator("main").textContent();
    expect(text).toContain("find it under Conversations, or with Search");
    expect(text).not.toMatch(/mnemo chats|\/api\//);
    await page.goto(`${server.url}/memories/mem_01ZZZZZZZZZZZZZZZZZZZZZZZZ/history`);
    expect(await page.locator("main").textContent()).not.toMatch(/`mnemo|\/api\//);
  });

  it("answers an address whose id is no id with the same Not found page, naming the id, where it said 'Something went wrong'", async () => {
    for (const [address, named] of [
      ["/memories/%%%/history", 'memory "%%%" not found: the address\'s id is not a memory id'],
      ["/memories/mem_x/history", "memory mem_x not found: the address's id is not a memory id"],
      ["/conversations/%20", 'conversation " " not found: the address\'s id must not be empty'],
    ]) {
      const answer = await page.goto(`${server.url}${address}`);
      expect(answer?.status()).toBe(404);
      await expect(page.locator("h1").textContent()).resolves.toBe("Not found");
      expect(await page.locator("main [role=alert]").textContent()).toContain(named);
    }
  });

  it("answers an address that is no page with the app's Not found page, and API clients still with JSON", async () => {
    const typo = await page.goto(`${server.url}/memory`);
    expect(typo?.status()).toBe(404);
    expect(typo?.headers()["content-type"]).toContain("text/html");
    await expect(page.locator("h1").textContent()).resolves.toBe("Not found");
    expect(await page.locator("main").textContent()).toContain("There is no page at /memory");
    expect(await page.locator('nav[aria-label="Main"] a[href="/memories"]').count()).toBeGreaterThan(0);

    const client = await fetch(`${server.url}/memory`);
    expect(client.status).toBe(404);
    expect(await client.json()).toEqual({ error: "No such endpoint: GET /memory" });
    const apiPath = await page.goto(`${server.url}/api/nope`);
    expect(apiPath?.headers()["content-type"]).toContain("application/json");
  });

  it("shows a wide table in a message on a phone with its words whole, scrolling sideways within the message", async () => {
    const table = [
      "| name | description | price | quantity | supplier | notes | link |",
      "|---|---|---|---|---|---|---|",
      "| Flour | strong white bread flour from the mill | 2.40 | 25 | Moulin de la Fontaine | order on Mondays | https://example.com/products/flour-t65 |",
    ].join("\n");
    const upload = await api<{ conversationId: string }>(server, "POST", "/api/chat-history/ingest/custom-online", {
      platform: "custom",
      conversation: {
        id: "wide-table",
        title: "Supplies",
        createdAt: "2025-01-01T10:00:00Z",
        messages: [{ id: "a", role: "assistant", content: table }],
      },
    });
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/conversations/${upload.body.conversationId}`);
    const lines = await phone.locator(".msg th").evaluateAll((cells) =>
      cells.map((cell) => {
        const doc = (
          globalThis as unknown as {
            document: { createRange(): { selectNodeContents(n: unknown): void; getClientRects(): { length: number } } };
          }
        ).document;
        const range = doc.createRange();
        range.selectNodeContents(cell);
        return range.getClientRects().length;
      }),
    );
    expect(lines).toEqual([1, 1, 1, 1, 1, 1, 1]); // each heading on one line, not a letter a line
    const pageWidth = await phone.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement;
      return root.scrollWidth;
    });
    expect(pageWidth).toBeLessThanOrEqual(390); // the table scrolls, not the page
    expect(await phone.locator(".msg table").getAttribute("tabindex")).toBe("0");
    await phone.close();
  });

  it("shows HTML or script in a memory, a title and a message as text, and runs none of it", async () => {
    await api(server, "POST", "/api/memory", { text: `Memo ${XSS}` });
    const upload = await api<{ conversationId: string }>(server, "POST", "/api/chat-history/ingest/custom-online", {
      platform: "custom",
      conversation: {
        id: "xss-1",
        title: `Title ${XSS}`,
        createdAt: "2025-01-01T10:00:00Z",
        messages: [
          { id: "a", role: "human", content: `Question onerror ${XSS} [link](javascript:window.__xss=1)` },
          { id: "b", role: "assistant", content: "```html\n<script>window.__xss=1</script>\n```" },
        ],
      },
    });
    await waitUntilIndexed(server);
    const pages = [
      "/memories",
      "/memories?q=Memo",
      "/conversations",
      `/conversations/${upload.body.conversationId}`,
      "/search?q=onerror",
      "/recall?q=onerror",
    ];
    for (const route of pages) {
      await page.goto(`${server.url}${route}`);
      expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss), route).toBeUndefined();
      expect(await page.locator("main img[src=x], main script").count(), route).toBe(0);
      expect(await page.locator("main").textContent(), route).toContain('<img src=x onerror="window.__xss=1">');
    }
    await page.goto(`${server.url}/conversations/${upload.body.conversationId}`);
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
  });

  it("refuses a change without the CSRF token or from another site, a foreign Host, and another user's data", async () => {
    await page.goto(`${server.url}/memories`);
    const withoutToken = await page.evaluate(() =>
      fetch("/memories", { method: "POST", body: new URLSearchParams({ text: "sneaky" }) }).then((r) => r.status),
    );
    expect(withoutToken).toBe(403);

    const csrf = await page.inputValue("input[name=_csrf] >> nth=0");
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const crossSite = await request(`${server.url}/memories`, {
      method: "POST",
      headers: { cookie, origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ text: "sneaky", _csrf: csrf }).toString(),
    });
    expect(crossSite.statusCode).toBe(403);
    await crossSite.body.dump();
    const rebinding = await request(`${server.url}/memories`, { headers: { cookie, host: "evil.example" } });
    expect(rebinding.statusCode).toBe(403);
    await rebinding.body.dump();

    const added = await runCli(["--json", "users", "add", "bob"], { env: server.env });
    const bobToken = (JSON.parse(added.stdout) as { token: string }).token;
    const bobs = await api<{ conversationId: string }>(
      server,
      "POST",
      "/api/chat-history/ingest/custom-online",
      {
        conversation: {
          id: "bob-1",
          title: "Bob's secret plans",
          createdAt: "2025-01-01T10:00:00Z",
          messages: [{ id: "m", role: "human", content: "hi" }],
        },
      },
      bobToken,
    );
    const peek = await page.goto(`${server.url}/conversations/${bobs.body.conversationId}`);
    expect(peek?.status()).toBe(404);
    await page.goto(`${server.url}/conversations?title=secret`);
    expect(await page.getByText("Bob's secret plans").count()).toBe(0);
  });
});
