// The server under pressure (issue 30, item 4): `mnemo serve` in its own process, fresh store per
// scenario, the bundled model warmed up first.
//
//   1. one upload of ~40 MB holding 300,000 tiny messages (far over the 100,000-token limit): the
//      server's RSS before, at its peak while the upload is read, and 5 s after; its answer;
//   2. four such uploads at once, the same figures;
//   3. memory writes (POST /api/memory) from 200 connections for 20 s: writes/s, latency p50/p95/p99.
//
//   node test/bench/pressure.mjs [--quick] [--only uploads|writes]
//
// The load generator runs on the same 2 cores as the server. Prints Markdown tables; writes results/pressure.json.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { QUICK, fmt, heading, percentile, rssMB, serveProcess, sleep, table, tempDir, writeResults } from "./lib.mjs";

const { values: args } = parseArgs({ options: { quick: { type: "boolean" }, only: { type: "string" } } });
const SIZES = {
  messages: QUICK ? 60_000 : 300_000,
  concurrentUploads: 4,
  writeConnections: 200,
  writeSeconds: QUICK ? 8 : 20,
};

/** The spec's upload shape with `count` short messages, as bytes (built once, sent many times). */
function tinyMessages(count) {
  const messages = [];
  for (let i = 0; i < count; i++) {
    messages.push({
      id: `msg-${String(i).padStart(7, "0")}`,
      role: i % 2 ? "assistant" : "human",
      content: i % 2 ? "ok, thanks: that sounds good to me, see you then!" : `and what about item ${i} on the list?`,
      createdAt: new Date(Date.UTC(2024, 2, 1) + i * 1000).toISOString(),
    });
  }
  return Buffer.from(
    JSON.stringify({ conversation: { id: "huge", title: "Many tiny messages", createdAt: "2024-03-01T00:00:00Z", messages } }),
  );
}

/** RSS of `pid` sampled every 50 ms until stopped: the peak and the samples. */
function watchRss(pid) {
  let peak = rssMB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMB(pid));
  };
}

async function warmUp(server, pool) {
  const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json" };
  for (let i = 0; i < 20; i++) {
    const res = await pool.request({
      method: "POST",
      path: "/api/memory",
      headers,
      body: JSON.stringify({ text: `warm-up note ${i} about the tram to Alfama` }),
    });
    await res.body.text();
  }
  const res = await pool.request({ method: "GET", path: "/api/memory?query=tram", headers });
  await res.body.text();
  await sleep(2_000);
}

async function uploads(body, count) {
  const server = await serveProcess(path.join(tempDir("pressure-store"), "store"));
  const pool = new Pool(server.url, { connections: count + 1, bodyTimeout: 600_000, headersTimeout: 600_000 });
  try {
    await warmUp(server, pool);
    const before = rssMB(server.pid);
    const stop = watchRss(server.pid);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: count }, async (_, k) => {
        const t = performance.now();
        const res = await pool.request({
          method: "POST",
          path: "/api/chat-history/ingest/custom-online",
          headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
          body: k === 0 ? body : Buffer.from(body), // separate buffers, as separate clients would send
        });
        const text = await res.body.text();
        return { status: res.statusCode, ms: performance.now() - t, error: res.statusCode >= 400 ? JSON.parse(text).error : undefined };
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await sleep(5_000);
    const peak = stop();
    const after = rssMB(server.pid);
    return { uploads: count, bodyMB: body.length / 1024 / 1024, before, peak, after, seconds, answers };
  } finally {
    await pool.close();
    await server.stop();
  }
}

async function writes() {
  const server = await serveProcess(path.join(tempDir("pressure-store"), "store"));
  const pool = new Pool(server.url, { connections: SIZES.writeConnections, pipelining: 1 });
  try {
    await warmUp(server, pool);
    const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json" };
    const latencies = [];
    const statuses = new Map();
    let next = 0;
    const deadline = performance.now() + SIZES.writeSeconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: SIZES.writeConnections }, async () => {
        while (performance.now() < deadline) {
          const i = next++;
          const t = performance.now();
          const res = await pool.request({
            method: "POST",
            path: "/api/memory",
            headers,
            body: JSON.stringify({
              text: `2024-03-01 note ${i}: the tram ${i % 90} leaves at ${i % 24}:${String(i % 60).padStart(2, "0")}`,
            }),
          });
          await res.body.text();
          latencies.push(performance.now() - t);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      connections: SIZES.writeConnections,
      seconds,
      writes: latencies.length,
      writesPerSecond: (statuses.get(200) ?? 0) / seconds,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      p99Ms: percentile(latencies, 99),
      statuses: Object.fromEntries(statuses),
      rssAfterMB: rssMB(server.pid),
    };
  } finally {
    await pool.close();
    await server.stop();
  }
}

console.log(`Load average before: ${fs.readFileSync("/proc/loadavg", "utf8").trim()} (other work shares the machine)`);
const body = tinyMessages(SIZES.messages);

let one;
let four;
if (args.only !== "writes") {
  heading(`Uploads of ${fmt(body.length / 1024 / 1024)} MB with ${SIZES.messages.toLocaleString("en")} tiny messages (server RSS, MB)`);
  one = await uploads(body, 1);
  four = await uploads(body, SIZES.concurrentUploads);
  const answerOf = (r) => [...new Set(r.answers.map((a) => `${a.status}${a.error ? ` (${a.error.slice(0, 80)})` : ""}`))].join(", ");
  console.log(
    table(
      [
        ["uploads at once", (r) => r.uploads],
        ["RSS before", (r) => fmt(r.before, 0)],
        ["RSS peak", (r) => fmt(r.peak, 0)],
        ["RSS 5 s after", (r) => fmt(r.after, 0)],
        ["answered in (s)", (r) => fmt(r.seconds, 1)],
        ["answer", answerOf, "l"],
      ],
      [one, four],
    ),
  );
}
let w;
if (args.only !== "uploads") {
  heading(`Memory writes from ${SIZES.writeConnections} connections for ${SIZES.writeSeconds} s`);
  w = await writes();
  console.log(
    table(
      [
        ["writes/s", (r) => fmt(r.writesPerSecond, 0)],
        ["p50 ms", (r) => fmt(r.p50Ms, 0)],
        ["p95 ms", (r) => fmt(r.p95Ms, 0)],
        ["p99 ms", (r) => fmt(r.p99Ms, 0)],
        ["statuses", (r) => JSON.stringify(r.statuses), "l"],
      ],
      [w],
    ),
  );
}
writeResults("pressure", { sizes: SIZES, loadAverage: fs.readFileSync("/proc/loadavg", "utf8").trim(), uploads: [one, four], writes: w });
