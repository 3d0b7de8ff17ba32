// The web's Import page in a real browser, for what an export holds besides JSON conversations: a
// Markdown transcript, and Claude's memories, counted on the page and found on the Memories page.
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { launchChromium, startUi, type UiServer } from "./browser.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");

let server: UiServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startUi(), launchChromium()]);
  page = await (await browser.newContext()).newPage();
  await page.goto(server.loginUrl);
  await page.waitForURL(`${server.url}/memories`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function upload(file: string): Promise<void> {
  await page.goto(`${server.url}/import`);
  await page.setInputFiles("#import-file", file);
  await page.getByRole("button", { name: "Upload and import" }).click();
  await page.getByText("is imported and searchable").waitFor({ timeout: 60_000 });
}

describe("the Import page, for transcripts and memories", () => {
  it("offers .md and .txt files, and imports a Markdown transcript", async () => {
    await page.goto(`${server.url}/import`);
    expect(await page.locator("#import-file").getAttribute("accept")).toMatch(/\.md,.*\.txt/);
    await upload(path.join(EXPORTS, "markdown", "user-assistant.md"));
    expect(await page.locator("#import-result h3").first().textContent()).toBe("user-assistant.md");
    expect(await page.locator(".summary-outcome").textContent()).toBe("Imported 1 new conversation");
    expect(await page.locator(".summary-counts li").allTextContents()).toEqual(["1new", "0updated", "0unchanged", "0rejected", "0failed"]);
  });

  it("says how many memories a Claude export held and where they went; uploading it again adds none", async () => {
    const memories = path.join(EXPORTS, "claude-memories", "memories.json");
    await upload(memories);
    expect(await page.locator("#import-result h3").first().textContent()).toBe("memories.json");
    expect(await page.locator(".summary-outcome").count()).toBe(0); // it held no conversations: no line about them
    expect(await page.locator(".summary-memories").textContent()).toBe("Imported 9 new memories, in “Claude memories”. See them");
    await upload(memories);
    expect(await page.locator(".summary-memories").textContent()).toBe(
      "Nothing new: all 9 memories were already imported, in “Claude memories”. See them",
    );
    await page.reload();
    expect(await page.locator("tbody tr", { hasText: "memories.json" }).first().textContent()).toContain(
      "Nothing new: all 9 memories were already imported, in “Claude memories”",
    );
    await page.goto(`${server.url}/memories`);
    expect(await page.locator("main").textContent()).toContain("Claude memories");
    expect(await page.locator("main").textContent()).toContain('"Top of mind": The opening is set for 14 June 2025');
  });
});
