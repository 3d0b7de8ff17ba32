import path from "node:path";
import axe from "axe-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { api, launchChromium, openAddMemory, startUi, type UiServer, waitUntilIndexed } from "./browser.js";

const IMAGE = path.join(ROOT, "fixtures", "images", "red-square.png");
const EXPORT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");
const WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const DESKTOP = { width: 1280, height: 860 };
/** WCAG 1.4.10 (reflow): usable at 320 CSS pixels wide, the narrowest phone. */
const PHONE = { width: 320, height: 640 };

let server: UiServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startUi(), launchChromium()]);
  context = await browser.newContext({ viewport: DESKTOP });
  page = await context.newPage();
  await page.goto(server.loginUrl);
  await page.waitForURL(`${server.url}/memories`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

interface Violation {
  id: string;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is, with every <details> opened so the forms
 * folded inside them are audited too. Returns one readable line per failing element.
 */
async function audit(target: Page): Promise<string[]> {
  // axe-core is 0.5 MB of script: injected once per document, not before each of its 4 audits (14 s of 85).
  if (!(await target.evaluate(() => "axe" in globalThis))) await target.evaluate(axe.source);
  const violations = await target.evaluate(async (tags) => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ open: boolean }> } }).document;
    for (const details of doc.querySelectorAll("details")) details.open = true;
    const run = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe
      .run;
    return (await run(doc, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] })).violations;
  }, WCAG_AA);
  return violations.flatMap((v) => v.nodes.map((node) => `${v.id} (${v.help}) at ${node.target.join(" ")}: ${node.failureSummary ?? ""}`));
}

/**
 * Where the next Tab goes: on from wherever focus is, or (just loaded, or just left by Tab) to the
 * page's first focusable element.
 */
type TabStart = "anywhere" | "top";

/**
 * The page as it is now (no reload, so a state is kept) in light and dark, at desktop and phone
 * width: axe's audit, no sideways scrolling, and (at desktop width) every element Tab reaches shows its focus.
 */
async function auditEverywhere(target: Page, what: string, start: TabStart): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    for (const viewport of [DESKTOP, PHONE]) {
      await target.emulateMedia({ colorScheme });
      await target.setViewportSize(viewport);
      const where = `${what} (${colorScheme}, ${viewport.width}px)`;
      found.push(...(await audit(target)).map((line) => `${where}: ${line}`));
      found.push(...(await sideways(target)).map((line) => `${where}: ${line}`));
      if (viewport === DESKTOP) {
        found.push(...(await tabThrough(target, start)).map((line) => `${where}: ${line}`));
        start = "top"; // the walk ended as focus left the page
      }
    }
  }
  await target.emulateMedia({ colorScheme: "light" });
  await target.setViewportSize(DESKTOP);
  return found;
}

/** Whether the page scrolls sideways, and which elements stick out past the window's right edge. */
async function sideways(target: Page): Promise<string[]> {
  return target.evaluate(() => {
    const doc = (globalThis as unknown as { document: DocumentLike }).document;
    const width = doc.documentElement.clientWidth;
    const over = doc.documentElement.scrollWidth - width;
    if (over <= 0) return [];
    const wide = [...doc.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > width);
    return [
      `the page scrolls sideways by ${over}px`,
      ...wide.map((e) => `  <${e.tagName.toLowerCase()}> “${e.textContent?.slice(0, 40)}”`),
    ];
  });
}
interface DocumentLike {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(selector: string): Iterable<ElementLike & { getBoundingClientRect(): { right: number } }>;
}

interface Focused {
  tag: string;
  id: string;
  text: string;
  /** An outline or a box-shadow ring is drawn. */
  ring: boolean;
  /** The outline's colour and the colour behind it (the nearest ancestor's opaque background), as rgb(…). */
  ringColor: string;
  behind: string;
  outline: string;
}

