// Import (issue 3): how close importing gets to the embedder's own speed, and how much memory the
// CLI needs for big exports. Prints Markdown tables; writes results/import.json.
//
//   node test/bench/import.mjs [--quick] [--long-import MINUTES] [--long-embedder tiny|bundled] [--long-only | --no-long]
//
// 1. Throughput: a generated upload-shape file of a few hundred conversations is imported in
//    process (importExports + the index worker, waited with waitForProcessing), then the
//    embedder embeds exactly the chunk texts that import produced (read back from the chunks
//    table). The ratio chunks/s ÷ embedder chunks/s is what the pipeline keeps of the model's speed;
//    measured with the model on one thread (`embedderThreads: 1`) and on every core.
// 2. Peak RSS and time of `mnemo import` as a child process (/usr/bin/time -v, else polling
//    /proc/<pid>/status VmHWM), on generated ChatGPT exports: a --dry-run of 600 MB (full mode
//    only), and real imports — with the bundled embedder on a small export, and with the tiny-bert
//    test model on a bigger one. Each store is created beforehand, as a user's store would be, so
//    the CLI opens an existing store and loads its model only when it needs it.
// 3. Whether a long import's memory stays bounded (full mode only): the whole real import of the
//    600 MB export with the tiny-bert model (--long-import N stops it after N minutes;
//    --long-embedder bundled runs it with the bundled model, about 20 minutes whole), RSS per 2-minute
//    window. --long-only runs this part alone and writes results/import-long.json; --no-long leaves it out.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BIN,
  QUICK,
  ROOT,
  TINY_BERT,
  benchEnv,
  fmt,
  freeDiskMB,
  hasCommand,
  heading,
  removeDir,
  table,
  tempDir,
  textSource,
  timed,
  waitForDetachedMaintenance,
  watchPeakRss,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { importExports, waitForProcessing } from "../../dist/core/jobs/import-file.js";

const TINY = `transformers:${TINY_BERT}`;
const SIZES = {
  conversations: QUICK ? 80 : 400,
  dryRunMB: QUICK ? 50 : 600,
  realBundledMB: QUICK ? 1 : 5,
  realTinyMB: QUICK ? 10 : 50,
};

const openApp = (store, embedder = "bundled") => createApp(loadConfig({ store, embedder }, benchEnv()));

// ---------------------------------------------------------------------------------------------

/**
 * One import of the same uploads, then the embedder alone on the chunk texts it produced, with the
 * model on `threads` threads (`undefined`: the default, every core).
 */
async function throughputRun(uploads, threads) {
  const dir = tempDir("import");
  const file = path.join(dir, "upload.json");
  fs.writeFileSync(file, JSON.stringify(uploads));
  const fileMB = fs.statSync(file).size / 1024 / 1024;
  const store = path.join(dir, "store");
  fs.mkdirSync(store);
  if (threads) fs.writeFileSync(path.join(store, "config.json"), JSON.stringify({ embedderThreads: threads }));
  const app = await openApp(store);
  const service = await app.service();
  // Warm up the embedder, so neither side of the ratio pays for loading the model.
  const text = textSource(54);
  await app.context.embedder.embedDocuments(Array.from({ length: 128 }, () => text.passage(60)));

  app.indexer.start();
  const started = performance.now();
  const summary = await importExports(service, [file]);
  const storedMs = performance.now() - started;
  await waitForProcessing(service, summary, undefined, 50);
  const importMs = performance.now() - started;
  await app.indexer.stop();

  const chunks = await app.context.store.select("chunks", "true", { columns: ["text", "tokenCount"] });
  const embedMs = (await timed(() => app.context.embedder.embedDocuments(chunks.map((c) => c.text)))).ms;
  await app.close();
  removeDir(dir);
  return {
    threads: threads ?? os.availableParallelism(),
    fileMB,
    chunks: chunks.length,
    meanChunkTokens: chunks.reduce((n, c) => n + c.tokenCount, 0) / chunks.length,
    storedSeconds: storedMs / 1000,
    importSeconds: importMs / 1000,
    importChunksPerSecond: chunks.length / (importMs / 1000),
    embedderSeconds: embedMs / 1000,
    embedderChunksPerSecond: chunks.length / (embedMs / 1000),
    ratio: embedMs / importMs,
    problems: summary.problems.length,
  };
}

