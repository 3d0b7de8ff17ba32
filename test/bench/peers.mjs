// Peers (issue 37): mnemo beside the MCP memory servers people install from the npm registry, driven
// the same way an assistant drives them: the MCP SDK's own Client over stdio, one memory per tool
// call, the same memories and questions for every server. Quality and cost in one run:
//  - quality: the paraphrased questions of fixtures/memories/ (30 memories, 30 questions in other
//    words) and LoCoMo's observations (each conversation's ~250 observations stored as memories of
//    one server, its questions of categories 1-4 asked there; an observation answers a question when
//    its turn is one of the question's evidence turns). R@k: the share of questions with an answer
//    among the first k results.
//  - cost: N generated memories (10,000; 1,000 with --quick) stored one call at a time; the call's
//    latency and CPU around 1k and N; 50 searches at 1k and at N; the store's size on disk; the
//    server's RSS after N memories and 50 searches, and after 110 s idle. mnemo also gets 20
//    searches every N/10 memories (the long session) and, at the end, 50 on the same store freshly
//    compacted by `mnemo maintain`: no checkpoint should be over 1.5 times that.
// The peers are installed with npm into a folder under the OS temp dir (not a dependency of mnemo),
// kept for the next run; better-sqlite3 builds from source there the first time (a few minutes).
// Prints Markdown tables; writes results/peers.json.
//
//   node test/bench/peers.mjs [--quick] [--memories N] [--only mnemo,ai-devkit] [--no-quality] [--no-cost]
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, QUICK, ROOT, benchEnv, fmt, heading, percentile, sleep, table, tempDir, textSource, writeResults } from "./lib.mjs";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean" },
    memories: { type: "string" },
    only: { type: "string" },
    "no-quality": { type: "boolean" },
    "no-cost": { type: "boolean" },
    locomo: { type: "string", default: process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json") },
  },
});
const N = Number(args.memories ?? (QUICK ? 1_000 : 10_000));
const SEARCHES = 50;
const CHECKPOINTS = 10;
/**
 * How long a server is left idle before its RSS and disk are read: mnemo absorbs its journal 30 s
 * after the oldest record, compacts, and drops the versions it kept for readers 65 s after that.
 */
const IDLE_MS = 110_000;
const ALTERNATIONS = 100;
/** Distinct facts stored one at a time on the full store: LoCoMo's observations, as real memories are. */
const FACTS = 300;
const LOCOMO_CONVERSATIONS = QUICK ? 3 : 10;
const loadBefore = os.loadavg();

// ---------------------------------------------------------------------------------------------
// The servers: one entry each, with everything said about it.

const PEER_PACKAGES = ["@modelcontextprotocol/server-memory@2026.8.31", "@ai-devkit/memory@0.20.1", "mcp-memory-keeper@0.14.1"];

/**
 * name, how to start it in `dir`, how to store a memory (`i` is its index), how to search, and how
 * to read the found memories' indexes from the answer, best first. `ids` maps what a store call
 * answered (an id) back to the index, for servers that answer with their own ids.
 */
