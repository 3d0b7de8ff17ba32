import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, launchChromium, startUi, type UiServer } from "./browser.js";

/** Layout and wording a screenshot showed wrong, in a real Chromium at desktop width. */

let server: UiServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startUi(), launchChromium()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(server.loginUrl);
  await page.waitForURL(`${server.url}/memories`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** How many lines an element's text takes. */
const lines = (selector: string) =>
  page.locator(selector).evaluate((element) => {
    const range = element.ownerDocument.createRange();
    range.selectNodeContents(element);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  });

describe("the Buckets page", () => {
  it("keeps a bucket's name whole while a Rename form is open and refused, where 'General' was cut to 'Gener / al'", async () => {
    await api(server, "POST", "/api/buckets", { name: "Travel", description: "trips and plans" });
    await page.goto(`${server.url}/buckets`);
    const row = page.locator("tbody tr", { hasText: "Travel" });
    await row.locator("summary", { hasText: "Rename" }).click();
    await row.locator("input[name=name]").fill("General");
    await row.getByRole("button", { name: "Save" }).click();
    await page.locator("tbody tr", { hasText: "Travel" }).locator("#field-error").waitFor();
    expect(await lines("tbody tr:first-child td.title a")).toBe(1);
    expect(await lines("tbody tr:nth-child(2) td.title a")).toBe(1);
  });
});

describe("the Settings page", () => {
  it("leaves a gap between the Your data panel and the backup's panel below it, where they touched", async () => {
    await page.goto(`${server.url}/settings`);
    const facts = await page.locator("dl.facts").last().boundingBox();
    const backup = await page.locator("#backup").boundingBox();
    expect(backup!.y - (facts!.y + facts!.height)).toBeGreaterThanOrEqual(12);
  });
});

describe("the Import page", () => {
  it("says what the optional platform id does and what it may hold, where the label alone said neither", async () => {
    await page.goto(`${server.url}/import`);
    const description = await page
      .locator("#import-platform")
      .evaluate((input) => input.ownerDocument.getElementById(input.getAttribute("aria-describedby") ?? "")?.textContent);
    expect(description).toBe(
      "Platform id: empty, each chat keeps its app's id (chatgpt, claude…); or one id for all of them: letters, digits, . _ -",
    );
  });
});
