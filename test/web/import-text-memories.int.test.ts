// The web's Import page in a real browser, for what an export holds besides JSON conversations: a
// Markdown transcript, and Claude's memories, counted on the page and found on the Memories page.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../helpers.js";
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

  it("says what an export left out on purpose, and why, as mnemo import does", async () => {
    await upload(path.join(EXPORTS, "chatgpt-2026-export.zip"));
    expect(await page.locator(".summary-skipped li").allTextContents()).toEqual([
      "1 × shards it lists that the export lacks (conversations-002.json) (in export_manifest.json (in chatgpt-2026-export.zip))",
      "1 × conversations without any message text (an empty New chat) (in conversations-001.json (in chatgpt-2026-export.zip))",
    ]);
    // A projects folder's subagent sessions, each a file left out: one line, naming three.
    const folder = path.join(tempDir(), "claude");
    fs.cpSync(path.join(EXPORTS, "claude-code", "projects"), path.join(folder, "projects"), { recursive: true });
    const agents = path.join(folder, "projects", "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13", "subagents");
    for (const n of [1, 2, 3, 4, 5]) fs.copyFileSync(path.join(agents, "agent-a1b2c3.jsonl"), path.join(agents, `agent-copy${n}.jsonl`));
    execFileSync("zip", ["-q", "-r", "-X", "projects.zip", "projects"], { cwd: folder });
    await upload(path.join(folder, "projects.zip"));
    const subagents = (await page.locator(".summary-skipped li").allTextContents()).filter((line) => line.includes("sub-agents'"));
    expect(subagents).toEqual([expect.stringMatching(/^6 × sub-agents' sessions .* \(in 6 files: [^,]+, [^,]+, [^,]+ and 3 more\)$/)]);
  });
});