/** What the keyboard focused, and how its focus is drawn; undefined when focus is outside the page. */
async function focused(target: Page): Promise<Focused | undefined> {
  return target.evaluate(() => {
    const doc = (globalThis as unknown as { document: { activeElement: ElementLike | null; body: unknown } }).document;
    const element = doc.activeElement;
    if (element === null || element === doc.body) return undefined;
    const css = (e: ElementLike) => (globalThis as unknown as { getComputedStyle(e: ElementLike): CssLike }).getComputedStyle(e);
    const style = css(element);
    let behind = "rgb(255, 255, 255)";
    for (let e = element.parentElement; e; e = e.parentElement) {
      const background = css(e).backgroundColor;
      if (background !== "rgba(0, 0, 0, 0)" && background !== "transparent") {
        behind = background;
        break;
      }
    }
    return {
      tag: element.tagName.toLowerCase(),
      id: element.id,
      text: element.textContent?.trim().slice(0, 40) ?? "",
      ring: (style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none",
      ringColor: style.outlineColor,
      behind,
      outline: `${style.outlineStyle} ${style.outlineWidth}`,
    };
  });
}
interface ElementLike {
  tagName: string;
  id: string;
  textContent: string | null;
  parentElement: ElementLike | null;
}
interface CssLike {
  outlineStyle: string;
  outlineWidth: string;
  outlineColor: string;
  boxShadow: string;
  backgroundColor: string;
}

/** WCAG's contrast ratio of two opaque `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** A focus that is not drawn, or drawn in a colour under 3:1 against what is behind it (WCAG 1.4.11, 2.4.7). */
function unseenFocus(f: Focused): string | undefined {
  const what = `<${f.tag}${f.id ? ` id=${f.id}` : ""}> “${f.text}”`;
  if (!f.ring) return `${what}: no focus outline or ring (${f.outline})`;
  const ratio = contrast(f.ringColor, f.behind);
  return ratio < 3 ? `${what}: focus outline ${f.ringColor} on ${f.behind} is ${ratio.toFixed(2)}:1` : undefined;
}

/** Presses Tab until the focused element is the one wanted; every element passed on the way shows its focus. */
async function tabTo(target: Page, wanted: (f: Focused) => boolean): Promise<void> {
  for (let step = 0; step < 80; step++) {
    await target.keyboard.press("Tab");
    const now = await focused(target);
    if (!now) throw new Error("Tab left the page before it reached the element");
    expect(unseenFocus(now)).toBeUndefined();
    if (wanted(now)) return;
  }
  throw new Error("Tab never reached the element");
}

/**
 * Every element Tab reaches on the page, with how its focus shows: once round the whole page from
 * its top until focus leaves it again (no trap). Unless Tab already starts at the top (focus outside
 * a page just loaded or just left), Tab first goes on from wherever focus is until focus leaves the page.
 */
async function tabThrough(target: Page, start: TabStart): Promise<string[]> {
  const found: string[] = [];
  const atTop = start === "top" && (await focused(target)) === undefined;
  for (const checking of atTop ? [true] : [false, true]) {
    for (let step = 0; ; step++) {
      if (step === 300) return [...found, "Tab never leaves the page: a keyboard trap?"];
      await target.keyboard.press("Tab");
      const now = await focused(target);
      if (!now) break;
      const problem = checking ? unseenFocus(now) : undefined;
      if (problem && !found.includes(problem)) found.push(problem);
    }
  }
  return found;
}

describe("the web app's accessibility", () => {
  it("adds an image memory through the page and shows it as an image, loaded through its signed /images/ URL", async () => {
    await page.goto(`${server.url}/memories`);
    await openAddMemory(page);
    await page.setInputFiles("#new-image", IMAGE);
    await page.fill("#new-image-description", "A red square");
    await page.getByRole("button", { name: "Add image" }).click();
    await page.getByText("Image memory added.").waitFor();
    const image = page.locator("img.memory-image[alt='A red square']");
    await image.scrollIntoViewIfNeeded();
    await expect.poll(() => image.evaluate((img) => (img as unknown as { complete: boolean }).complete)).toBe(true);
    expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(24);
    const src = new URL((await image.getAttribute("src")) ?? "", server.url);
    expect(src.pathname).toMatch(/^\/images\/mem_/);
    expect(src.searchParams.get("sig")).toBeTruthy();
    const unsigned = await page.evaluate((url) => fetch(url).then((r) => r.status), src.pathname);
    expect(unsigned).not.toBe(200);
  });

  it("from the Memories page, the keyboard alone adds a text memory and reaches the search box, its focus always visible", async () => {
    await page.goto(`${server.url}/memories`);
    await tabTo(page, (f) => f.tag === "summary" && f.text === "Add a memory");
    await page.keyboard.press("Space");
    await tabTo(page, (f) => f.id === "new-text");
    await page.keyboard.type("Keyboard only: prefers tea to coffee");
    await tabTo(page, (f) => f.tag === "button" && f.text === "Add memory");
    await page.keyboard.press("Enter");
    await page.getByText("Memory added.").waitFor();
    expect(await page.locator("li.item", { hasText: "prefers tea to coffee" }).count()).toBe(1);

    await tabTo(page, (f) => f.id === "memory-query");
    await page.keyboard.type("tea");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/memories\?q=tea/);
    await page.locator("li.item", { hasText: "prefers tea to coffee" }).waitFor();
  });

  it("has no WCAG 2 A/AA violation on any page or state, light and dark, desktop and phone width; focus always shows; no page scrolls sideways", async () => {
    await api(server, "POST", "/api/memory", { text: "Lisbon in May: stay in Alfama, take tram 28 once" });
    const upload = await api<{ conversationId: string }>(server, "POST", "/api/chat-history/ingest/custom-online", {
      platform: "custom",
      conversation: {
        id: "a11y-1",
        title: "Planning Lisbon",
        createdAt: "2025-05-01T10:00:00Z",
        messages: [
          { id: "a", role: "human", content: "How do we get from the airport to Alfama? Is **tram 28** worth it?" },
          {
            id: "b",
            role: "assistant",
            content: `Take the metro, then walk.\n\n\`\`\`sh\necho "tram 28: ${"a long line ".repeat(20)}"\n\`\`\`\n\n> Go before 9.\n\n| Line | Stop |\n| --- | --- |\n| 28 | Alfama |`,
          },
        ],
      },
    });
    const found: string[] = [];
    const check = async (target: Page, what: string, start: TabStart = "anywhere") =>
      found.push(...(await auditEverywhere(target, what, start)));

    // The sign-in form, and its error, as someone without a session sees them.
    const visitor = await browser.newPage();
    await visitor.goto(`${server.url}/login`);
    await check(visitor, "/login", "top");
    await visitor.fill("#token", "mnemo_wrong");
    await visitor.click("button[type=submit]");
    await visitor.getByText("That token is not valid").waitFor();
    await check(visitor, "/login with an error");
    await visitor.close();

    // The Import page after it imported, with its progress, summary and recent imports.
    await page.goto(`${server.url}/import`);
    await page.setInputFiles("#import-file", EXPORT);
    await page.getByRole("button", { name: "Upload and import" }).click();
    await page.getByText("is imported and searchable").waitFor({ timeout: 60_000 });
    await check(page, "/import after an import");
    await waitUntilIndexed(server);

    const { body: listed } = await api<{ memories: { id: string }[] }>(server, "GET", "/api/v2/memory?includeIds=true");
    const routes = [
      "/memories",
      "/memories?q=tram",
      "/memories?bucket=1", // a bucket chosen: its button, with its count, in the accent colour
      `/memories/${listed.memories[0]?.id}/history`,
      "/buckets",
      "/conversations",
      "/conversations?platform=custom&pinned=1",
      `/conversations/${upload.body.conversationId}`,
      "/search?q=tram+28",
      "/recall?q=how+do+we+get+to+Alfama&maxTokens=300",
      "/import",
      "/settings",
      "/trash",
      "/conversations/conv_00000000000000000000000000", // the error page
      "/conversations?title=Lisbon&from=2025-13-45", // a filter refused at its field
      "/recall?q=tram&from=2025-13-45", // a field of the form refused
    ];
    for (const route of routes) {
      const response = await page.goto(`${server.url}${route}`);
      expect(response?.status(), route).toBe(route.includes("conv_000") ? 404 : route.includes("2025-13-45") ? 400 : 200);
      await check(page, route, "top");
    }

    // A delete's message with its Undo, and the trash holding it, with its confirmations.
    await api(server, "POST", "/api/memory", { text: "A memory for the trash" });
    await page.goto(`${server.url}/memories`);
    await page.locator("li.item", { hasText: "A memory for the trash" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("Moved 1 memory to the trash.").waitFor();
    await check(page, "/memories after a delete, with Undo");
    await page.goto(`${server.url}/trash`);
    await check(page, "/trash holding a memory", "top");
    await page.getByRole("button", { name: "Delete for good" }).click();
    await check(page, "the confirmation of deleting for good");
    await page.goto(`${server.url}/trash`);
    await page.getByRole("button", { name: "Empty the trash" }).click();
    await check(page, "the confirmation of emptying the trash");

    // A message after an action, and a confirmation page.
    await page.goto(`${server.url}/buckets`);
    await page.fill("#bucket-name", "Trips");
    await page.getByRole("button", { name: "Create bucket" }).click();
    await page.getByText("Created bucket “Trips”.").waitFor();
    await check(page, "/buckets after creating one");
    await page.locator("tr", { hasText: "Trips" }).locator("button", { hasText: "Delete" }).click();
    await check(page, "the confirmation of a bucket's deletion");
    // Last, as it changes the token: the new token, shown once with its copy button.
    await page.goto(`${server.url}/settings`);
    await page.getByRole("button", { name: "Rotate token" }).click();
    await page.locator("main button", { hasText: "Rotate token" }).click();
    await page.locator("#new-token").waitFor();
    await check(page, "/settings with a new token");

    expect(found).toEqual([]);
  }, 300_000);
});
