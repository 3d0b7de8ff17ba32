// MCP (issue 28): how soon `mnemo mcp` answers initialize, what a tool call over stdio costs on
// top of the service call it wraps, and how many tokens tools/list puts in a client's context.
// Prints Markdown tables; writes results/mcp.json.
//
//   node test/bench/mcp.mjs [--quick] [--tokens-only]
//
// The overhead is measured in pairs: each round times the service call in this process and the
// same call as a tool over stdio (the SDK's own Client on `mnemo mcp --store`, on the same store),
// one after the other, so that load from other work falls on both alike.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  BIN,
  QUICK,
  RESULTS_DIR,
  benchEnv,
  embedBase,
  fmt,
  heading,
  insertMemories,
  removeDir,
  summary,
  table,
  tempDir,
  textSource,
  timed,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { listTools } from "../../dist/mcp/tool-calls.js";
import { TOOLS, toolSchemas } from "../../dist/mcp/tools.js";
import { newId } from "../../dist/shared/ids.js";
import { loadTokenizer } from "../../dist/text/tokens.js";

const SIZES = {
  initRuns: QUICK ? 7 : 15,
  memories: 10_000,
  baseTexts: QUICK ? 300 : 1_000,
  rounds: QUICK ? 60 : 300,
  warmup: 20,
};
const loadBefore = os.loadavg();

// ---------------------------------------------------------------------------------------------

/** CPU time (user + system) a running process has used so far, in ms (10 ms steps), from /proc. */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** Spawn to the first line on stdout (wall ms, and the child's CPU ms by then), for a child that answers one request then ends. */
function firstAnswer(args, request) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: benchEnv({ MNEMO_EMBEDDER: "bundled" }), stdio: ["pipe", "pipe", "ignore"] });
    let answeredMs;
    let cpu;
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (answeredMs === undefined && out.includes("\n")) {
        answeredMs = performance.now() - started;
        cpu = cpuMs(child.pid);
        child.stdin.end();
      }
    });
    child.on("error", reject);
    child.on("close", () => (answeredMs === undefined ? reject(new Error(`no answer: ${out}`)) : resolve({ ms: answeredMs, cpu })));
    if (request) child.stdin.write(`${JSON.stringify(request)}\n`);
    else child.stdin.end();
  });
}

async function initializeLatency() {
  const store = tempDir("mcp-init");
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  };
  const runs = { node: [], version: [], initialize: [], initializeCpu: [] };
  // Interleaved, so that load from other work falls on each alike.
  for (let i = 0; i < SIZES.initRuns + 1; i++) {
    const node = await timed(() => new Promise((resolve) => spawn(process.execPath, ["-e", "0"]).on("close", resolve)));
    const version = await firstAnswer([BIN, "--version"]);
    const init = await firstAnswer([BIN, "mcp", "--store", store], initialize);
    if (i === 0) continue; // the first run warms the disk cache
    runs.node.push(node.ms);
    runs.version.push(version.ms);
    runs.initialize.push(init.ms);
    runs.initializeCpu.push(init.cpu);
  }
  removeDir(store);
  const rows = [
    { what: "`node -e 0` (spawn to exit: Node's own start)", ...summary(runs.node), min: Math.min(...runs.node) },
    { what: "`mnemo --version` (spawn to output)", ...summary(runs.version), min: Math.min(...runs.version) },
    { what: "`mnemo mcp`: spawn to the initialize answer", ...summary(runs.initialize), min: Math.min(...runs.initialize) },
  ];
  heading(`Time to answer initialize (${SIZES.initRuns} fresh processes each)`);
  console.log(
    table(
      [
        ["", (r) => r.what, "l"],
        ["p50 ms", (r) => fmt(r.p50)],
        ["min ms", (r) => fmt(r.min)],
        ["p95 ms", (r) => fmt(r.p95)],
      ],
      rows,
    ),
  );
  const cpu = summary(runs.initializeCpu);
  console.log(
    `\n\`mnemo mcp\` had used ${fmt(cpu.p50, 0)} ms of CPU (p50; /proc, 10 ms steps) when it answered: the part other work on the machine cannot stretch.`,
  );
  console.log(`Target (issue 28): ≤ 300 ms — measured p50 ${fmt(rows[2].p50)} ms.`);
  return { runs: SIZES.initRuns, node: rows[0], version: rows[1], initialize: rows[2], initializeCpuMs: cpu };
}

// ---------------------------------------------------------------------------------------------

