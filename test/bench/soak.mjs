// Soak (issue 30, item 5): `mnemo serve` on 127.0.0.1 under a bounded load of 50 connections for
// 60 s, mixing reads, memory writes, searches and an import (`mnemo import --remote` of a generated
// ChatGPT export), with the server killed (kill -9) in the middle and started again on the same
// store and port. Then, once the index queue is empty:
//
//   - every 5xx is counted, and those outside the restart window (the kill to 1 s after the new
//     server answers /healthz) must be none;
//   - every memory write the server acknowledged must be stored exactly once, and no write twice;
//   - the import, run again after the restart (an interrupted import is run again), must leave every
//     conversation once, all of them ready;
//   - the server's RSS, sampled every second, must be flat after warm-up (the first 10 s of each life).
//
//   node test/bench/soak.mjs [--quick] [--seconds N] [--connections N]
//
// The load generator and the import run on the same 2 cores as the server. Prints Markdown tables;
// writes results/soak.json.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import {
  BIN,
  QUICK,
  ROOT,
  benchEnv,
  fmt,
  heading,
  mean,
  percentile,
  rssMB,
  serveProcess,
  sleep,
  table,
  tempDir,
  writeResults,
} from "./lib.mjs";

const { values: args } = parseArgs({
  options: { quick: { type: "boolean" }, seconds: { type: "string" }, connections: { type: "string" } },
});
const SECONDS = Number(args.seconds ?? (QUICK ? 30 : 60));
const CONNECTIONS = Number(args.connections ?? 50);
const KILL_AT = SECONDS / 2;
const IMPORT_AT = 2; // within the warm-up: the import loads the tokenizer and fills the queue
const EXPORT_MB = QUICK ? 1 : 3;
const WARM_UP_S = 10;

const dir = tempDir("soak");
const store = path.join(dir, "store");
const exportFile = path.join(dir, "conversations.json");
const generated = spawn(process.execPath, [path.join(ROOT, "test/bench/generate-chatgpt-export.mjs"), exportFile, String(EXPORT_MB)], {
  stdio: "ignore",
});
await new Promise((resolve) => generated.on("close", resolve));

let server = await serveProcess(store);
const { port } = new URL(server.url);
const dispatcher = new Agent({ connections: CONNECTIONS, headersTimeout: 30_000, bodyTimeout: 30_000 });
const headers = () => ({ authorization: `Bearer ${server.token}`, "content-type": "application/json" });

/** One request: its status (0 when the connection failed), when it started (s into the soak) and took. */
async function call(method, pathAndQuery, body) {
  const started = performance.now();
  try {
    const res = await request(`${server.url}${pathAndQuery}`, {
      method,
      headers: headers(),
      body: body === undefined ? null : JSON.stringify(body),
      dispatcher,
    });
    const text = await res.body.text();
    return { status: res.statusCode, text, started, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, text: String(error?.code ?? error), started, ms: performance.now() - started };
  }
}

// Warm-up: the model loads on the first write.
for (let i = 0; i < 5; i++) await call("POST", "/api/memory", { text: `warm-up ${i}: the tram to Alfama` });

const t0 = performance.now();
const at = () => (performance.now() - t0) / 1000;
const log = []; // { kind, status, t, ms }
const acknowledged = new Map(); // text → memoryId
let writeNo = 0;
let killedAt;
let readyAt;

const WORDS = ["tram", "Alfama", "sourdough", "starter", "marathon", "tempo", "kanji", "garden", "compost", "python", "budget", "Lisbon"];
const word = (i) => WORDS[i % WORDS.length];

const kinds = {
  read: async (i) => {
    const paths = [
      "/api/memory?latest=true&count=20",
      "/api/buckets",
      "/api/chat-history/chats?pageSize=20",
      "/api/v2/memory?count=10",
      "/api/chat-history/count",
    ];
    return call("GET", paths[i % paths.length]);
  },
  write: async () => {
    const text = `soak write ${writeNo++}: ${word(writeNo)} and ${word(writeNo * 7)}`;
    const answer = await call("POST", "/api/memory", { text });
    if (answer.status === 200) acknowledged.set(text, JSON.parse(answer.text).memoryId);
    return answer;
  },
  search: async (i) =>
    i % 2
      ? call("GET", `/api/memory?query=${encodeURIComponent(`${word(i)} ${word(i + 3)}`)}`)
      : call("POST", "/api/chat-history/search", { query: `${word(i)} ${word(i + 5)}`, limit: 5, skipRerank: true }),
};
const MIX = ["read", "read", "write", "write", "search"]; // per connection: 40% reads, 40% writes, 20% searches

async function worker(k) {
  for (let i = k; at() < SECONDS; i += CONNECTIONS) {
    const kind = MIX[k % MIX.length];
    const answer = await kinds[kind](i);
    log.push({
      kind,
      status: answer.status,
      t: (answer.started - t0) / 1000,
      ms: answer.ms,
      error: answer.status >= 500 ? answer.text.slice(0, 200) : undefined,
    });
    if (answer.status === 0) await sleep(100); // the server is down: do not spin
  }
}