function systems(peers) {
  const memoryIndex = (name) => Number(/^memory-(\d+)$/.exec(name)?.[1] ?? -1);
  return [
    {
      name: "mnemo",
      what: "mnemo mcp (LanceDB, bundled embedder, hybrid search)",
      start: (dir) => ({ args: [BIN, "mcp", "--store", dir], env: { MNEMO_EMBEDDER: "bundled", MNEMO_RERANKER: "none" } }),
      store: (_i, text) => ({ name: "store_memory", arguments: { text } }),
      storedId: (result) => result.structuredContent?.memoryId,
      // store_memory's default (ifSimilar "skip"): nothing stored, a memory that says nearly the same is held.
      held: (result) => result.structuredContent?.done === "exists",
      search: (query) => ({ name: "search_memories", arguments: { query, count: 5 } }),
      found: (result, ids) => (result.structuredContent?.memories ?? []).map((memory) => ids.get(memory.id) ?? -1),
      diskOf: (dir) => dirBytes(dir, (name) => name !== "models"),
    },
    {
      name: "server-memory",
      what: "@modelcontextprotocol/server-memory (knowledge graph in a JSONL file, substring search)",
      start: (dir) => ({
        args: [peers.entry("@modelcontextprotocol/server-memory", "dist/index.js")],
        env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") },
      }),
      store: (i, text) => ({
        name: "create_entities",
        arguments: { entities: [{ name: `memory-${i}`, entityType: "memory", observations: [text] }] },
      }),
      search: (query) => ({ name: "search_nodes", arguments: { query } }),
      found: (result) => (result.structuredContent?.entities ?? []).map((entity) => memoryIndex(entity.name)),
      diskOf: (dir) => dirBytes(dir),
    },
    {
      name: "ai-devkit",
      what: "@ai-devkit/memory (SQLite, FTS5)",
      // It keeps its database under ~/.ai-devkit.
      start: (dir) => ({ args: [peers.entry("@ai-devkit/memory", "dist/index.js")], env: { HOME: dir } }),
      // Titles take 10-100 characters and contents 50-5,000: a short memory is padded with dots.
      store: (_i, text) => ({
        name: "memory_storeKnowledge",
        arguments: { title: text.slice(0, 100).padEnd(10, "."), content: text.padEnd(50, ".") },
      }),
      storedId: (result) => JSON.parse(result.content[0].text).id,
      // It refuses a memory whose title is like one it holds: the memory is then not stored.
      refused: (result) => result.isError && /DUPLICATE_ERROR/.test(result.content[0]?.text ?? ""),
      search: (query) => ({ name: "memory_searchKnowledge", arguments: { query, limit: 5 } }),
      found: (result, ids) => JSON.parse(result.content[0].text).results.map((item) => ids.get(item.id) ?? -1),
      diskOf: (dir) => dirBytes(dir),
    },
    {
      name: "memory-keeper",
      what: "mcp-memory-keeper (SQLite; its semantic search, trigram vectors)",
      start: (dir) => ({ args: [peers.entry("mcp-memory-keeper", "dist/index.js")], env: { DATA_DIR: dir } }),
      store: (i, text) => ({ name: "context_save", arguments: { key: `memory-${i}`, value: text } }),
      search: (query) => ({ name: "context_semantic_search", arguments: { query, topK: 5 } }),
      found: (result) => [...result.content[0].text.matchAll(/Key: (memory-\d+)/g)].map((match) => memoryIndex(match[1])),
      diskOf: (dir) => dirBytes(dir),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Installing the peers, once per set of versions.

function installPeers() {
  const dir = path.join(
    os.tmpdir(),
    `mnemo-bench-peers-${createHash("sha256").update(PEER_PACKAGES.join(" ")).digest("hex").slice(0, 12)}`,
  );
  const done = path.join(dir, ".installed");
  if (!fs.existsSync(done)) {
    console.log(`Installing ${PEER_PACKAGES.join(", ")} into ${dir} (better-sqlite3 builds from source: minutes)…`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "mnemo-bench-peers", private: true }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", ...PEER_PACKAGES], { cwd: dir, stdio: "inherit" });
    fs.writeFileSync(done, PEER_PACKAGES.join("\n"));
  }
  return { dir, entry: (pkg, file) => path.join(dir, "node_modules", pkg, file) };
}

// ---------------------------------------------------------------------------------------------
// One server over stdio, and what it costs.

async function connect(system, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const { args: serverArgs, env } = system.start(dir);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs,
    env: benchEnv(env),
    stderr: "ignore",
    cwd: dir,
  });
  const client = new Client({ name: "mnemo-peers-bench", version: "1" });
  await client.connect(transport);
  const pid = transport.pid;
  const ids = new Map();
  return {
    pid,
    ids,
    refused: 0,
    held: 0,
    async call(request) {
      const result = await client.callTool(request);
      if (result.isError && !system.refused?.(result)) {
        throw new Error(`${system.name} ${request.name}: ${JSON.stringify(result.content).slice(0, 300)}`);
      }
      return result;
    },
    async store(i, text) {
      const result = await this.call(system.store(i, text));
      if (result.isError) {
        this.refused++;
        return result;
      }
      if (system.held?.(result)) this.held++;
      const id = system.storedId?.(result);
      if (id !== undefined) ids.set(id, i);
      return result;
    },
    async search(query) {
      return system.found(await this.call(system.search(query)), ids);
    },
    close: () => client.close(),
  };
}

/** CPU time (user + system) a process has used so far, in ms (10 ms steps), from /proc. */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
}