async function toolOverhead() {
  const store = tempDir("mcp-overhead");
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  const user = await app.users.resolve("default");
  const text = textSource(41);
  const baseTexts = Array.from({ length: SIZES.baseTexts }, () => text.memory());
  const { vectors: bases } = await embedBase(app, baseTexts);
  await insertMemories(app, { newId, userId: user.id, count: SIZES.memories, text: (i) => baseTexts[i] ?? text.memory(), bases });
  await app.maintenance.run();
  const service = await app.service();

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--store", store],
    env: benchEnv({ MNEMO_EMBEDDER: "bundled" }),
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);

  const queryText = textSource(43);
  const queries = Array.from({ length: SIZES.rounds + SIZES.warmup }, () => queryText.query());
  const calls = {
    list_buckets: { service: () => service.buckets.list(), tool: () => client.callTool({ name: "list_buckets", arguments: {} }) },
    search_memories: {
      service: (q) => service.memories.listV2({ query: q, includeIds: true }),
      tool: (q) => client.callTool({ name: "search_memories", arguments: { query: q } }),
    },
  };
  const times = Object.fromEntries(Object.keys(calls).map((name) => [name, { service: [], tool: [] }]));
  for (const [i, q] of queries.entries()) {
    for (const [name, call] of Object.entries(calls)) {
      const s = await timed(() => call.service(q));
      const t = await timed(() => call.tool(q));
      if (t.value.isError) throw new Error(`${name}: ${JSON.stringify(t.value.content)}`);
      if (i < SIZES.warmup) continue;
      times[name].service.push(s.ms);
      times[name].tool.push(t.ms);
    }
  }
  await client.close();
  await app.close();
  removeDir(store);

  const rows = Object.entries(times).map(([name, { service: s, tool: t }]) => {
    const service = summary(s);
    const tool = summary(t);
    return { name, service, tool, overheadMs: tool.p50 - service.p50, ratio: tool.p50 / service.p50 };
  });
  heading(
    `Tool call over stdio against the service call (${fmt(SIZES.memories, 0)} memories, ${SIZES.rounds} rounds after ${SIZES.warmup})`,
  );
  console.log(
    table(
      [
        ["tool", (r) => r.name, "l"],
        ["service p50 / p95 ms", (r) => `${fmt(r.service.p50, 2)} / ${fmt(r.service.p95, 2)}`],
        ["tool over stdio p50 / p95 ms", (r) => `${fmt(r.tool.p50, 2)} / ${fmt(r.tool.p95, 2)}`],
        ["overhead p50 ms", (r) => fmt(r.overheadMs, 2)],
        ["tool ÷ service (p50)", (r) => `${fmt(r.ratio, 2)}×`],
      ],
      rows,
    ),
  );
  const [buckets, search] = rows;
  console.log(
    `\nTargets (issue 28): list_buckets overhead p50 ≤ 2 ms — measured ${fmt(buckets.overheadMs, 2)} ms; search_memories within 1.2× the service call — measured ${fmt(search.ratio, 2)}×.`,
  );
  return { memories: SIZES.memories, rounds: SIZES.rounds, calls: rows };
}

// ---------------------------------------------------------------------------------------------

/** What the SDK's McpServer would list for the same tools, registered with the same schemas. */
async function sdkDefaultListing() {
  const server = new McpServer({ name: "mnemo", version: "0" });
  for (const tool of TOOLS) {
    const { input, output } = toolSchemas(tool);
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: input, outputSchema: output, annotations: tool.annotations },
      async () => ({ content: [] }),
    );
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

async function listingTokens() {
  const tokenizer = await loadTokenizer();
  const count = (value) => tokenizer.count(JSON.stringify(value));
  const ours = listTools();
  const sdk = await sdkDefaultListing();
  const perTool = ours.map((tool) => ({
    name: tool.name,
    tokens: count(tool),
    description: tokenizer.count(tool.description),
    input: count(tool.inputSchema),
    output: count(tool.outputSchema),
  }));
  const result = {
    tokens: count(ours),
    bytes: JSON.stringify(ours).length,
    withoutOutputSchemas: count(ours.map(({ outputSchema: _o, ...rest }) => rest)),
    sdkDefaultTokens: count(sdk),
    sdkDefaultBytes: JSON.stringify(sdk).length,
    perTool,
  };
  heading("tools/list in a model's context (o200k tokens of the JSON the client receives)");
  console.log(
    table(
      [
        ["tool", (r) => r.name, "l"],
        ["tokens", (r) => r.tokens],
        ["description", (r) => r.description],
        ["input schema", (r) => r.input],
        ["output schema", (r) => r.output],
      ],
      perTool,
    ),
  );
  console.log(
    `\nAll ${ours.length}: ${fmt(result.tokens, 0)} tokens (${fmt(result.bytes, 0)} bytes); ${fmt(result.withoutOutputSchemas, 0)} without the output schemas. The SDK's McpServer with the same schemas and descriptions: ${fmt(result.sdkDefaultTokens, 0)} tokens.`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------

const tokens = await listingTokens();
if (process.argv.includes("--tokens-only")) {
  // Token counts do not depend on the machine or its load: counted again, beside the timings measured before.
  const file = path.join(RESULTS_DIR, "mcp.json");
  const before = JSON.parse(fs.readFileSync(file, "utf8"));
  fs.writeFileSync(file, `${JSON.stringify({ ...before, tokens, tokensCounted: new Date().toISOString() }, null, 2)}\n`);
  process.exit(0);
}
const init = await initializeLatency();
const overhead = await toolOverhead();
const load = { before: loadBefore, after: os.loadavg() };
console.log(
  `\nLoad average (1/5/15 min) before: ${load.before.map((x) => x.toFixed(2)).join(" / ")}, after: ${load.after.map((x) => x.toFixed(2)).join(" / ")}.`,
);
writeResults("mcp", { load, tokens, initialize: init, overhead });
