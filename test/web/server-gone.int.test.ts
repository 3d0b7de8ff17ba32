import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { launchChromium, startUi, type UiServer } from "./browser.js";

/** The web app's page left open while its server stops, in a real Chromium: the server is stopped for real. */

let server: UiServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startUi(), launchChromium()]);
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(server.loginUrl);
  await page.waitForURL(`${server.url}/memories`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the Import page, its server stopped while it follows an import", () => {
  it("says it lost contact with the server and gives the button back, where it said 'Waiting…' for ever", async () => {
    await page.goto(`${server.url}/import`);
    // The server stops once the upload is answered, before the page asks how the import goes.
    await page.route("**/import/jobs/**", async (route) => {
      await server.stop();
      await route.continue();
    });
    await page.setInputFiles("#import-file", path.join(ROOT, "fixtures", "exports", "claude-export.zip"));
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.locator("#import-status", { hasText: "Lost contact with the server" }).waitFor({ timeout: 30_000 });
    expect(await page.locator("#import-status").textContent()).toBe(
      "Lost contact with the server: is mnemo still running? Once it is, reload this page: Recent imports says how the import went.",
    );
    expect(await page.getByRole("button", { name: "Upload and import" }).isDisabled()).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});
