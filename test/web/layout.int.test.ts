import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { api, launchChromium, startUi, type UiServer, waitUntilIndexed } from "./browser.js";

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

describe("the Recall page", () => {
  it("names what wrote a summary as such, and no model when nothing was found, where it said '9 tokens · none · 155ms'", async () => {
    await api(server, "POST", "/api/memory", { text: "2025-03-03 Nothing here is about conversations" });
    await page.goto(`${server.url}/recall?q=${encodeURIComponent("what did the plumber quote for the boiler?")}`);
    const meta = (await page.locator("#recall-heading ~ p.meta").first().textContent())!.replace(/\s+/g, " ").trim();
    expect(meta).toMatch(/^\d+ tokens · \d+ ?ms$/);
    await api(server, "POST", "/api/chat-history/ingest/custom-online", {
      platform: "custom",
      conversation: {
        id: "boiler",
        title: "Boiler repair",
        createdAt: "2025-05-01T10:00:00Z",
        messages: [
          { id: "b1", role: "human", content: "The plumber quoted 480 euros to replace the boiler's pump." },
          { id: "b2", role: "assistant", content: "480 euros for a pump swap is within the usual range." },
        ],
      },
    });
    await waitUntilIndexed(server);
    await page.goto(`${server.url}/recall?q=${encodeURIComponent("what did the plumber quote for the boiler?")}`);
    const found = (await page.locator("#recall-heading ~ p.meta").first().textContent())!.replace(/\s+/g, " ").trim();
    expect(found).toMatch(/^\d+ tokens · summary: extractive · \d+ ?ms$/);
  });
});

describe("an image memory", () => {
  it("keeps a small image a rounded square, where its corners' 8 px radius rounded a 24 px square nearly to a circle", async () => {
    const png = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png")); // 24 × 24, red
    await api(server, "POST", "/api/v2/memory/image", { data: png.toString("base64"), filename: "red.png", description: "Small red" });
    await page.goto(`${server.url}/memories`);
    const image = page.locator("img.memory-image[alt='Small red']");
    await expect.poll(() => image.evaluate((img) => (img as unknown as { complete: boolean }).complete)).toBe(true);
    const shot = (await image.screenshot()).toString("base64");
    // The pixel 2 px in from the corner, inside the 1 px border: the image's red under a small radius, outside the curve (the page's white) under 8 px.
    // Read in a blank page, which no Content-Security-Policy keeps from a data: URL, as a script: the test's types know no canvas.
    const blank = await browser.newPage();
    const [red, green, blue] = (await blank.evaluate(`(async () => {
      const bitmap = await createImageBitmap(await (await fetch("data:image/png;base64,${shot}")).blob());
      const context = new OffscreenCanvas(bitmap.width, bitmap.height).getContext("2d");
      context.drawImage(bitmap, 0, 0);
      return [...context.getImageData(2, 2, 1, 1).data];
    })()`)) as number[];
    await blank.close();
    expect(red).toBeGreaterThan(200);
    expect(Math.max(green!, blue!)).toBeLessThan(80);
  });
});
