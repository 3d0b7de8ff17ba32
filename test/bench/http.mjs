// The REST API under load (issue 5): `mnemo serve` in its own process on a store of 10k
// memories, loaded with wrk (or autocannon) at 10 and 100 connections. Endpoints that do not
// embed (GET /api/buckets, GET /api/memory for the latest memories) and the query endpoint
// (GET /api/memory?query=…, one embedding per request), whose throughput is set against the
// embedder's own query throughput measured beforehand in this process with the server's
// configuration (the bundled model, one worker on both cores). Prints Markdown tables; writes results/http.json.
//
//   node test/bench/http.mjs [--quick] [--tool wrk|autocannon]
//
// The query endpoint is also set against its ceiling: an endpoint on the same framework that only
// embeds each query (embed-endpoint.mjs), which no query endpoint that also searches can pass.
//
// Memories are inserted directly with reused, perturbed vectors (see lib.mjs). The load generator
// runs on the same 2 cores as the server: the figures are a floor for a dedicated client machine.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  BIN,
  QUICK,
  ROOT,
  benchEnv,
  commandVersion,
  embedBase,
  fmt,
  hasCommand,
  heading,
  insertMemories,
  removeDir,
  sleep,
  table,
  tempDir,
  textSource,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { newId } from "../../dist/shared/ids.js";
import { searchMemories } from "../../dist/core/memories/memory-search.js";

const { values: args } = parseArgs({ options: { quick: { type: "boolean" }, tool: { type: "string" } } });
const SIZES = {
  memories: 10_000,
  baseTexts: QUICK ? 300 : 1_000,
  seconds: QUICK ? 5 : 10,
  connections: [10, 100],
  embedderQueries: QUICK ? 100 : 600,
  queryTexts: 500,
};
const TOOL = args.tool ?? (hasCommand("wrk") ? "wrk" : "autocannon");

async function prepareStore(store) {
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  const user = await app.users.resolve("default");
  const text = textSource(71);
  const baseTexts = Array.from({ length: SIZES.baseTexts }, () => text.memory());
  const { vectors: bases } = await embedBase(app, baseTexts);
  await insertMemories(app, {
    newId,
    userId: user.id,
    count: SIZES.memories,
    text: (i) => (i < baseTexts.length ? baseTexts[i] : text.memory()),
    bases,
  });
  await app.maintenance.run();

  // The embedder's own query throughput, with the server's configuration (both workers warm).
  const { embedder } = app.context;
  await embedder.embedDocuments(Array.from({ length: 128 }, () => text.memory()));
  const queries = Array.from({ length: SIZES.embedderQueries }, () => text.query());
  for (const q of queries.slice(0, 10)) await embedder.embedQuery(q);
  let started = performance.now();
  for (const q of queries) await embedder.embedQuery(q);
  const sequential = queries.length / ((performance.now() - started) / 1000);
  const inFlight = async (n) => {
    let next = 0;
    started = performance.now();
    await Promise.all(
      Array.from({ length: n }, async () => {
        while (next < queries.length) await embedder.embedQuery(queries[next++]);
      }),
    );
    return queries.length / ((performance.now() - started) / 1000);
  };
  // The pool embeds up to 8 waiting queries in one call, so the embedder is at its best only with
  // several in flight (measured up to 32).
  const concurrent = [];
  for (const n of [2, 4, 8, 16, 32]) concurrent.push({ n, qps: await inFlight(n) });

  // In-process ceilings of the same work without HTTP: the store's part of a query (hybrid search
  // with a precomputed vector, as GET /api/memory?query= runs it), and the whole service call.
  const service = await app.service();
  const vectors = await embedder.embedDocuments(queries);
  const where = { userId: user.id };
  const rate = async (n, total, work) => {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: n }, async () => {
        while (next < total) await work(next++ % queries.length);
      }),
    );
    return total / ((performance.now() - t) / 1000);
  };
  const ceilings = [];
  for (const n of [1, 10]) {
    ceilings.push({
      inFlight: n,
      storeQueriesPerSecond: await rate(n, 200, (i) =>
        searchMemories(app.context, { query: queries[i], vector: vectors[i], filter: where, limit: 5, columns: ["id"] }),
      ),
      serviceQueriesPerSecond: await rate(n, 100, (i) => service.memories.list({ query: queries[i] })),
      bucketsPerSecond: await rate(n, 400, () => service.buckets.list()),
      latestPerSecond: await rate(n, 400, () => service.memories.list({})),
    });
  }
  await app.close();
  const best = Math.max(sequential, ...concurrent.map((c) => c.qps));
  return { sequential, concurrent, best, ceilings };
}

/**
 * Starts `mnemo serve --port 0 --json` (or, with `embedOnly`, embed-endpoint.mjs) and returns its URL
 * and token once it listens.
 */
