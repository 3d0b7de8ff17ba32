// Where `mnemo mcp`'s resident memory goes (issue 37.4): one server over stdio, driven as peers.mjs
// drives it (the MCP SDK's Client, one memory per call), its RSS taken apart from /proc/<pid>/smaps
// (Node's code, LanceDB's and ONNX Runtime's libraries, the rest of the file pages, anonymous memory)
// and from the server's own process.memoryUsage() (V8's heap, external and array buffers), read
// through a preloaded probe on SIGUSR2, with glibc's own count of what is in use and free in its heaps
// (mallinfo2, through koffi). After the stores and 50 searches, and again after an idle wait.
// A store to start from (--from, copied; the copy is removed) reaches 10k memories without 10k calls;
// `--env KEY=VALUE` (repeatable) starts the server with it, for an A/B of one setting at a time.
//
// `--hold S` keeps the server S seconds more (its pid printed) to look at it by hand; `--json` prints the figures.
//
//   node test/bench/mcp-rss.mjs [--from DIR] [--stores N] [--searches 50] [--idle 20] [--env K=V]... [--hold S] [--json]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, ROOT, benchEnv, fmt, percentile, sleep, tempDir, textSource } from "./lib.mjs";

const { values: args } = parseArgs({
  options: {
    from: { type: "string" },
    stores: { type: "string", default: "200" },
    searches: { type: "string", default: "50" },
    idle: { type: "string", default: "20" },
    env: { type: "string", multiple: true, default: [] },
    json: { type: "boolean" },
    hold: { type: "string", default: "0" },
  },
});

const PROBE = path.join(os.tmpdir(), `mnemo-rss-probe-${process.pid}.cjs`);
const probeOut = (pid) => path.join(os.tmpdir(), `mnemo-rss-probe-${pid}.json`);
fs.writeFileSync(
  PROBE,
  `const fs = require("node:fs"), v8 = require("node:v8"), { isMainThread } = require("node:worker_threads");
if (isMainThread) process.on("SIGUSR2", () => fs.writeFileSync(${JSON.stringify(os.tmpdir())} + "/mnemo-rss-probe-" + process.pid + ".json",
  JSON.stringify({ usage: process.memoryUsage(), spaces: v8.getHeapSpaceStatistics(), malloc: mallinfo() })));
// glibc's own count (mallinfo2): bytes in use, free inside its heaps, and in mmapped blocks.
function mallinfo() {
  try {
    const koffi = require(${JSON.stringify(path.join(ROOT, "node_modules", "koffi"))});
    const Info = koffi.struct({ arena: "size_t", ordblks: "size_t", smblks: "size_t", hblks: "size_t", hblkhd: "size_t", usmblks: "size_t", fsmblks: "size_t", uordblks: "size_t", fordblks: "size_t", keepcost: "size_t" });
    return koffi.load("libc.so.6").func("mallinfo2", Info, [])();
  } catch { return undefined; }
}\n`,
);

const MiB = 1024 * 1024;

/** CPU time (user + system) the process has used so far, in ms (10 ms steps), from /proc. */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The server's own view: memoryUsage() of its main thread, by SIGUSR2 to the probe. */
async function selfReport(pid) {
  fs.rmSync(probeOut(pid), { force: true });
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 100 && !fs.existsSync(probeOut(pid)); i++) await sleep(20);
  await sleep(20);
  return JSON.parse(fs.readFileSync(probeOut(pid), "utf8"));
}

/** RSS by what is mapped: each library's pages, the other file pages, anonymous memory (kB → MiB). */
function smaps(pid) {
  const parts = { node: 0, lancedb: 0, onnxruntime: 0, otherFiles: 0, anonymous: 0 };
  let name = "";
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      name = head[1];
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const kb = Number(rss[1]);
    const part = !name.startsWith("/")
      ? "anonymous"
      : name === process.execPath || name.endsWith("/node")
        ? "node"
        : /lancedb/.test(name)
          ? "lancedb"
          : /onnxruntime/.test(name)
            ? "onnxruntime"
            : "otherFiles";
    parts[part] += kb;
  }
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)[1]);
  const out = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v / 1024]));
  return {
    rss: field("VmRSS") / 1024,
    anonRss: field("RssAnon") / 1024,
    fileRss: field("RssFile") / 1024,
    threads: field("Threads"),
    ...out,
  };
}

