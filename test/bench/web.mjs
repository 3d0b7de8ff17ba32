// The web app (issues 29, 39): with 20,000 conversations and 10,000 memories in the store, each page's
// time to first byte (p50 target ≤ 50 ms, the conversation list ≤ 100 ms), the app's own script
// and style gzipped (≤ 100 KB), and a conversation of 2,000 messages in Chromium: how long the
// page takes to show and whether it freezes (long tasks, measured with Playwright).
//
//   node test/bench/web.mjs [--quick]
//
// The store is filled directly (lib.mjs): memories with perturbed vectors, conversation rows with
// their messages and one chunk each. The 2,000-message conversation is uploaded and indexed through
// the service, as an import would. The server runs as `mnemo ui --no-open` in its own process; the
// requests come one at a time from this process, on the same 2 cores.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { request } from "undici";
import {
  BIN,
  QUICK,
  benchEnv,
  chunkRow,
  conversationRow,
  embedBase,
  fmt,
  heading,
  insertMemories,
  perturbed,
  rng,
  summary,
  table,
  tempDir,
  textSource,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { waitForQueue } from "../../dist/core/jobs/import-file.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { newId } from "../../dist/shared/ids.js";

const SIZES = {
  conversations: 20_000,
  memories: 10_000,
  longMessages: 2_000,
  baseTexts: QUICK ? 200 : 500,
  requests: QUICK ? 15 : 40,
  warmup: 3,
  batch: 5_000,
};
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Conversation rows, their messages (6 each) and one chunk each, written straight into the store. */
async function fillConversations(app, userId, bases, text) {
  const r = rng(5);
  const store = app.context.store;
  await store.write(() =>
    store.add("platforms", [{ userId, id: "bench", displayName: "Bench", importId: "imp_bench", createdAt: new Date(0).toISOString() }]),
  );
  for (let start = 0; start < SIZES.conversations; start += SIZES.batch) {
    const conversations = [];
    const messages = [];
    const chunks = [];
    for (let c = start; c < Math.min(SIZES.conversations, start + SIZES.batch); c++) {
      const id = newId("conv");
      const created = new Date(Date.UTC(2023, 0, 1) + c * 1_800_000).toISOString();
      const topic = text.topic();
      conversations.push(conversationRow(userId, id, text.sentence(topic).split(" ").slice(0, 8).join(" "), created, 3));
      const stored = Array.from({ length: 6 }, (_, m) => ({
        id: `${id}-m${m}`,
        sender: m % 2 === 0 ? "human" : "assistant",
        text: text.passage(m % 2 === 0 ? 25 : 90, topic),
        timestamp: new Date(Date.parse(created) + m * 45_000).toISOString(),
      }));
      messages.push({ id: `${id}:1`, userId, conversationId: id, revision: 1, messagesJson: JSON.stringify(stored) });
      const lead = stored.slice(0, 2).map((m) => ({ id: m.id, sender: m.sender, text: m.text, time: m.timestamp }));
      chunks.push(chunkRow(userId, id, 0, lead, perturbed(bases[c % bases.length], r)));
    }
    await store.write(async () => {
      await store.add("conversations", conversations);
      await store.add("messages", messages);
      await store.add("chunks", chunks);
    });
  }
}

/** A conversation of 2,000 messages with markdown and code, uploaded and indexed as an import would. */
async function uploadLongConversation(service, text) {
  const messages = Array.from({ length: SIZES.longMessages }, (_, i) => ({
    id: `long-${i}`,
    role: i % 2 === 0 ? "human" : "assistant",
    content:
      i % 2 === 0
        ? text.passage(20)
        : `${text.passage(60)}\n\n- **${text.passage(4)}**: ${text.passage(12)}\n- ${text.passage(10)}\n\n\`\`\`js\nconst x${i} = ${i};\nconsole.log(x${i} * 2);\n\`\`\``,
    createdAt: new Date(Date.UTC(2024, 5, 1) + i * 30_000).toISOString(),
  }));
  const [result] = await service.conversations.uploadMany([
    { platform: "bench", conversation: { id: "long-one", title: "A very long conversation", createdAt: messages[0].createdAt, messages } },
  ]);
  await waitForQueue(service, { pollMs: 200 });
  return result.conversationId;
}

async function prepareStore(store) {
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  const user = await app.users.resolve("default");
  const text = textSource(29);
  const { vectors: bases } = await embedBase(
    app,
    Array.from({ length: SIZES.baseTexts }, () => text.passage(80)),
  );
  const started = performance.now();
  await insertMemories(app, { newId, userId: user.id, count: SIZES.memories, text: () => text.memory(), bases });
  await fillConversations(app, user.id, bases, text);
  await app.maintenance.run();
  app.indexer.start();
  const service = await app.service();
  const longId = await uploadLongConversation(service, text);
  // Inserted rows have no history: one memory stored and edited as a user would, for its history page.
  const { memoryId } = await service.memories.store({ text: "My dog Biscuit is a golden retriever" });
  await service.memories.update({ memoryId, text: "My dog Biscuit is a 4-year-old golden retriever" });
  const [short] = await app.context.store.select("conversations", `userId = '${user.id}' AND platform = 'bench'`, {
    limit: 1,
    columns: ["id"],
  });
  // A trash with something in it, as the web app's deletes leave it: 200 memories and 50 conversations.
  const trashed = async (key, count) =>
    (await app.context.store.select(key, `userId = '${user.id}'`, { limit: count + 1, columns: ["id"] }))
      .map((row) => row.id)
      .filter((id) => id !== short.id && id !== longId && id !== memoryId)
      .slice(0, count);
  await service.trash.move({ memoryIds: await trashed("memories", 200), conversationIds: await trashed("conversations", 50) });
  console.error(`  store filled in ${fmt((performance.now() - started) / 1000)} s`);
  await app.close();
  return { longId, memoryId, shortId: short.id };
}

function startUi(store) {
  const child = spawn(process.execPath, [BIN, "--json", "ui", "--no-open", "--port", "0"], {
    env: benchEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" }),
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      try {
        resolve({ child, ...JSON.parse(stdout) });
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo ui exited with ${code}`)));
  });
}

/** Signs in with the one-time link, as a browser would, and returns the session cookie. */
async function signIn(loginUrl) {
  const response = await request(loginUrl);
  await response.body.dump();
  const cookie = [response.headers["set-cookie"]].flat()[0];
  return cookie.split(";")[0];
}

/** Milliseconds from sending a request to its first byte (undici resolves on the response's head). */
async function firstByte(url, cookie, options = {}) {
  const samples = [];
  for (let i = 0; i < SIZES.warmup + SIZES.requests; i++) {
    const started = performance.now();
    const response = await request(url, { ...options, headers: { cookie, "accept-encoding": "gzip", ...options.headers } });
    const ms = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    const body = await response.body.arrayBuffer();
    if (i >= SIZES.warmup) samples.push({ ms, bytes: body.byteLength });
  }
  return { ...summary(samples.map((s) => s.ms)), bytes: samples[0].bytes };
}

async function assetSizes(base) {
  const sizes = {};
  for (const name of ["app.js", "app.css"]) {
    const plain = await request(`${base}/assets/${name}`);
    const gzipped = await request(`${base}/assets/${name}`, { headers: { "accept-encoding": "gzip" } });
    sizes[name] = { bytes: (await plain.body.arrayBuffer()).byteLength, gzipped: (await gzipped.body.arrayBuffer()).byteLength };
  }
  return sizes;
}

/** The long conversation in Chromium: time to show, long tasks while it loads, and a scroll to the end. */
async function longConversation(base, cookie, longId) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const runs = [];
  try {
    for (const target of ["top", "last message"]) {
      for (let run = 0; run < (QUICK ? 2 : 4); run++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const [name, value] = cookie.split("=");
        await context.addCookies([{ name, value, url: base, httpOnly: true, sameSite: "Strict" }]);
        const page = await context.newPage();
        await page.addInitScript(() => {
          window.__longTasks = [];
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
          }).observe({ type: "longtask", buffered: true });
        });
        const url =
          target === "top" ? `${base}/conversations/${longId}` : `${base}/conversations/${longId}?at=long-${SIZES.longMessages - 1}#hit`;
        await page.goto(url, { waitUntil: "load" });
        await page.waitForTimeout(500);
        const scrolled = await page.evaluate(async () => {
          const started = performance.now();
          window.scrollTo(0, document.body.scrollHeight);
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          return performance.now() - started;
        });
        await page.waitForTimeout(300);
        const measured = await page.evaluate(() => {
          const nav = performance.getEntriesByType("navigation")[0];
          const paint = performance.getEntriesByName("first-contentful-paint")[0];
          return {
            responseStartMs: nav.responseStart,
            firstPaintMs: paint?.startTime ?? null,
            domContentLoadedMs: nav.domContentLoadedEventEnd,
            loadMs: nav.loadEventEnd,
            htmlBytes: nav.transferSize,
            longTasks: window.__longTasks,
            messages: document.querySelectorAll(".msg").length,
          };
        });
        const hitOnScreen =
          target === "top"
            ? null
            : await page.evaluate(() => {
                const box = document.getElementById("hit").getBoundingClientRect();
                return box.top >= 0 && box.top < window.innerHeight;
              });
        runs.push({
          target,
          ...measured,
          longestTaskMs: Math.max(0, ...measured.longTasks),
          blockingMs: measured.longTasks.reduce((sum, d) => sum + Math.max(0, d - 50), 0),
          scrollToEndMs: scrolled,
          hitOnScreen,
        });
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  return runs;
}

async function main() {
  console.log(`## Web app bench${QUICK ? " (quick)" : ""}`);
  const store = tempDir("web");
  const ids = await prepareStore(store);
  const server = await startUi(store);
  try {
    const cookie = await signIn(server.loginUrl);
    const base = server.url;
    const pages = [
      ["Memories (latest 50)", "/memories"],
      ["Memories, a bucket", "/memories?bucket=1"],
      ["Memories, page 100", "/memories?page=100"],
      ["Memories, a query", "/memories?q=weekend+trip+plans"],
      ["Memory history", `/memories/${ids.memoryId}/history`],
      ["Buckets", "/buckets"],
      ["Conversations (page 1)", "/conversations"],
      ["Conversations, page 200", "/conversations?page=200"],
      ["Conversations, title filter", "/conversations?title=garden"],
      ["A conversation (6 messages)", `/conversations/${ids.shortId}`],
      ["A conversation (2,000 messages)", `/conversations/${ids.longId}`],
      ["Search (form)", "/search"],
      ["Search, a query", "/search?q=sourdough+starter"],
      ["Recall, a query", "/recall?q=what+did+we+plan+for+the+garden"],
      ["Import", "/import"],
      ["Settings", "/settings"],
      ["Trash (250 items)", "/trash"],
    ];
    const firstBytes = [];
    for (const [name, route] of pages) {
      firstBytes.push({ name, route, ...(await firstByte(`${base}${route}`, cookie)) });
      console.error(`  ${name}: p50 ${fmt(firstBytes.at(-1).p50)} ms`);
    }
    // The same work through the API, for what the page adds to it.
    const token = fs.readFileSync(path.join(store, "token"), "utf8").trim();
    const bearer = { authorization: `Bearer ${token}` };
    const json = (body) => ({ method: "POST", body: JSON.stringify(body), headers: { ...bearer, "content-type": "application/json" } });
    const apiCalls = [
      ["API: memory query (v2)", "/api/v2/memory?query=weekend+trip+plans&count=50&includeIds=true", { headers: bearer }],
      ["API: conversations (page 1 of 50)", "/api/chat-history/chats?pageSize=50", { headers: bearer }],
      ["API: search", "/api/chat-history/search", json({ query: "sourdough starter" })],
      ["API: recall", "/api/chat-history/inject", json({ query: "what did we plan for the garden" })],
    ];
    for (const [name, route, options] of apiCalls) firstBytes.push({ name, route, ...(await firstByte(`${base}${route}`, "", options)) });
    heading(
      `First byte, one request at a time (${SIZES.conversations.toLocaleString("en-US")} conversations, ${SIZES.memories.toLocaleString("en-US")} memories)`,
    );
    console.log(
      table(
        [
          ["page", (r) => r.name, "l"],
          ["p50 ms", (r) => fmt(r.p50)],
          ["p95 ms", (r) => fmt(r.p95)],
          ["HTML KB (gzip off)", (r) => fmt(r.bytes / 1024)],
        ],
        firstBytes,
      ),
    );
    const assets = await assetSizes(base);
    heading("The app's own script and style");
    console.log(
      table(
        [
          ["file", ([name]) => name, "l"],
          ["bytes", ([, s]) => s.bytes],
          ["gzipped", ([, s]) => s.gzipped],
        ],
        [
          ...Object.entries(assets),
          [
            "total",
            { bytes: assets["app.js"].bytes + assets["app.css"].bytes, gzipped: assets["app.js"].gzipped + assets["app.css"].gzipped },
          ],
        ],
      ),
    );
    let browserRuns;
    if (fs.existsSync(CHROMIUM)) {
      browserRuns = await longConversation(base, cookie, ids.longId);
      heading(`A conversation of ${SIZES.longMessages.toLocaleString("en-US")} messages in Chromium (medians of the runs)`);
      const by = (target, key) => summary(browserRuns.filter((r) => r.target === target).map((r) => r[key])).p50;
      console.log(
        table(
          [
            ["opened at", (t) => t, "l"],
            ["first paint ms", (t) => fmt(by(t, "firstPaintMs"))],
            ["DOMContentLoaded ms", (t) => fmt(by(t, "domContentLoadedMs"))],
            ["load ms", (t) => fmt(by(t, "loadMs"))],
            ["longest task ms", (t) => fmt(by(t, "longestTaskMs"))],
            ["blocking ms (Σ task − 50)", (t) => fmt(by(t, "blockingMs"))],
            ["scroll to end ms", (t) => fmt(by(t, "scrollToEndMs"))],
          ],
          ["top", "last message"],
        ),
      );
      const hits = browserRuns.filter((r) => r.target === "last message");
      console.log(`\nThe cited last message was on screen in ${hits.filter((r) => r.hitOnScreen).length} of ${hits.length} runs.`);
    } else console.log(`\n(${CHROMIUM} is missing: the browser part is skipped; apt-get install chromium)`);
    writeResults("web", { sizes: SIZES, firstBytes, assets, browser: browserRuns ?? null });
  } finally {
    server.child.kill("SIGTERM");
  }
}

await main();