async function startServer(store, { embedOnly = false } = {}) {
  // The server logs every request on stderr: to a file, as a service manager would, so reading
  // the log does not take CPU from the server under test.
  const logFile = path.join(store, "..", "serve.log");
  const log = fs.openSync(logFile, "w");
  const args = embedOnly
    ? [path.join(ROOT, "test/bench/embed-endpoint.mjs"), store]
    : [BIN, "serve", "--port", "0", "--json", "--store", store];
  const child = spawn(process.execPath, args, { env: benchEnv(), stdio: ["ignore", "pipe", log] });
  fs.closeSync(log);
  const stderr = () => fs.readFileSync(logFile, "utf8").slice(-20_000);
  let stdout = "";
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr()}`)), 60_000);
    child.stdout.on("data", (d) => {
      stdout += d;
      try {
        const parsed = JSON.parse(stdout);
        clearTimeout(timer);
        resolve(parsed);
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr()}`)));
  });
  const token = embedOnly ? "" : fs.readFileSync(info.tokenFile, "utf8").trim();
  return {
    url: info.url,
    token,
    pid: child.pid,
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(15_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

function wrkScript(dir, token, paths) {
  const file = path.join(dir, `load-${Math.random().toString(36).slice(2)}.lua`);
  const lua = `
local paths = { ${paths.map((p) => JSON.stringify(p)).join(", ")} }
local i = 0
wrk.headers["Authorization"] = "Bearer ${token}"
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT {\\"requests\\":%d,\\"durationUs\\":%d,\\"p50Us\\":%d,\\"p90Us\\":%d,\\"p99Us\\":%d,\\"maxUs\\":%d,\\"meanUs\\":%f,\\"connectErrors\\":%d,\\"readErrors\\":%d,\\"writeErrors\\":%d,\\"non2xx\\":%d,\\"timeouts\\":%d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
end
`;
  fs.writeFileSync(file, lua);
  return file;
}

async function runWrk(server, dir, paths, connections) {
  const script = wrkScript(dir, server.token, paths);
  const threads = Math.min(2, connections);
  const child = spawn(
    "wrk",
    ["-t", String(threads), "-c", String(connections), "-d", `${SIZES.seconds}s`, "--timeout", "10s", "-s", script, server.url],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${err}${out}`);
  const r = JSON.parse(line.slice(7));
  return {
    requests: r.requests,
    requestsPerSecond: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p90Ms: r.p90Us / 1000,
    p99Ms: r.p99Us / 1000,
    maxMs: r.maxUs / 1000,
    meanMs: r.meanUs / 1000,
    errors: r.connectErrors + r.readErrors + r.writeErrors + r.timeouts,
    non2xx: r.non2xx,
  };
}

async function runAutocannon(server, paths, connections) {
  const { default: autocannon } = await import(path.join(ROOT, "node_modules/autocannon/autocannon.js"));
  let i = 0;
  const result = await autocannon({
    url: server.url,
    connections,
    duration: SIZES.seconds,
    headers: { authorization: `Bearer ${server.token}` },
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[i++ % paths.length] }) }],
  });
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p90Ms: result.latency.p90,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    meanMs: result.latency.average,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** The largest mean latency the measured throughput allows (Little's law: connections = rate × latency). */
const littleBoundMs = (r) => (r.connections / r.requestsPerSecond) * 1000;

/** Loads each endpoint of a started server at each connection count, then stops it. */
async function load(server, endpoints, queryPaths, dir) {
  // Warm up: the server loads its model lazily.
  const headers = { authorization: `Bearer ${server.token}` };
  const rows = [];
  try {
    for (const endpoint of endpoints) {
      const probe = await fetch(server.url + endpoint.paths[0], { headers });
      if (!probe.ok) throw new Error(`${endpoint.name}: HTTP ${probe.status} ${await probe.text()}`);
      await probe.arrayBuffer();
    }
    await Promise.all(
      Array.from({ length: 8 }, async (_, k) => {
        for (let j = 0; j < 10; j++) await (await fetch(server.url + queryPaths[k * 10 + j], { headers })).arrayBuffer();
      }),
    );
    for (const endpoint of endpoints) {
      for (const connections of SIZES.connections) {
        const r =
          TOOL === "wrk"
            ? await runWrk(server, dir, endpoint.paths, connections)
            : await runAutocannon(server, endpoint.paths, connections);
        rows.push({ endpoint: endpoint.name, embeds: endpoint.embeds, connections, ...r });
        console.error(`  ${endpoint.name} × ${connections}: ${fmt(r.requestsPerSecond)} req/s`);
        await sleep(500);
      }
    }
  } finally {
    await server.stop();
  }
  return rows;
}

async function main() {
  console.log(`## HTTP bench${QUICK ? " (quick)" : ""}`);
  const started = performance.now();
  const dir = tempDir("http");
  const store = path.join(dir, "store");
  const embedder = await prepareStore(store);
  console.error(
    `  store ready: ${SIZES.memories} memories; embedder ${fmt(embedder.sequential)} queries/s sequential, ${fmt(embedder.best)} at best (2–32 in flight)`,
  );

  const text = textSource(113);
  const queryPaths = Array.from({ length: SIZES.queryTexts }, () => `/api/memory?query=${encodeURIComponent(text.query())}`);
  const endpoints = [
    { name: "GET /api/buckets", embeds: false, paths: ["/api/buckets"] },
    { name: "GET /api/memory (latest 10)", embeds: false, paths: ["/api/memory"] },
    { name: "GET /api/memory?query=…", embeds: true, paths: queryPaths },
  ];
  const rows = await load(await startServer(store), endpoints, queryPaths, dir);
  const ceiling = { name: "ceiling: an endpoint that only embeds the query", embeds: true, paths: queryPaths };
  rows.push(...(await load(await startServer(store, { embedOnly: true }), [ceiling], queryPaths, dir)));
  removeDir(dir);

  const tool = TOOL === "wrk" ? (commandVersion("wrk", ["-v"]) ?? "wrk") : "autocannon (programmatic, in the bench process)";
  heading(`Load (${tool}; ${SIZES.seconds} s per run; server \`mnemo serve\` in its own process; ${fmt(SIZES.memories, 0)} memories)`);
  console.log(
    table(
      [
        ["endpoint", (r) => r.endpoint, "l"],
        ["connections", (r) => r.connections],
        ["req/s", (r) => fmt(r.requestsPerSecond)],
        ["p50 ms", (r) => fmt(r.p50Ms, 2)],
        ["p90 ms", (r) => fmt(r.p90Ms, 2)],
        ["p99 ms", (r) => fmt(r.p99Ms, 2)],
        ["mean ms (bound)", (r) => `${fmt(r.meanMs, 2)} (${fmt(littleBoundMs(r), 2)})`],
        ["errors / non-2xx", (r) => `${r.errors} / ${r.non2xx}`],
        ["÷ embedder's best", (r) => (r.embeds ? fmt(r.requestsPerSecond / embedder.best, 2) : "–")],
      ],
      rows,
    ),
  );
  console.log(
    "\nThe bound is Little's law: with c connections each waiting for its answer, the mean latency cannot exceed " +
      "c ÷ (req/s). A mean above it means the load generator's clock counts time it was not running (it shares the cores).",
  );
  heading("The embedder's own query throughput (the server's configuration, in the bench process, no server running)");
  console.log(
    table(
      [
        ["in flight", (r) => r.n],
        ["queries/s", (r) => fmt(r.qps)],
      ],
      [{ n: 1, qps: embedder.sequential }, ...embedder.concurrent],
    ),
  );
  heading("The same work in process, without HTTP (calls/s)");
  console.log(
    table(
      [
        ["in flight", (r) => r.inFlight],
        ["service.buckets.list", (r) => fmt(r.bucketsPerSecond)],
        ["service.memories.list (latest)", (r) => fmt(r.latestPerSecond)],
        ["searchMemories alone (the query given its vector)", (r) => fmt(r.storeQueriesPerSecond)],
        ["service.memories.list ({query})", (r) => fmt(r.serviceQueriesPerSecond)],
      ],
      embedder.ceilings,
    ),
  );
  const at10 = rows.filter((r) => r.connections === 10);
  const plain = at10.filter((r) => !r.embeds);
  const queries = rows.filter((r) => r.embeds && r.endpoint !== ceiling.name);
  const ceilingRows = rows.filter((r) => r.endpoint === ceiling.name);
  console.log(
    `\nTargets (issue 5) at 10 connections: non-embedding endpoints ≥ 2,000 req/s with p99 ≤ 50 ms — measured ${plain.map((r) => `${r.endpoint} ${fmt(r.requestsPerSecond, 0)} req/s, p99 ${fmt(r.p99Ms)} ms`).join("; ")}; ` +
      `query endpoint ≥ 0.8 × embedder query throughput — measured ${queries.map((r) => `${fmt(r.requestsPerSecond)} req/s at ${r.connections} connections = ${fmt(r.requestsPerSecond / embedder.best, 2)} × the embedder's best`).join(", ")} (${fmt(embedder.best)} queries/s). ` +
      `Its ceiling, an endpoint that only embeds: ${ceilingRows.map((r) => `${fmt(r.requestsPerSecond)} req/s at ${r.connections} connections = ${fmt(r.requestsPerSecond / embedder.best, 2)} ×`).join(", ")}.`,
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`\nHTTP bench done in ${fmt(seconds, 0)} s.`);
  writeResults(TOOL === "wrk" ? "http" : "http-autocannon", { seconds, sizes: SIZES, tool, embedder, load: rows });
}

await main();
