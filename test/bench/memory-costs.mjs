// Where a memory call's CPU goes (issue 37), in process at 10k memories: a search split into its
// query embedding, its legs and the rows it reads, and a store into its embedding, its
// near-duplicate check and its append to the journal; each with the memories' vectors indexed
// (HNSW, as from 5,000 rows) and scanned (the index dropped). CPU is the whole process's
// (LanceDB's and the model's threads included), per call; other work on the machine stretches it
// less than wall time. Prints Markdown tables; writes results/memory-costs.json.
//
//   node test/bench/memory-costs.mjs [--quick]
import os from "node:os";
import { QUICK, benchEnv, embedBase, fmt, heading, insertMemories, removeDir, table, tempDir, textSource, writeResults } from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { findSimilarMemory } from "../../dist/core/memories/similar-memory.js";
import { searchMemories } from "../../dist/core/memories/memory-search.js";
import { newId } from "../../dist/shared/ids.js";

const MEMORIES = 10_000;
const ROUNDS = QUICK ? 40 : 150;
const loadBefore = os.loadavg();

const store = tempDir("memory-costs");
const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
const user = await app.users.resolve("default");
const service = await app.service();
const ctx = app.context;
const texts = textSource(41);
const baseTexts = Array.from({ length: 1_000 }, () => texts.memory());
const { vectors: bases } = await embedBase(app, baseTexts);
await insertMemories(app, { newId, userId: user.id, count: MEMORIES, text: (i) => baseTexts[i] ?? texts.memory(), bases });
await app.maintenance.run();

const queries = textSource(43);
const fresh = textSource(99);
let n = 0;
/** A memory text no other call has used (the near-duplicate check would otherwise find it). */
const newText = () => `${fresh.memory()} (note ${n++})`;
const columns = ["id", "text", "bucketId", "createdAt", "source"];

/** CPU (whole process) and wall time per call of `work`, after a few calls to warm up. */
async function perCall(work) {
  const inputs = Array.from({ length: ROUNDS + 10 }, (_, i) => i);
  for (const i of inputs.slice(0, 10)) await work(i);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const i of inputs.slice(10)) await work(i);
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / ROUNDS, wallMs: (performance.now() - started) / ROUNDS };
}

async function measure() {
  const questions = Array.from({ length: ROUNDS + 10 }, () => queries.query());
  const vectors = [];
  for (const q of questions) vectors.push(await ctx.embedder.embedQuery(q));
  const legs = (mode) => (i) =>
    searchMemories(ctx, {
      query: questions[i],
      vector: vectors[i],
      filter: { userId: user.id },
      limit: 5,
      candidates: 60,
      mode,
      columns,
    });
  return {
    "search: query embedding": await perCall((i) => ctx.embedder.embedQuery(`${questions[i]}?`)),
    "search: vector leg, rows read, fused": await perCall(legs("vector")),
    "search: text leg, rows read, fused": await perCall(legs("bm25")),
    "search: both legs (embedding given)": await perCall(legs("hybrid")),
    "search: the whole call (memories.listV2)": await perCall((i) =>
      service.memories.listV2({ query: questions[i], count: 5, includeIds: true }),
    ),
    "store: embedding": await perCall(() => ctx.embedder.embedDocuments([newText()], { urgent: true })),
    "store: near-duplicate check (embeds only when words are shared)": await perCall(() => findSimilarMemory(ctx, user.id, newText())),
    'store: the whole call, ifSimilar "store"': await perCall(() => service.memories.store({ text: newText(), ifSimilar: "store" })),
    'store: the whole call, ifSimilar "skip" (MCP\'s default)': await perCall(() =>
      service.memories.store({ text: newText(), ifSimilar: "skip" }),
    ),
  };
}

const indexed = await measure();
await ctx.store.settle();
const memories = await ctx.store.table("memories");
const vectorIndex = (await memories.listIndices()).find((index) => index.columns.includes("vector"));
if (!vectorIndex) throw new Error("maintenance built no vector index on 10k memories");
await memories.dropIndex(vectorIndex.name);
const scanned = await measure();
await app.close();
removeDir(store);

const rows = Object.keys(indexed).map((name) => ({ name, indexed: indexed[name], scanned: scanned[name] }));
heading(`Where a memory call's CPU goes (${fmt(MEMORIES, 0)} memories, in process, ${ROUNDS} calls each)`);
console.log(
  table(
    [
      ["", (r) => r.name, "l"],
      ["indexed: CPU / wall ms", (r) => `${fmt(r.indexed.cpuMs, 2)} / ${fmt(r.indexed.wallMs, 2)}`],
      ["scanned: CPU / wall ms", (r) => `${fmt(r.scanned.cpuMs, 2)} / ${fmt(r.scanned.wallMs, 2)}`],
    ],
    rows,
  ),
);
const load = { before: loadBefore, after: os.loadavg() };
console.log(
  `\nLoad average (1/5/15 min) before: ${load.before.map((x) => x.toFixed(2)).join(" / ")}, after: ${load.after.map((x) => x.toFixed(2)).join(" / ")}.`,
);
writeResults("memory-costs", { memories: MEMORIES, rounds: ROUNDS, load, indexed, scanned });