/**
 * The ratio on one thread and on every core, each against the embedder alone on the same threads;
 * and the import on every core against the embedder alone on one thread, the "≥ 1.0 once
 * embedding uses both cores" (README, Decisions).
 */
async function throughput() {
  const text = textSource(53);
  const uploads = Array.from({ length: SIZES.conversations }, (_, i) => text.conversation(`bench-conv-${i}`, text.random.int(6, 12)));
  const messages = uploads.reduce((n, u) => n + u.conversation.messages.length, 0);
  const oneThread = await throughputRun(uploads, 1);
  const allCores = await throughputRun(uploads, undefined);
  const runs = [oneThread, allCores];
  const result = {
    conversations: SIZES.conversations,
    messages,
    runs,
    ratioOneThread: oneThread.ratio,
    ratio: allCores.ratio,
    allCoresAgainstOneThread: allCores.importChunksPerSecond / oneThread.embedderChunksPerSecond,
  };
  heading(
    `Import throughput vs the embedder (bundled, one worker, in process; ${fmt(SIZES.conversations, 0)} conversations, ${fmt(messages, 0)} messages)`,
  );
  console.log(
    table(
      [
        ["model threads", (r) => fmt(r.threads, 0)],
        ["chunks", (r) => fmt(r.chunks, 0)],
        ["mean tokens/chunk", (r) => fmt(r.meanChunkTokens, 0)],
        ["import s (stored / indexed)", (r) => `${fmt(r.storedSeconds, 1)} / ${fmt(r.importSeconds, 1)}`],
        ["import chunks/s", (r) => fmt(r.importChunksPerSecond)],
        ["embedder alone chunks/s", (r) => fmt(r.embedderChunksPerSecond)],
        ["ratio", (r) => fmt(r.ratio, 2)],
      ],
      runs,
    ),
  );
  console.log(
    `\nTarget (issue 3): import ≥ 0.9 × the embedder — on one thread ${fmt(result.ratioOneThread, 2)}, on every core ${fmt(result.ratio, 2)}; ≥ 1.0 once embedding uses both cores — the import on every core against the embedder alone on one thread: ${fmt(result.allCoresAgainstOneThread, 2)}.`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------

/** Runs the CLI, measuring its wall time and peak RSS. */
async function measureCli(args, env) {
  const useTime = fs.existsSync("/usr/bin/time");
  const argv = useTime ? ["/usr/bin/time", "-v", process.execPath, BIN, ...args] : [process.execPath, BIN, ...args];
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
  // Without /usr/bin/time the child is node itself: poll its high-water mark.
  const watch = useTime ? undefined : watchPeakRss(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  let peakMB = watch?.stop();
  if (useTime) {
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    peakMB = m ? Number(m[1]) / 1024 : undefined;
  }
  if (code !== 0) throw new Error(`mnemo ${args.join(" ")} exited with ${code}: ${stderr.slice(-2000)}`);
  let summary;
  try {
    summary = JSON.parse(stdout);
  } catch {
    summary = undefined;
  }
  return { seconds, peakMB, tool: useTime ? "/usr/bin/time -v" : "VmHWM polling", summary };
}

function generateChatGpt(file, mb) {
  const run = spawnSync(process.execPath, [path.join(ROOT, "test/bench/generate-chatgpt-export.mjs"), file, String(mb)], {
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`generator failed: ${run.stderr}`);
  return fs.statSync(file).size / 1024 / 1024;
}

async function createStore(store, embedder) {
  const app = await openApp(store, embedder);
  await app.users.resolve("default");
  await app.close();
}

/**
 * Peak RSS of a bare Node process that only loads `spec` in a pool of `workers` and embeds
 * chunk-sized texts: the share of an import's memory that is the model's.
 */
async function embedderAlone(spec, workers) {
  const dir = tempDir("embedder-rss");
  const script = path.join(dir, "embed.mjs");
  const dist = (p) => JSON.stringify(new URL(`../../dist/${p}`, import.meta.url).href);
  fs.writeFileSync(
    script,
    `import { loadConfig } from ${dist("config/load-config.js")};
import { createEmbedder } from ${dist("providers/create-providers.js")};
const config = loadConfig({ store: ${JSON.stringify(path.join(dir, "store"))}, embedder: "bundled" }, {});
const embedder = await createEmbedder(${JSON.stringify(spec)}, { ...config, embedderWorkers: ${workers} });
const texts = JSON.parse((await import("node:fs")).readFileSync(process.argv[2], "utf8"));
await embedder.embedDocuments(texts);
await embedder.embedDocuments(texts);
await embedder.close();
`,
  );
  const text = textSource(7);
  const texts = path.join(dir, "texts.json");
  fs.writeFileSync(texts, JSON.stringify(Array.from({ length: 128 }, () => text.passage(150))));
  const argv = fs.existsSync("/usr/bin/time")
    ? ["/usr/bin/time", "-v", process.execPath, script, texts]
    : [process.execPath, script, texts];
  const child = spawn(argv[0], argv.slice(1), { env: benchEnv(), stdio: ["ignore", "ignore", "pipe"] });
  const watch = fs.existsSync("/usr/bin/time") ? undefined : watchPeakRss(child.pid);
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const started = performance.now();
  const code = await new Promise((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  removeDir(dir);
  if (code !== 0) throw new Error(`embedder alone exited with ${code}: ${stderr.slice(-1000)}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  return {
    name: `embedder pool alone (${workers} worker${workers > 1 ? "s" : ""}, 128 chunk texts twice)`,
    embedder: spec,
    seconds,
    peakRssMB: watch ? watch.stop() : m ? Number(m[1]) / 1024 : undefined,
  };
}

async function cliImports() {
  const runs = [];
  const cases = [
    { name: "dry run", mb: SIZES.dryRunMB, embedder: "bundled", args: ["--dry-run"] },
    { name: "real import", mb: SIZES.realBundledMB, embedder: "bundled", args: [] },
    { name: "real import", mb: SIZES.realTinyMB, embedder: TINY, args: [] },
  ];
  for (const c of cases) {
    const free = freeDiskMB();
    // The export, the store (a few times the text for a real import) and some margin.
    const needed = c.mb * (c.args.includes("--dry-run") ? 1.2 : 4) + 500;
    if (free < needed) {
      console.error(`  skipping ${c.name} (${c.mb} MB): ${fmt(free, 0)} MB free in ${os.tmpdir()}, need ~${fmt(needed, 0)} MB`);
      runs.push({ name: c.name, skipped: `not enough disk space (${fmt(free, 0)} MB free)` });
      continue;
    }
    const dir = tempDir("cli-import");
    const file = path.join(dir, "conversations.json");
    const generated = await timed(async () => generateChatGpt(file, c.mb));
    const store = path.join(dir, "store");
    await createStore(store, c.embedder);
    console.error(`  ${c.name}: importing ${fmt(generated.value, 0)} MB`);
    const measured = await measureCli(["import", file, "--json", "--store", store, ...c.args], benchEnv());
    const maintenance = await waitForDetachedMaintenance(store);
    let chunks;
    if (!c.args.includes("--dry-run")) {
      const app = await openApp(store, c.embedder);
      chunks = await app.context.store.count("chunks", "true");
      await app.close();
    }
    const s = measured.summary ?? {};
    runs.push({
      name: c.name,
      embedder: c.embedder === "bundled" ? "bundled" : "transformers:fixtures/models/tiny-bert",
      fileMB: generated.value,
      conversations: (s.new ?? 0) + (s.updated ?? 0) + (s.unchanged ?? 0),
      failed: s.failed,
      rejected: s.rejected,
      chunks,
      seconds: measured.seconds,
      mbPerSecond: generated.value / measured.seconds,
      chunksPerSecond: chunks === undefined ? undefined : chunks / measured.seconds,
      peakRssMB: measured.peakMB,
      maintenanceSeconds: maintenance.seconds,
      maintenancePeakRssMB: maintenance.peakRssMB,
      tool: measured.tool,
    });
    removeDir(dir);
  }
  for (const workers of [1, 2]) runs.push(await embedderAlone("bundled", workers));
  heading("`mnemo import` as a child process (generated ChatGPT conversations.json, existing store)");
  console.log(
    table(
      [
        ["run", (r) => r.name, "l"],
        ["embedder", (r) => (r.embedder ?? "").replace(/^transformers:.*/, "tiny-bert"), "l"],
        ["file MB", (r) => fmt(r.fileMB, 0)],
        ["conversations", (r) => (r.skipped ? r.skipped : fmt(r.conversations, 0))],
        ["chunks", (r) => fmt(r.chunks, 0)],
        ["wall s", (r) => fmt(r.seconds)],
        ["MB/s", (r) => fmt(r.mbPerSecond)],
        ["chunks/s", (r) => fmt(r.chunksPerSecond)],
        ["peak RSS MB", (r) => fmt(r.peakRssMB, 0)],
        [
          "then `mnemo maintain`: s, peak RSS MB",
          (r) => (r.maintenanceSeconds ? `${fmt(r.maintenanceSeconds)}, ${fmt(r.maintenancePeakRssMB, 0)}` : ""),
        ],
      ],
      runs,
    ),
  );
  const measuredBy = runs.find((r) => r.tool)?.tool;
  const imports = runs.filter((r) => r.peakRssMB && r.fileMB);
  const worst = imports.reduce((a, b) => (b.peakRssMB > a.peakRssMB ? b : a));
  console.log(
    `\nPeak RSS by ${measuredBy}. Target (issue 3): peak RSS ≤ 500 MB — measured max ${fmt(worst.peakRssMB, 0)} MB (${worst.name}, ${worst.embedder.replace(/^transformers:.*/, "tiny-bert")}, ${fmt(worst.fileMB, 0)} MB export).`,
  );
  console.log(
    "The embedder-alone rows are a bare process that loads the bundled model and embeds chunk texts: the model's share of an import's peak.",
  );
  if (QUICK) console.log(`Quick mode: the dry run reads ${SIZES.dryRunMB} MB, not 600 MB.`);
  return runs;
}

// ---------------------------------------------------------------------------------------------

/**
 * The whole import of the 600 MB export by default (about 8 minutes with the tiny model);
 * `--long-import N` stops it after N minutes.
 */
const LONG_IMPORT_ARG = process.argv.includes("--long-import") ? Number(process.argv[process.argv.indexOf("--long-import") + 1]) : Infinity;
const LONG_IMPORT_MINUTES = LONG_IMPORT_ARG > 0 ? LONG_IMPORT_ARG : Infinity;
const LONG_IMPORT_LABEL = LONG_IMPORT_MINUTES === Infinity ? "the whole import" : `${LONG_IMPORT_MINUTES} minutes`;
const LONG_ONLY = process.argv.includes("--long-only");
const NO_LONG = process.argv.includes("--no-long");
const LONG_EMBEDDER_ARG = process.argv.includes("--long-embedder") ? process.argv[process.argv.indexOf("--long-embedder") + 1] : "tiny";
if (LONG_EMBEDDER_ARG !== "tiny" && LONG_EMBEDDER_ARG !== "bundled") throw new Error("--long-embedder: tiny or bundled");
const LONG_EMBEDDER = LONG_EMBEDDER_ARG === "bundled" ? "bundled" : TINY;
const WINDOW_SECONDS = 120;

/**
 * Whether a long import's memory stays bounded: `mnemo import` of the 600 MB export with the
 * tiny-bert model by default (it commits far more often than the bundled one),
 * to its end (or stopped with SIGINT after LONG_IMPORT_MINUTES: in-flight batches
 * finish, the rest stays queued). RSS is sampled every 5 s and reported as the mean of each
 * 2-minute window; the peak is the process's high-water mark (VmHWM, polled every 100 ms).
 */
async function longImport() {
  const dir = tempDir("long-import");
  const file = path.join(dir, "conversations.json");
  const fileMB = generateChatGpt(file, 600);
  const store = path.join(dir, "store");
  await createStore(store, LONG_EMBEDDER);
  console.error(`  long import: ${LONG_IMPORT_LABEL} of the ${fmt(fileMB, 0)} MB export (${LONG_EMBEDDER_ARG})`);
  const child = spawn(process.execPath, [BIN, "import", file, "--store", store], { env: benchEnv(), stdio: "ignore" });
  const started = performance.now();
  const peak = watchPeakRss(child.pid);
  const samples = [];
  const timer = setInterval(() => {
    const status = fs.existsSync(`/proc/${child.pid}/status`) ? fs.readFileSync(`/proc/${child.pid}/status`, "utf8") : "";
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    if (m) samples.push({ seconds: (performance.now() - started) / 1000, rssMB: Number(m[1]) / 1024 });
  }, 5_000);
  const exited = new Promise((resolve) => child.on("close", resolve));
  // Unref'd: an import that finishes inside the time box must not leave the bench waiting for it.
  const timeBox = Number.isFinite(LONG_IMPORT_MINUTES)
    ? [new Promise((resolve) => setTimeout(resolve, LONG_IMPORT_MINUTES * 60_000).unref())]
    : [];
  await Promise.race([exited, ...timeBox]);
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  child.kill("SIGINT");
  const exitCode = await exited;
  const peakRssMB = peak.stop();
  const maintenance = await waitForDetachedMaintenance(store);
  const app = await openApp(store, LONG_EMBEDDER);
  const chunks = await app.context.store.count("chunks", "true");
  const stored = await app.context.store.count("conversations", "true");
  const ready = await app.context.store.count("conversations", "status = 'ready'");
  await app.close();
  removeDir(dir);
  const windows = [];
  for (const sample of samples) {
    const index = Math.floor(sample.seconds / WINDOW_SECONDS);
    (windows[index] ??= []).push(sample.rssMB);
  }
  const meanRssMB = windows.filter(Boolean).map((list) => list.reduce((a, b) => a + b, 0) / list.length);
  const result = {
    length: LONG_IMPORT_LABEL,
    embedder: LONG_EMBEDDER_ARG,
    fileMB,
    seconds,
    exitCode,
    storedConversations: stored,
    readyConversations: ready,
    chunks,
    chunksPerSecond: chunks / seconds,
    peakRssMB,
    meanRssMB,
    maintenanceSeconds: maintenance.seconds,
    maintenancePeakRssMB: maintenance.peakRssMB,
  };
  heading(`Long import: ${LONG_IMPORT_LABEL} of the 600 MB export (${LONG_EMBEDDER_ARG === "tiny" ? "tiny-bert" : "bundled"})`);
  console.log(
    `${fmt(stored, 0)} conversations stored (${fmt(ready, 0)} ready), ${fmt(chunks, 0)} chunks indexed (${fmt(result.chunksPerSecond)} chunks/s); peak RSS ${fmt(result.peakRssMB, 0)} MB.`,
  );
  console.log(
    `Mean RSS per ${WINDOW_SECONDS / 60}-minute window, MB: ${meanRssMB.map((mb) => fmt(mb, 0)).join(", ")} (bounded when the later windows stop rising).`,
  );
  if (maintenance.seconds)
    console.log(
      `Then the detached \`mnemo maintain\` (compaction, indexes): ${fmt(maintenance.seconds)} s, peak RSS ${fmt(maintenance.peakRssMB, 0)} MB.`,
    );
  return result;
}

// ---------------------------------------------------------------------------------------------

console.log(`## Import bench${QUICK ? " (quick)" : ""}`);
if (!hasCommand("/usr/bin/time"))
  console.log("(/usr/bin/time not found: peak RSS is polled from /proc/<pid>/status VmHWM; `apt-get install time` for exact figures)");
const started = performance.now();
if (LONG_ONLY) {
  const long = await longImport();
  writeResults("import-long", { seconds: (performance.now() - started) / 1000, longImport: long });
} else {
  const inProcess = await throughput();
  const cli = await cliImports();
  // Needs the export and a store of a few times its text; quick mode and --no-long leave it out.
  const long = QUICK || NO_LONG || freeDiskMB() < 3_000 ? undefined : await longImport();
  const seconds = (performance.now() - started) / 1000;
  console.log(`\nImport bench done in ${fmt(seconds, 0)} s.`);
  writeResults("import", { seconds, sizes: SIZES, throughput: inProcess, cli, longImport: long });
}
