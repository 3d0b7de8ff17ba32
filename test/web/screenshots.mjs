// Screenshots of the web app's main pages, light and dark, at desktop and phone width, for the
// README: a fresh store with the bundled sample exports and a few memories, served by `mnemo ui`.
//
//   npm run build && node test/web/screenshots.mjs        (writes test/web/screenshots/*.png)
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = path.join(ROOT, "bin", "mnemo.js");
const OUT = path.join(ROOT, "test", "web", "screenshots");
const EXPORTS = path.join(ROOT, "fixtures", "exports");
const SIZES = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };

const home = fs.mkdtempSync(path.join(os.tmpdir(), "mnemo-shots-"));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  TZ: "UTC",
  NO_COLOR: "1",
  LANCEDB_LOG: "error",
  MNEMO_STORE: path.join(home, "store"),
  MNEMO_EMBEDDER: "bundled",
  MNEMO_RERANKER: "none",
};
const cli = (...args) => {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`mnemo ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
};

cli("import", path.join(EXPORTS, "chatgpt-export.zip"), path.join(EXPORTS, "claude-export.zip"));
cli("buckets", "create", "Travel", "-d", "trips and plans");
cli("buckets", "create", "Health");
cli("remember", "--bucket", "Travel", "Lisbon in May: stay in Alfama, take tram 28 once, before 9");
cli("remember", "--bucket", "Health", "Allergic to peanuts");
cli("remember", "My dog Biscuit is a 4-year-old golden retriever");
cli("remember", "Prefers window seats on trains");
cli("memories", "delete", "--trash", cli("remember", "The old flat's door code was 4471").trim());

const server = spawn(process.execPath, [BIN, "--json", "ui", "--no-open", "--port", "0"], { env, stdio: ["ignore", "pipe", "ignore"] });
const { url, loginUrl } = await new Promise((resolve, reject) => {
  let stdout = "";
  server.stdout.on("data", (chunk) => {
    stdout += chunk;
    try {
      resolve(JSON.parse(stdout));
    } catch {
      // not complete yet
    }
  });
  server.on("exit", (code) => reject(new Error(`mnemo ui exited with ${code}`)));
});

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
try {
  const signIn = await browser.newPage();
  await signIn.goto(loginUrl);
  await signIn.waitForURL(`${url}/memories`);
  const cookies = await signIn.context().cookies();
  const lisbon = await signIn.evaluate(async () => {
    const html = await (await fetch("/conversations?title=Lisbon")).text();
    return /href="\/conversations\/(conv_[^"]+)"/.exec(html)?.[1];
  });
  const pages = [
    ["memories", "/memories"],
    ["conversations", "/conversations"],
    ["conversation", `/conversations/${lisbon}`],
    ["search", "/search?q=tram+28"],
    ["recall", "/recall?q=what+did+we+plan+for+Lisbon&maxTokens=400"],
    ["buckets", "/buckets"],
    ["settings", "/settings"],
    ["trash", "/trash"],
  ];
  fs.mkdirSync(OUT, { recursive: true });
  for (const scheme of ["light", "dark"]) {
    for (const [device, viewport] of Object.entries(SIZES)) {
      const context = await browser.newContext({ viewport, colorScheme: scheme, deviceScaleFactor: 1 });
      await context.addCookies(cookies);
      const page = await context.newPage();
      for (const [name, route] of pages) {
        await page.goto(`${url}${route}`);
        const file = path.join(OUT, `${name}-${scheme}-${device}.png`);
        await page.screenshot({ path: file });
        console.log(path.relative(ROOT, file));
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.kill("SIGTERM");
  fs.rmSync(home, { recursive: true, force: true });
}