function dirBytes(dir, keep = () => true) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!keep(entry.name)) continue;
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(full) : fs.statSync(full).size;
  }
  return total;
}

const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Quality.

/** The share of questions with an answer among the first 1 and 5 results. */
async function recall(server, questions) {
  let at1 = 0;
  let at5 = 0;
  for (const { query, answers } of questions) {
    const found = (await server.search(query)).slice(0, 5);
    if (answers.has(found[0])) at1++;
    if (found.some((index) => answers.has(index))) at5++;
  }
  return { questions: questions.length, at1, at5 };
}

function paraphrasedSet() {
  const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, "fixtures", "memories", "paraphrased-questions.json"), "utf8"));
  const keys = Object.keys(fixture.memories);
  return [
    {
      texts: keys.map((key) => fixture.memories[key]),
      questions: fixture.questions.map((q) => ({ query: q.query, answers: new Set([keys.indexOf(q.answer)]) })),
    },
  ];
}

function locomoSets() {
  if (!fs.existsSync(args.locomo)) return undefined;
  const data = JSON.parse(fs.readFileSync(args.locomo, "utf8"));
  return data.slice(0, LOCOMO_CONVERSATIONS).map((sample) => {
    const observations = Object.values(sample.observation).flatMap((session) =>
      Object.values(session).flatMap((items) => items.map(([text, turn]) => ({ text, turns: String(turn).split(/[;,\s]+/) }))),
    );
    const byTurn = new Map();
    observations.forEach((observation, index) => {
      for (const turn of observation.turns) byTurn.set(turn, [...(byTurn.get(turn) ?? []), index]);
    });
    const questions = sample.qa
      .filter((qa) => qa.category >= 1 && qa.category <= 4)
      .map((qa) => ({ query: qa.question, answers: new Set(qa.evidence.flatMap((turn) => byTurn.get(turn.replace(/^D:/, "D")) ?? [])) }))
      .filter((q) => q.answers.size > 0);
    return { texts: observations.map((observation) => observation.text), questions };
  });
}

async function quality(system, name, sets) {
  const total = { questions: 0, at1: 0, at5: 0, refused: 0 };
  for (const set of sets) {
    const server = await connect(system, tempDir(`peers-${system.name}-${name}`));
    for (const [i, text] of set.texts.entries()) await server.store(i, text);
    const found = await recall(server, set.questions);
    await server.close();
    for (const key of ["questions", "at1", "at5"]) total[key] += found[key];
    total.refused += server.refused;
  }
  return { ...total, r1: total.at1 / total.questions, r5: total.at5 / total.questions };
}

// ---------------------------------------------------------------------------------------------
// Cost.

async function searches(server, queries) {
  const cpu = cpuMs(server.pid);
  const ms = [];
  for (const query of queries) {
    const started = performance.now();
    await server.search(query);
    ms.push(performance.now() - started);
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), cpuMs: (cpuMs(server.pid) - cpu) / queries.length };
}