/** `mnemo import --remote` of the export; its exit code and summary. */
function runImport() {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [BIN, "--json", "import", "--no-wait", "--remote", server.url, "--token", server.token, exportFile],
      {
        env: benchEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      let summary;
      try {
        summary = JSON.parse(out);
      } catch {
        summary = undefined;
      }
      resolve({ code, summary, stderr: err.slice(-500) });
    });
  });
}

const rss = []; // { t, mb, life, cacheMB }
let life = 1;
const sampler = setInterval(() => {
  const sample = { t: at(), mb: rssMB(server.pid), life };
  rss.push(sample);
  cacheMB().then(
    (mb) => (sample.cacheMB = mb),
    () => undefined, // during the restart
  );
}, 1000);

/** What LanceDB's caches hold in the server (GET /api/info): the part of its RSS that is bounded by design. */
async function cacheMB() {
  const res = await request(`${server.url}/api/info`, { headers: headers(), dispatcher });
  return (await res.body.json()).cacheBytes / 2 ** 20;
}

const imports = [];
const importRun = (async () => {
  await sleep(IMPORT_AT * 1000);
  imports.push({ startedAt: at(), ...(await runImport()) });
})();

const crash = (async () => {
  await sleep(KILL_AT * 1000);
  killedAt = at();
  await server.kill();
  life = 2;
  server = await serveProcess(store, { port: Number(port) });
  readyAt = at();
})();

await Promise.all([...Array.from({ length: CONNECTIONS }, (_, k) => worker(k)), crash, importRun]);
clearInterval(sampler);
const loadSeconds = at();

// The import again, to its end: an interrupted one is run again, and a finished one changes nothing.
imports.push({ startedAt: at(), ...(await runImport()) });

// Everything queued gets indexed, the killed server's batch included.
let queue;
for (let waited = 0; waited < 600; waited++) {
  queue = JSON.parse((await call("GET", "/api/chat-history/status")).text);
  if (queue.counts.queued + queue.counts.processing === 0) break;
  await sleep(1000);
}

// Every acknowledged write once, and no write twice.
const stored = JSON.parse((await call("GET", "/api/memory?all=true&v=1&count=1000")).text);
const times = new Map();
for (const text of stored) times.set(text, (times.get(text) ?? 0) + 1);
const missing = [...acknowledged.keys()].filter((text) => !times.has(text));
const duplicated = [...times].filter(([text, n]) => text.startsWith("soak write") && n > 1);
const unacknowledgedStored = stored.filter((text) => text.startsWith("soak write") && !acknowledged.has(text)).length;

// Every conversation of the export once.
const chats = [];
for (let page = 1; ; page++) {
  const listed = JSON.parse((await call("GET", `/api/chat-history/chats?page=${page}&pageSize=100`)).text);
  chats.push(...listed.items);
  if (page >= listed.totalPages) break;
}
const conversationsInExport = imports.at(-1).summary
  ? imports.at(-1).summary.new + imports.at(-1).summary.updated + imports.at(-1).summary.unchanged
  : undefined;
const byTitle = new Map();
for (const chat of chats)
  byTitle.set(
    `${chat.platform}\u0000${chat.title}\u0000${chat.createdAt}`,
    (byTitle.get(`${chat.platform}\u0000${chat.title}\u0000${chat.createdAt}`) ?? 0) + 1,
  );
const duplicatedChats = [...byTitle.values()].filter((n) => n > 1).length;

dispatcher.close();
await server.stop();