async function snapshot(pid, label) {
  const maps = smaps(pid);
  const { usage, spaces, malloc } = await selfReport(pid);
  const v8Heap = usage.heapTotal / MiB;
  const row = {
    label,
    ...maps,
    heapTotal: v8Heap,
    heapUsed: usage.heapUsed / MiB,
    external: usage.external / MiB,
    arrayBuffers: usage.arrayBuffers / MiB,
    // Anonymous memory that is not the main thread's V8 heap: native allocations (LanceDB, ONNX
    // Runtime, the model worker's heap, glibc's free lists), thread stacks.
    nativeAnon: maps.anonymous - v8Heap,
    mallocInUse: malloc ? (malloc.uordblks + malloc.hblkhd) / MiB : undefined,
    mallocFree: malloc ? malloc.fordblks / MiB : undefined,
    mallocMapped: malloc ? malloc.hblkhd / MiB : undefined,
    spaces: Object.fromEntries(spaces.map((s) => [s.space_name, Math.round(s.space_size / 1024)])),
  };
  return row;
}

function print(row) {
  const f = (v) => fmt(v, 1);
  console.log(
    `${row.label.padEnd(22)} RSS ${f(row.rss)} (anon ${f(row.anonRss)}, file ${f(row.fileRss)}; node ${f(row.node)}, lancedb ${f(row.lancedb)}, ort ${f(row.onnxruntime)}, other files ${f(row.otherFiles)}) ` +
      `V8 heap ${f(row.heapTotal)} (used ${f(row.heapUsed)}), external ${f(row.external)} (array buffers ${f(row.arrayBuffers)}), native anon ${f(row.nativeAnon)} (malloc in use ${f(row.mallocInUse)} of it mmapped ${f(row.mallocMapped)}, free in its heaps ${f(row.mallocFree)}), threads ${row.threads}`,
  );
}

async function main() {
  const dir = tempDir("mcp-rss");
  if (args.from) fs.cpSync(args.from, dir, { recursive: true });
  const extra = Object.fromEntries(args.env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  const env = benchEnv({ MNEMO_EMBEDDER: "bundled", MNEMO_RERANKER: "none", ...extra });
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --require ${PROBE}`.trim();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--store", dir],
    env,
    stderr: "ignore",
    cwd: dir,
  });
  const client = new Client({ name: "mnemo-rss-bench", version: "1" });
  await client.connect(transport);
  const pid = transport.pid;
  const rows = [await snapshot(pid, "started")];
  const texts = textSource(37);
  const questions = textSource(39);
  let cpu = cpuMs(pid);
  const storeMs = [];
  for (let i = 0; i < Number(args.stores); i++) {
    const started = performance.now();
    await client.callTool({ name: "store_memory", arguments: { text: texts.memory() } });
    storeMs.push(performance.now() - started);
  }
  const storeCpu = (cpuMs(pid) - cpu) / Math.max(1, storeMs.length);
  cpu = cpuMs(pid);
  const searchMs = [];
  for (let i = 0; i < Number(args.searches); i++) {
    const started = performance.now();
    await client.callTool({ name: "search_memories", arguments: { query: questions.query(), count: 5 } });
    searchMs.push(performance.now() - started);
  }
  const searchCpu = (cpuMs(pid) - cpu) / Math.max(1, searchMs.length);
  rows.push(await snapshot(pid, `${args.stores} stores, ${args.searches} searches`));
  await sleep(Number(args.idle) * 1000);
  rows.push(await snapshot(pid, `${args.idle} s idle`));
  if (Number(args.hold) > 0) {
    console.log(`server pid ${pid}, held ${args.hold} s`);
    await sleep(Number(args.hold) * 1000);
  }
  await client.close();
  fs.rmSync(PROBE, { force: true });
  fs.rmSync(probeOut(pid), { force: true });
  const result = {
    env: extra,
    rows,
    storeP50: percentile(storeMs, 50),
    storeCpu,
    searchP50: percentile(searchMs, 50),
    searchCpu,
    load: os.loadavg()[0],
  };
  console.log(
    `env ${JSON.stringify(extra)}  store p50 ${fmt(result.storeP50, 1)} ms (CPU ${fmt(storeCpu, 1)}), search p50 ${fmt(result.searchP50, 1)} ms (CPU ${fmt(searchCpu, 1)}), load ${fmt(result.load, 1)}`,
  );
  for (const row of rows) print(row);
  if (args.json) console.log(JSON.stringify(result));
}

await main();