async function cost(system) {
  const dir = tempDir(`peers-${system.name}-cost`);
  const server = await connect(system, dir);
  const texts = textSource(37);
  const questions = textSource(39);
  const idleStart = rssMB(server.pid);
  const result = { checkpoints: [] };
  let textBytes = 0;
  let window = [];
  let windowCpu = cpuMs(server.pid);
  const every = N / CHECKPOINTS;
  for (let i = 1; i <= N; i++) {
    const text = texts.memory();
    const before = server.refused + server.held;
    const started = performance.now();
    await server.store(i, text);
    window.push(performance.now() - started);
    if (server.refused + server.held === before) textBytes += Buffer.byteLength(text);
    const atMark = i === 1_000 || i === N;
    if (i % every !== 0 && !atMark) continue;
    const writes = { p50: percentile(window, 50), p95: percentile(window, 95), cpuMs: (cpuMs(server.pid) - windowCpu) / window.length };
    const count = atMark ? SEARCHES : 20;
    const search = await searches(
      server,
      Array.from({ length: count }, () => questions.query()),
    );
    const point = {
      memories: i,
      stored: i - server.refused - server.held,
      held: server.held,
      writes,
      search,
      diskBytes: system.diskOf(dir),
      rssMB: rssMB(server.pid),
      load: os.loadavg()[0],
    };
    result.checkpoints.push(point);
    if (i === 1_000) result.at1k = point;
    if (i === N) result.atN = point;
    window = [];
    windowCpu = cpuMs(server.pid);
  }
  // Idle: what a server that waits between calls holds, and the store once its own upkeep has run.
  await sleep(IDLE_MS);
  result.idle = { rssMB: rssMB(server.pid), diskBytes: system.diskOf(dir) };
  // As an assistant uses it: a store, then at once a search, again and again.
  const alternating = [];
  for (let i = 0; i < ALTERNATIONS; i++) {
    await server.store(N + 1 + i, texts.memory());
    const started = performance.now();
    await server.search(questions.query());
    alternating.push(performance.now() - started);
  }
  result.alternating = { p50: percentile(alternating, 50), p95: percentile(alternating, 95) };
  result.facts = await distinctFacts(server, N + ALTERNATIONS + 1);
  result.rssAtStartMB = idleStart;
  result.refused = server.refused;
  result.held = result.atN.held;
  result.stored = result.atN.stored;
  // What the stored memories are: their text, and (for a store of vectors) 512 float32s each.
  result.dataBytes = { text: textBytes, vectors: result.stored * 512 * 4 };
  await server.close();
  if (system.name === "mnemo") result.compacted = await compactedReference(system, dir, questions);
  return result;
}

/**
 * Stores FACTS of LoCoMo's observations one call at a time, on the store of N: the generated texts
 * are templates (~78% of new ones share ≥ 0.75 of their content words with one of 10k stored, so a
 * near-duplicate check must embed them to compare), where 0.9% of LoCoMo's observations do with those before.
 */
