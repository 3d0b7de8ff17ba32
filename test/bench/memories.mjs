// Memories (issue 2): how fast `remember` stores, how fast a query answers as the store grows,
// how long the CLI takes to start, how fast each embedder runs on its own, and how many
// fragments single writes leave behind. Prints Markdown tables; writes results/memories.json.
//
//   node test/bench/memories.mjs [--quick] [--single-writes N]
//
// --single-writes sets how many single writes the fragment test makes (default 3,000; 1,000 with
// --quick). 10,000 shows the worst of it but takes ~10 minutes on 2 cores: commits slow down as
// fragments pile up, and compacting 10,000 fragments took ~5 minutes.
//
// The query-latency stores are filled by inserting rows directly, not through `remember`: a few
// thousand distinct texts are embedded once, and every row reuses one of their vectors plus small
// Gaussian noise (σ = 0.01 per dimension), renormalised (see lib.mjs). Row texts are all distinct
// (generated), so the full-text index has real statistics; a row's vector is near its base
// text's vector, not its own text's, which does not matter for timing.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import fs from "node:fs";
import path from "node:path";
import {
  BIN,
  QUICK,
  TINY_BERT,
  benchEnv,
  commandVersion,
  embedBase,
  fmt,
  fragments,
  gc,
  hasCommand,
  heading,
  indexNames,
  insertMemories,
  memoryRow,
  perturbed,
  removeDir,
  rng,
  summary,
  table,
  tempDir,
  textSource,
  timed,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { createEmbedder } from "../../dist/providers/create-providers.js";
import { searchMemories } from "../../dist/core/memories/memory-search.js";
import { insertMemoryRows } from "../../dist/core/memories/memories.js";
import { newId } from "../../dist/shared/ids.js";
import { VECTOR_INDEX_MIN_ROWS } from "../../dist/store/maintenance.js";

const { values: args } = parseArgs({ options: { quick: { type: "boolean" }, "single-writes": { type: "string" } } });
const SIZES = {
  single: QUICK ? 100 : 500,
  batched: QUICK ? 500 : 2_000,
  baseTexts: QUICK ? 500 : 2_000,
  levels: QUICK ? [1_000, 10_000, 30_000] : [1_000, 10_000, 100_000],
  queries: QUICK ? 50 : 200,
  warmupQueries: 10,
  singleWrites: Number(args["single-writes"] ?? (QUICK ? 1_000 : 3_000)),
  coldRuns: 10,
};

const openApp = (store, embedder = "bundled") => createApp(loadConfig({ store, embedder }, benchEnv()));

// ---------------------------------------------------------------------------------------------

async function rememberThroughput() {
  const store = tempDir("remember");
  const app = await openApp(store);
  const service = await app.service();
  const text = textSource(11);
  // Warm up: load the model in both workers (the pool starts its second worker while batches wait).
  await app.context.embedder.embedDocuments(Array.from({ length: 128 }, () => text.memory()));
  await service.memories.store({ text: text.memory() });

  const singles = Array.from({ length: SIZES.single }, () => text.memory());
  const singleMs = [];
  const singleStarted = performance.now();
  for (const t of singles) {
    const started = performance.now();
    await service.memories.store({ text: t });
    singleMs.push(performance.now() - started);
  }
  const singleTotal = performance.now() - singleStarted;
  // The embedder alone, one text per call, on the same texts.
  const singleEmbedStarted = performance.now();
  for (const t of singles) await app.context.embedder.embedDocuments([t]);
  const singleEmbed = performance.now() - singleEmbedStarted;

  const batch = Array.from({ length: SIZES.batched }, () => text.memory());
  // The embedder alone on the same texts, before and after (the mean evens out drift).
  const embedBefore = (await timed(() => app.context.embedder.embedDocuments(batch))).ms;
  const batched = (await timed(() => service.memories.storeMany(batch.map((t) => ({ text: t }))))).ms;
  const embedAfter = (await timed(() => app.context.embedder.embedDocuments(batch))).ms;
  const embedMs = (embedBefore + embedAfter) / 2;
  await app.close();

  const result = {
    single: {
      count: SIZES.single,
      perSecond: SIZES.single / (singleTotal / 1000),
      latency: summary(singleMs),
      embedderPerSecond: SIZES.single / (singleEmbed / 1000),
      ratio: singleTotal / singleEmbed,
    },
    batched: {
      count: SIZES.batched,
      perSecond: SIZES.batched / (batched / 1000),
      totalMs: batched,
      embedderMs: embedMs,
      embedderRuns: [embedBefore, embedAfter],
      embedderPerSecond: SIZES.batched / (embedMs / 1000),
      ratio: batched / embedMs,
    },
  };
  heading(`Remember throughput (bundled embedder, the default pool)`);
  console.log(
    table(
      [
        ["mode", (r) => r.mode, "l"],
        ["memories", (r) => fmt(r.count, 0)],
        ["memories/s", (r) => fmt(r.perSecond)],
        ["p50 ms/call", (r) => fmt(r.p50)],
        ["embedder alone, texts/s", (r) => fmt(r.embedderPerSecond)],
        ["total / embedder time", (r) => fmt(r.ratio, 2)],
      ],
      [
        { mode: "single (`memories.store`, sequential)", ...result.single, p50: result.single.latency.p50 },
        { mode: "batched (`memories.storeMany`)", ...result.batched, p50: result.batched.totalMs },
      ],
    ),
  );
  console.log(`\nTarget (issue 2): batched total / embedder time ≤ 1.1 — measured ${fmt(result.batched.ratio, 2)}.`);
  return { result, store, app };
}

// ---------------------------------------------------------------------------------------------

function coldStart(store) {
  const env = benchEnv({ MNEMO_STORE: store });
  const commands = [
    { name: "node -e 0 (Node alone)", argv: [process.execPath, "-e", "0"] },
    { name: "mnemo --help", argv: [process.execPath, BIN, "--help"] },
    { name: 'mnemo memories --query "…"', argv: [process.execPath, BIN, "memories", "--query", "when do I feed the sourdough starter"] },
  ];
  const rows = [];
  const useHyperfine = hasCommand("hyperfine");
  for (const command of commands) {
    if (useHyperfine) {
      const out = path.join(tempDir("hyperfine"), "out.json");
      const quoted = command.argv.map((a) => (/[\s"'…]/.test(a) ? `'${a.replaceAll("'", "'\\''")}'` : a)).join(" ");
      const run = spawnSync("hyperfine", ["-N", "--warmup", "2", "--runs", String(SIZES.coldRuns), "--export-json", out, quoted], {
        env,
        encoding: "utf8",
      });
      if (run.status !== 0) throw new Error(`hyperfine failed: ${run.stderr}`);
      const r = JSON.parse(fs.readFileSync(out, "utf8")).results[0];
      rows.push({
        name: command.name,
        tool: "hyperfine",
        runs: r.times.length,
        meanMs: r.mean * 1000,
        medianMs: r.median * 1000,
        minMs: r.min * 1000,
        maxMs: r.max * 1000,
      });
      removeDir(path.dirname(out));
    } else {
      const times = [];
      for (let i = 0; i < SIZES.coldRuns + 2; i++) {
        const started = performance.now();
        const run = spawnSync(command.argv[0], command.argv.slice(1), { env, stdio: "ignore" });
        if (run.status !== 0) throw new Error(`${command.name} exited with ${run.status}`);
        if (i >= 2) times.push(performance.now() - started);
      }
      const s = summary(times);
      rows.push({
        name: command.name,
        tool: "spawnSync",
        runs: times.length,
        meanMs: s.mean,
        medianMs: s.p50,
        minMs: Math.min(...times),
        maxMs: Math.max(...times),
      });
    }
  }
  heading(
    `Cold start (${useHyperfine ? commandVersion("hyperfine") : "child_process, 2 warm-up runs"}; store with ${SIZES.single + SIZES.batched + 1} memories)`,
  );
  console.log(
    table(
      [
        ["command", (r) => r.name, "l"],
        ["runs", (r) => r.runs],
        ["mean ms", (r) => fmt(r.meanMs)],
        ["median ms", (r) => fmt(r.medianMs)],
        ["min ms", (r) => fmt(r.minMs)],
        ["max ms", (r) => fmt(r.maxMs)],
      ],
      rows,
    ),
  );
  const help = rows.find((r) => r.name === "mnemo --help");
  console.log(`\nTarget (issue 2): --help ≤ 300 ms — measured mean ${fmt(help.meanMs, 0)} ms.`);
  return rows;
}

// ---------------------------------------------------------------------------------------------

async function rawEmbedders() {
  const dir = tempDir("embedders");
  const config = loadConfig({ store: dir, embedder: "bundled" }, benchEnv());
  const text = textSource(23);
  const tiny = `transformers:${TINY_BERT}`;
  const setups = [
    { name: "bundled (USE lite)", spec: "bundled", workers: 1, short: QUICK ? 128 : 512, chunk: QUICK ? 64 : 128 },
    { name: "bundled (USE lite)", spec: "bundled", workers: 2, short: QUICK ? 128 : 512, chunk: QUICK ? 64 : 128 },
    { name: "transformers tiny-bert fixture", spec: tiny, workers: 1, short: QUICK ? 1024 : 4096, chunk: QUICK ? 256 : 1024 },
    { name: "transformers tiny-bert fixture", spec: tiny, workers: 2, short: QUICK ? 1024 : 4096, chunk: QUICK ? 256 : 1024 },
  ];
  const rows = [];
  for (const setup of setups) {
    const embedder = await createEmbedder(setup.spec, { ...config, embedderWorkers: setup.workers });
    // Warm-up: enough batches waiting that every worker starts and has run once.
    await embedder.embedDocuments(Array.from({ length: 32 * 4 * setup.workers }, () => text.short()));
    const short = Array.from({ length: setup.short }, () => text.short());
    const chunk = Array.from({ length: setup.chunk }, () => text.passage(150));
    const shortMs = (await timed(() => embedder.embedDocuments(short))).ms;
    const chunkMs = (await timed(() => embedder.embedDocuments(chunk))).ms;
    const queries = Array.from({ length: 50 }, () => text.query());
    const queryMs = (
      await timed(async () => {
        for (const q of queries) await embedder.embedQuery(q);
      })
    ).ms;
    rows.push({
      name: setup.name,
      spec: setup.spec === "bundled" ? "bundled" : "transformers:fixtures/models/tiny-bert",
      id: embedder.id,
      dims: embedder.dims,
      workers: setup.workers,
      shortTexts: setup.short,
      shortPerSecond: setup.short / (shortMs / 1000),
      chunkTexts: setup.chunk,
      chunkPerSecond: setup.chunk / (chunkMs / 1000),
      sequentialQueriesPerSecond: queries.length / (queryMs / 1000),
    });
    await embedder.close();
    gc();
  }
  removeDir(dir);
  heading("Embedders on their own (worker pool, batches of 32)");
  console.log(
    table(
      [
        ["embedder", (r) => r.name, "l"],
        ["dims", (r) => r.dims],
        ["workers", (r) => r.workers],
        ["short (~15 words) texts/s", (r) => fmt(r.shortPerSecond)],
        ["chunk (~150 words) texts/s", (r) => fmt(r.chunkPerSecond)],
        ["sequential queries/s", (r) => fmt(r.sequentialQueriesPerSecond)],
      ],
      rows,
    ),
  );
  console.log("\nBatches of 32 texts go to whichever worker is free, so 2 workers need at least 2 batches waiting.");
  console.log(
    "The tiny-bert fixture (32 dims, 1 layer) is a test model: its figures show the pipeline's overhead, not a real model's speed.",
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------

async function queryLatency() {
  const store = tempDir("query");
  const app = await openApp(store);
  const user = await app.users.resolve("default");
  const where = { userId: user.id };
  const text = textSource(31);
  const baseTexts = Array.from({ length: SIZES.baseTexts }, () => text.memory());
  const { vectors: bases, ms: baseMs } = await embedBase(app, baseTexts);
  const rowText = (i) => (i < baseTexts.length ? baseTexts[i] : text.memory());

  const queryText = textSource(97);
  const queries = Array.from({ length: SIZES.queries + SIZES.warmupQueries }, () => queryText.query());
  const levels = [];
  let inserted = 0;
  for (const level of SIZES.levels) {
    const insertSeconds = await insertMemories(app, {
      newId,
      userId: user.id,
      count: level - inserted,
      start: inserted,
      text: rowText,
      bases,
    });
    inserted = level;
    const maintenance = await timed(() => app.maintenance.run());
    const embedding = [];
    const storeMs = { hybrid: [], vector: [], bm25: [] };
    for (const [i, q] of queries.entries()) {
      const e = await timed(() => app.context.embedder.embedQuery(q));
      const s = {};
      for (const mode of ["hybrid", "vector", "bm25"]) {
        s[mode] = (
          await timed(() => searchMemories(app.context, { query: q, vector: e.value, filter: where, limit: 10, mode, columns: ["id"] }))
        ).ms;
      }
      if (i < SIZES.warmupQueries) continue;
      embedding.push(e.ms);
      for (const mode of Object.keys(s)) storeMs[mode].push(s[mode]);
    }
    const total = embedding.map((ms, i) => ms + storeMs.hybrid[i]);
    levels.push({
      memories: await app.context.store.count("memories", "true"),
      insertSeconds,
      maintenanceSeconds: maintenance.ms / 1000,
      indexes: await indexNames(app, "memories"),
      embedding: summary(embedding),
      store: summary(storeMs.hybrid),
      storeVectorOnly: summary(storeMs.vector),
      storeBm25Only: summary(storeMs.bm25),
      total: summary(total),
    });
    console.error(`  query latency: ${level} memories measured`);
  }
  await app.close();
  removeDir(store);

  heading(
    `Query latency (limit 10, ${SIZES.queries} queries after ${SIZES.warmupQueries} warm-up; rows inserted directly, indexes built by maintenance; vector index from ${fmt(VECTOR_INDEX_MIN_ROWS.memories, 0)} rows)`,
  );
  console.log(
    table(
      [
        ["memories", (r) => fmt(r.memories, 0)],
        ["embedding p50 / p95 ms", (r) => `${fmt(r.embedding.p50)} / ${fmt(r.embedding.p95)}`],
        ["store p50 / p95 ms (hybrid)", (r) => `${fmt(r.store.p50)} / ${fmt(r.store.p95)}`],
        ["vector leg alone p50", (r) => fmt(r.storeVectorOnly.p50)],
        ["BM25 leg alone p50", (r) => fmt(r.storeBm25Only.p50)],
        ["total p50 / p95 ms", (r) => `${fmt(r.total.p50)} / ${fmt(r.total.p95)}`],
        ["maintenance s", (r) => fmt(r.maintenanceSeconds)],
        ["indexes", (r) => r.indexes.join(" "), "l"],
      ],
      levels,
    ),
  );
  console.log(
    `\n${SIZES.baseTexts} base texts embedded in ${fmt(baseMs / 1000)} s; other rows reuse their vectors with noise (σ 0.01), renormalised.`,
  );
  const last = levels.at(-1);
  console.log(`Target (issue 2): store p50 at 100k ≤ 15 ms — measured ${fmt(last.store.p50)} ms at ${fmt(last.memories, 0)} memories.`);
  return { baseTexts: SIZES.baseTexts, baseEmbedSeconds: baseMs / 1000, perturbationSigma: 0.01, levels };
}

// ---------------------------------------------------------------------------------------------

async function singleWriteFragments() {
  const store = tempDir("fragments");
  const app = await openApp(store);
  const user = await app.users.resolve("default");
  const text = textSource(41);
  const baseTexts = Array.from({ length: 200 }, () => text.memory());
  const { vectors: bases } = await embedBase(app, baseTexts);
  const r = rng(5);
  const segment = Math.max(1, Math.floor(SIZES.singleWrites / 10));
  const segmentRates = [];
  const started = performance.now();
  let segmentStarted = started;
  for (let i = 0; i < SIZES.singleWrites; i++) {
    // A single remember without the embedding: one memory row and its history row, one commit.
    await insertMemoryRows(app.context, user.id, [memoryRow(newId, user.id, text.memory(), perturbed(bases[i % bases.length], r), i)]);
    if ((i + 1) % segment === 0) {
      segmentRates.push(segment / ((performance.now() - segmentStarted) / 1000));
      segmentStarted = performance.now();
    }
  }
  const writeSeconds = (performance.now() - started) / 1000;
  const before = { memories: await fragments(app, "memories"), memoryHistory: await fragments(app, "memoryHistory") };
  const run = await timed(() => app.maintenance.run());
  const after = { memories: await fragments(app, "memories"), memoryHistory: await fragments(app, "memoryHistory") };
  await app.close();
  removeDir(store);

  const result = {
    writes: SIZES.singleWrites,
    writeSeconds,
    writesPerSecond: SIZES.singleWrites / writeSeconds,
    segmentRates,
    before,
    after,
    maintenanceSeconds: run.ms / 1000,
  };
  heading(`Fragments after ${fmt(SIZES.singleWrites, 0)} single writes (one memory + history row per commit, no embedding)`);
  console.log(
    table(
      [
        ["table", (r) => r.table, "l"],
        ["rows", (r) => fmt(r.before.rows, 0)],
        ["fragments before", (r) => fmt(r.before.fragments, 0)],
        ["small before", (r) => fmt(r.before.small, 0)],
        ["fragments after", (r) => fmt(r.after.fragments, 0)],
        ["small after", (r) => fmt(r.after.small, 0)],
      ],
      ["memories", "memoryHistory"].map((t) => ({ table: t, before: before[t], after: after[t] })),
    ),
  );
  console.log(
    `\n\`app.maintenance.run()\` took ${fmt(result.maintenanceSeconds, 2)} s. Writes: ${fmt(result.writesPerSecond)} commits/s overall; per tenth of the run: ${segmentRates.map((x) => fmt(x, 0)).join(", ")}.`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------

console.log(`## Memories bench${QUICK ? " (quick)" : ""}`);
const started = performance.now();
const remember = await rememberThroughput();
const cold = coldStart(remember.store);
removeDir(remember.store);
const embedders = await rawEmbedders();
const query = await queryLatency();
const writes = await singleWriteFragments();
const seconds = (performance.now() - started) / 1000;
console.log(`\nMemories bench done in ${fmt(seconds, 0)} s.`);
writeResults("memories", { seconds, sizes: SIZES, remember: remember.result, coldStart: cold, embedders, query, singleWrites: writes });