// ---- figures ----
const restartEnd = (readyAt ?? killedAt) + 1;
/** In flight at some time of the restart window (a request the kill cut started before it). */
const inWindow = (r) => killedAt !== undefined && r.t <= restartEnd && r.t + r.ms / 1000 >= killedAt;
const fivexx = log.filter((r) => r.status >= 500);
const fivexxOutside = fivexx.filter((r) => !inWindow(r));
const failedOutside = log.filter((r) => r.status === 0 && !inWindow(r));
const byKind = Object.fromEntries(
  Object.keys(kinds).map((kind) => {
    const rows = log.filter((r) => r.kind === kind && r.status > 0 && r.status < 500);
    return [
      kind,
      {
        requests: rows.length,
        perSecond: rows.length / loadSeconds,
        p50Ms: percentile(
          rows.map((r) => r.ms),
          50,
        ),
        p95Ms: percentile(
          rows.map((r) => r.ms),
          95,
        ),
      },
    ];
  }),
);
/** RSS after warm-up in each life of the server: the mean of its first and last 5 s, and the slope. */
const rssLife = (n) => {
  const samples = rss.filter((s) => s.life === n && s.mb > 0);
  const start = samples[0]?.t ?? 0;
  const after = samples.filter((s) => s.t - start >= WARM_UP_S);
  if (after.length < 4) return { samples: samples.length };
  const head = mean(after.slice(0, 5).map((s) => s.mb));
  const tail = mean(after.slice(-5).map((s) => s.mb));
  const minutes = (after.at(-1).t - after[0].t) / 60;
  // RSS without LanceDB's caches, which grow to their bound (576 MB) as indexes are rebuilt.
  const beside = after.filter((s) => s.cacheMB !== undefined).map((s) => s.mb - s.cacheMB);
  return {
    samples: samples.length,
    firstMB: head,
    lastMB: tail,
    peakMB: Math.max(...samples.map((s) => s.mb)),
    mbPerMinute: minutes > 0 ? (tail - head) / minutes : 0,
    cacheFirstMB: mean(after.slice(0, 5).map((s) => s.cacheMB ?? 0)),
    cacheLastMB: mean(after.slice(-5).map((s) => s.cacheMB ?? 0)),
    besideCachesFirstMB: mean(beside.slice(0, 5)),
    besideCachesLastMB: mean(beside.slice(-5)),
  };
};
const rssLives = [rssLife(1), rssLife(2)];

heading(`Soak: ${CONNECTIONS} connections for ${SECONDS} s, kill -9 at ${fmt(killedAt, 1)} s, answering again at ${fmt(readyAt, 1)} s`);
console.log(`Load average at the end: ${fs.readFileSync("/proc/loadavg", "utf8").trim()} (other work shares the machine)\n`);
console.log(
  table(
    [
      ["kind", (r) => r[0], "l"],
      ["answered", (r) => r[1].requests],
      ["per second", (r) => fmt(r[1].perSecond, 0)],
      ["p50 ms", (r) => fmt(r[1].p50Ms, 0)],
      ["p95 ms", (r) => fmt(r[1].p95Ms, 0)],
    ],
    Object.entries(byKind),
  ),
);
console.log();
console.log(
  table(
    [
      ["check", (r) => r[0], "l"],
      ["result", (r) => r[1], "l"],
    ],
    [
      ["5xx outside the restart window", `${fivexxOutside.length} (in it: ${fivexx.length - fivexxOutside.length})`],
      ["connection failures outside the restart window", String(failedOutside.length)],
      [
        "acknowledged writes",
        `${acknowledged.size}: ${missing.length} missing, ${duplicated.length} stored twice; ${unacknowledgedStored} unacknowledged ones stored`,
      ],
      [
        "import",
        imports
          .map(
            (r) =>
              `exit ${r.code}${r.summary ? ` (${r.summary.new} new, ${r.summary.updated} updated, ${r.summary.unchanged} unchanged)` : ""}`,
          )
          .join("; then "),
      ],
      [
        "conversations",
        `${chats.length} stored (the export holds ${conversationsInExport ?? "?"}), ${duplicatedChats} twice, ${chats.filter((c) => c.status !== "ready").length} not ready`,
      ],
      ...rssLives.map((r, i) => [
        `RSS, life ${i + 1} after ${WARM_UP_S} s`,
        r.firstMB === undefined
          ? `${r.samples} samples`
          : `${fmt(r.firstMB, 0)} → ${fmt(r.lastMB, 0)} MB (${fmt(r.mbPerMinute, 0)} MB/min), peak ${fmt(r.peakMB, 0)}; LanceDB's caches ${fmt(r.cacheFirstMB, 0)} → ${fmt(r.cacheLastMB, 0)} MB, the rest ${fmt(r.besideCachesFirstMB, 0)} → ${fmt(r.besideCachesLastMB, 0)} MB`,
      ]),
    ],
  ),
);

writeResults("soak", {
  seconds: SECONDS,
  connections: CONNECTIONS,
  loadAverage: fs.readFileSync("/proc/loadavg", "utf8").trim(),
  killedAt,
  readyAt,
  requests: log.length,
  byKind,
  fivexx: { total: fivexx.length, outsideRestartWindow: fivexxOutside.length, examples: fivexxOutside.slice(0, 5) },
  connectionFailuresOutsideWindow: failedOutside.length,
  writes: { acknowledged: acknowledged.size, missing: missing.length, duplicated: duplicated.length, unacknowledgedStored },
  imports: imports.map(({ startedAt, code, summary, stderr }) => ({ startedAt, code, summary, stderr: code === 0 ? undefined : stderr })),
  conversations: {
    stored: chats.length,
    inExport: conversationsInExport,
    duplicated: duplicatedChats,
    notReady: chats.filter((c) => c.status !== "ready").length,
  },
  queue: queue?.counts,
  rss: { lives: rssLives, samples: rss },
});
const ok = fivexxOutside.length === 0 && missing.length === 0 && duplicated.length === 0 && duplicatedChats === 0;
if (!ok) process.exitCode = 1;