async function distinctFacts(server, first) {
  const texts = locomoSets()
    ?.flatMap((set) => set.texts)
    .slice(0, FACTS);
  if (!texts) return undefined;
  const ms = [];
  for (const [i, text] of texts.entries()) {
    const started = performance.now();
    await server.store(first + i, text);
    ms.push(performance.now() - started);
  }
  return { count: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

/** The same store after `mnemo maintain` (every table compacted, indexed, old versions dropped), searched afresh. */
async function compactedReference(system, dir, questions) {
  const maintain = spawnSync(process.execPath, [BIN, "maintain", "--store", dir], {
    env: benchEnv({ MNEMO_EMBEDDER: "bundled" }),
    encoding: "utf8",
  });
  if (maintain.status !== 0) throw new Error(`mnemo maintain: ${maintain.stderr}`);
  const server = await connect(system, dir);
  await searches(
    server,
    Array.from({ length: 5 }, () => questions.query()),
  );
  const search = await searches(
    server,
    Array.from({ length: SEARCHES }, () => questions.query()),
  );
  await server.close();
  return { search, diskBytes: system.diskOf(dir) };
}

// ---------------------------------------------------------------------------------------------

const peers = installPeers();
const all = systems(peers).filter((system) => !args.only || args.only.split(",").includes(system.name));
const results = {};
const sets = { paraphrased: paraphrasedSet(), locomo: locomoSets() };
for (const system of all) {
  const entry = (results[system.name] = { what: system.what });
  if (!args["no-quality"]) {
    entry.paraphrased = await quality(system, "paraphrased", sets.paraphrased);
    if (sets.locomo) entry.locomo = await quality(system, "locomo", sets.locomo);
    console.log(`${system.name}: quality done (load ${os.loadavg()[0].toFixed(1)})`);
  }
  if (!args["no-cost"]) {
    entry.cost = await cost(system);
    console.log(`${system.name}: cost done (load ${os.loadavg()[0].toFixed(1)})`);
  }
}
printTables(results);
const load = { before: loadBefore, after: os.loadavg() };
console.log(
  `\nLoad average (1/5/15 min) before: ${load.before.map((x) => x.toFixed(2)).join(" / ")}, after: ${load.after.map((x) => x.toFixed(2)).join(" / ")}.`,
);
writeResults("peers", { memories: N, searches: SEARCHES, packages: PEER_PACKAGES, load, results });

// ---------------------------------------------------------------------------------------------

function printTables(results) {
  const names = Object.keys(results);
  const peerNames = names.filter((name) => name !== "mnemo");
  const pct = (value) => (typeof value === "number" ? `${Math.round(value * 100)}` : "–");
  const cell = (name, pick) => {
    try {
      return pick(results[name]);
    } catch {
      return "–";
    }
  };
  /** The best peer for a figure (`better` is "high" or "low"), and mnemo's figure over it. */
  const best = (pick, better) => {
    const values = peerNames.map((name) => [name, cell(name, pick)]).filter(([, value]) => typeof value === "number");
    values.sort((a, b) => (better === "high" ? b[1] - a[1] : a[1] - b[1]));
    return values[0];
  };
  const at1k = "1k";
  const atN = N >= 1_000 ? `${fmt(N / 1000, 0)}k` : fmt(N, 0);
  const rows = [
    ["paraphrased questions R@1 / R@5 (%)", (r) => r.paraphrased.r1, (r) => r.paraphrased.r5, "high", pct],
    ["LoCoMo observations R@1 / R@5 (%)", (r) => r.locomo.r1, (r) => r.locomo.r5, "high", pct],
    [
      `store one memory, per call p50 at ${at1k} / ${atN} (ms)`,
      (r) => r.cost.at1k.writes.p50,
      (r) => r.cost.atN.writes.p50,
      "low",
      (v) => fmt(v, 1),
    ],
    [
      `store one distinct fact (LoCoMo's) at ${atN}, p50 / p95 (ms)`,
      (r) => r.cost.facts.p50,
      (r) => r.cost.facts.p95,
      "low",
      (v) => fmt(v, 1),
    ],
    [
      `store one memory, server CPU per call at ${at1k} / ${atN} (ms)`,
      (r) => r.cost.at1k.writes.cpuMs,
      (r) => r.cost.atN.writes.cpuMs,
      "low",
      (v) => fmt(v, 1),
    ],
    [`search p50 at ${at1k} / ${atN} (ms)`, (r) => r.cost.at1k.search.p50, (r) => r.cost.atN.search.p50, "low", (v) => fmt(v, 1)],
    [
      `search right after a store, p50 / p95 at ${atN} (ms)`,
      (r) => r.cost.alternating.p50,
      (r) => r.cost.alternating.p95,
      "low",
      (v) => fmt(v, 1),
    ],
    [
      `search, server CPU per call at ${at1k} / ${atN} (ms)`,
      (r) => r.cost.at1k.search.cpuMs,
      (r) => r.cost.atN.search.cpuMs,
      "low",
      (v) => fmt(v, 1),
    ],
    [`memories stored of ${at1k} / ${atN} store calls`, (r) => r.cost.at1k.stored, (r) => r.cost.atN.stored, "high", (v) => fmt(v, 0)],
    [
      `disk at ${at1k} / ${atN} memories, then 110 s idle (MiB)`,
      (r) => r.cost.at1k.diskBytes / MiB,
      (r) => r.cost.idle.diskBytes / MiB,
      "low",
      (v) => fmt(v, 1),
    ],
    [
      `RSS after ${atN} memories and ${SEARCHES} searches / 110 s idle (MiB)`,
      (r) => r.cost.atN.rssMB,
      (r) => r.cost.idle.rssMB,
      "low",
      (v) => fmt(v, 0),
    ],
  ];
  heading(`mnemo and the registry's MCP memory servers (${fmt(N, 0)} memories, one per call, over stdio)`);
  console.log(
    table(
      [
        ["", (row) => row[0], "l"],
        ...names.map((name) => [name, (row) => `${row[4](cell(name, row[1]))} / ${row[4](cell(name, row[2]))}`]),
        [
          "mnemo ÷ best peer",
          (row) => {
            const ratio = (pick) => {
              const peer = best(pick, row[3]);
              const own = cell("mnemo", pick);
              return peer && typeof own === "number" && peer[1] > 0 ? `${fmt(own / peer[1], 2)}×` : "–";
            };
            return `${ratio(row[1])} / ${ratio(row[2])}`;
          },
        ],
      ],
      rows,
    ),
  );
  for (const name of names) {
    const refused = [results[name].paraphrased?.refused, results[name].locomo?.refused, results[name].cost?.refused];
    if (refused.some((n) => n > 0)) {
      console.log(
        `\n${name} refused memories as like one it held (paraphrased / LoCoMo / cost run): ${refused.map((n) => n ?? "–").join(" / ")}.`,
      );
    }
  }
  const mnemo = results.mnemo?.cost;
  if (mnemo) {
    heading("mnemo's long session: search p50 as the memories were stored, against the same store freshly compacted");
    const reference = mnemo.compacted.search.p50;
    console.log(
      table(
        [
          ["calls", (p) => fmt(p.memories, 0)],
          ["memories stored", (p) => fmt(p.stored, 0)],
          ["store p50 ms", (p) => fmt(p.writes.p50, 1)],
          ["store CPU ms", (p) => fmt(p.writes.cpuMs, 1)],
          ["search p50 ms", (p) => fmt(p.search.p50, 1)],
          ["search CPU ms", (p) => fmt(p.search.cpuMs, 1)],
          ["÷ compacted", (p) => `${fmt(p.search.p50 / reference, 2)}×`],
          ["db MiB", (p) => fmt(p.diskBytes / MiB, 1)],
          ["RSS MiB", (p) => fmt(p.rssMB, 0)],
          ["load", (p) => fmt(p.load, 1)],
        ],
        mnemo.checkpoints,
      ),
    );
    const perMemory = mnemo.idle.diskBytes / mnemo.stored;
    const data = mnemo.dataBytes.text + mnemo.dataBytes.vectors;
    const worst = Math.max(...mnemo.checkpoints.map((p) => p.search.p50)) / reference;
    console.log(
      `\nFreshly compacted: search p50 ${fmt(reference, 1)} ms (CPU ${fmt(mnemo.compacted.search.cpuMs, 1)} ms); the slowest checkpoint ${fmt(worst, 2)}× that. ` +
        `After 110 s idle: the store (without the 32 MB model) ${fmt(mnemo.idle.diskBytes / MiB, 1)} MiB, ${fmt(perMemory, 0)} bytes per memory, ` +
        `${fmt(mnemo.idle.diskBytes / data, 2)}× the memories' text and vectors (${fmt(data / MiB, 1)} MiB); freshly compacted ${fmt(mnemo.compacted.diskBytes / MiB, 1)} MiB. ` +
        `RSS ${fmt(mnemo.idle.rssMB, 0)} MiB idle (${fmt(mnemo.rssAtStartMB, 0)} MiB before the first call). ` +
        `Of the ${fmt(N, 0)} store calls, ${fmt(mnemo.held, 0)} found a memory that said nearly the same and stored nothing (store_memory's default); ` +
        `the figures per memory are over the ${fmt(mnemo.stored, 0)} stored.`,
    );
  }
}
