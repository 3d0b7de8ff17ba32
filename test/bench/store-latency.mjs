// One memory stored at a time at 10k memories (issue 37, ≤ 5 ms p50): LoCoMo's observations, one
// call each, as an assistant stores them, back to back and 50 ms apart; the service call in
// process, then store_memory through `mnemo mcp` over stdio with the SDK's client. p50 / p95 of the
// calls that stored, and apart of those found to say nearly what one stored says. Prints a
// Markdown table; writes results/store-latency.json. With --templates, the generated memories the
// store holds instead (as peers.mjs stores them): most share their words with a stored one, so the
// near-duplicate check embeds them before the answer; results/store-latency-templates.json.
//
//   node test/bench/store-latency.mjs [--quick] [--locomo <locomo10.json>] [--templates]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  BIN,
  QUICK,
  ROOT,
  benchEnv,
  embedBase,
  fmt,
  insertMemories,
  removeDir,
  sleep,
  summary,
  table,
  tempDir,
  textSource,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { newId } from "../../dist/shared/ids.js";

const MEMORIES = 10_000;
const CALLS = QUICK ? 100 : 300;
const GAPS = [0, 50];
const at = process.argv.indexOf("--locomo");
const LOCOMO = at > 0 ? process.argv[at + 1] : (process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json"));
const loadBefore = os.loadavg();

const TEMPLATES = process.argv.includes("--templates");
const facts = JSON.parse(fs.readFileSync(LOCOMO, "utf8")).flatMap((sample) =>
  Object.values(sample.observation).flatMap((session) => Object.values(session).flatMap((list) => list.map((o) => o[0]))),
);
let next = 0;
const templates = textSource(38);
const fact = () => (TEMPLATES ? templates.memory() : facts[next++ % facts.length]);

const store = tempDir("store-latency");
const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
const user = await app.users.resolve("default");
const texts = textSource(43);
const baseTexts = Array.from({ length: 1_000 }, () => texts.memory());
const { vectors: bases } = await embedBase(app, baseTexts);
await insertMemories(app, { newId, userId: user.id, count: MEMORIES, text: (i) => baseTexts[i] ?? texts.memory(), bases });
await app.maintenance.run();

/** Times `call` on CALLS facts, `gap` ms apart; by whether the call stored the fact. */
async function timed(call, gap) {
  const stored = [];
  const exists = [];
  for (let i = 0; i < CALLS; i++) {
    if (gap > 0) await sleep(gap);
    const started = performance.now();
    const done = await call(fact());
    (done === "ok" ? stored : exists).push(performance.now() - started);
  }
  return { stored: summary(stored), exists: exists.length, similar: summary(exists) };
}

const results = {};
const service = await app.service();
await service.memories.store({ text: "warm up the model please" });
for (const gap of GAPS)
  results[`in process, ${gap} ms apart`] = await timed(
    async (text) => (await service.memories.store({ text, ifSimilar: "skip" })).done,
    gap,
  );
await app.close();

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [BIN, "mcp", "--store", store],
  env: benchEnv({ MNEMO_EMBEDDER: "bundled", MNEMO_RERANKER: "none" }),
  stderr: "ignore",
});
const client = new Client({ name: "mnemo-store-latency", version: "1" });
await client.connect(transport);
await client.callTool({ name: "store_memory", arguments: { text: "warm up the model please" } });
for (const gap of GAPS) {
  results[`MCP stdio, ${gap} ms apart`] = await timed(async (text) => {
    const result = await client.callTool({ name: "store_memory", arguments: { text } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return result.content[0].text.startsWith("Stored as ") ? "ok" : "exists";
  }, gap);
}
await client.close();
removeDir(store);

const loadAfter = os.loadavg();
console.log(
  `\nstore one memory at ${MEMORIES.toLocaleString("en")} memories, ${CALLS} ${TEMPLATES ? "generated memories" : "LoCoMo observations"} per row (load ${fmt(loadBefore[0])} → ${fmt(loadAfter[0])})\n`,
);
console.log(
  table(
    [
      ["", ([name]) => name, "l"],
      ["stored: p50 / p95 ms", ([, { stored }]) => `${fmt(stored.p50, 2)} / ${fmt(stored.p95, 2)}`],
      ["found similar", ([, { exists }]) => exists],
      ["found similar: p50 / p95 ms", ([, { exists, similar }]) => (exists > 0 ? `${fmt(similar.p50, 2)} / ${fmt(similar.p95, 2)}` : "")],
    ],
    Object.entries(results),
  ),
);
writeResults(TEMPLATES ? "store-latency-templates" : "store-latency", {
  memories: MEMORIES,
  calls: CALLS,
  load: { before: loadBefore, after: loadAfter },
  results,
});
