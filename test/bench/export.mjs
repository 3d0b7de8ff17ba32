// Export and restore (issue 30): the memory and time of `mnemo export` on the store of the 600 MB
// import (target: at most 300 MB of RSS), the size of its file with and without vectors, and what
// restoring it costs when the vectors are carried over or recomputed. Prints Markdown tables;
// writes results/export.json.
//
//   node test/bench/export.mjs [--quick] [--keep DIR]
//
// 1. The store, filled directly rather than through `mnemo import` (which embeds for ~22 minutes):
//    the 600 MB ChatGPT export of generate-chatgpt-export.mjs is read by the real importer
//    (openExport), stored by the real upload path (uploadMany, 200 a call), and indexed by the real
//    index worker, whose embedder alone is swapped for one that draws random unit vectors of the
//    bundled model's 512 dimensions: the store gets the same 20,250 conversations and ~290k chunks,
//    rows, fragments and (after `mnemo maintain`) indexes as the real import leaves, without the
//    embedding that takes most of a real import's time (28 min in all on a busy 2-core machine).
//    Beside them, 2,000 memories embedded by the bundled model, 500 of them edited (two versions),
//    and 20 image memories. --quick: a 50 MB export. --keep DIR keeps (or reuses) the store there.
// 2. `mnemo export` as a child process under /usr/bin/time -v (peak RSS, wall time): .jsonl.gz with
//    vectors (the default) and without (--no-vectors).
// 3. `mnemo import` of the export with vectors into an empty store (the whole of it: the vectors are
//    carried over), and, on the first 300 conversations of each file, carried against recomputed
//    (re-embedded by the bundled model), for the rate of each.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { BIN, QUICK, ROOT, benchEnv, fmt, heading, removeDir, table, tempDir, waitForDetachedMaintenance, writeResults } from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { waitForQueue } from "../../dist/core/jobs/import-file.js";
import { openExport } from "../../dist/importers/index.js";

const { values: args } = parseArgs({ options: { quick: { type: "boolean" }, keep: { type: "string" } } });
const EXPORT_MB = QUICK ? 50 : 600;
const SUBSET = 300;
const MEMORIES = 2_000;
const EDITED = 500;
const IMAGES = 20;
const IMAGE = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png")).toString("base64");

/** Random unit vectors: what an export reads of a vector is its bytes, whatever they mean. */
function randomEmbedder(dims) {
  const unit = () => {
    const v = new Float32Array(dims);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      v[i] = Math.random() - 0.5;
      norm += v[i] * v[i];
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < dims; i++) v[i] /= norm;
    return v;
  };
  return {
    id: "bundled",
    dims,
    embedDocuments: async (texts) => texts.map(unit),
    embedQuery: async () => unit(),
    close: async () => undefined,
  };
}

async function fillStore(store) {
  const dir = tempDir("export-source");
  const file = path.join(dir, "conversations.json");
  const started = performance.now();
  await run(process.execPath, [path.join(ROOT, "test/bench/generate-chatgpt-export.mjs"), file, String(EXPORT_MB)]);
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  const service = await app.service();
  const texts = Array.from({ length: MEMORIES }, (_, i) => `Memory ${i}: the tram ${i % 40} leaves from stop ${i % 97} at ${i % 24}:00`);
  for (let i = 0; i < MEMORIES; i += 100) await service.memories.storeMany(texts.slice(i, i + 100).map((text) => ({ text })));
  await service.buckets.create({ name: "Edited", description: "memories with a second version" });
  const { memories } = await service.memories.listV2({ all: true, includeIds: true });
  for (const memory of memories.slice(0, EDITED))
    await service.memories.update({ memoryId: memory.id, text: `${memory.text} (edited)`, bucketName: "Edited" });
  for (let i = 0; i < IMAGES; i++) await service.memories.storeImage({ data: IMAGE, description: `image ${i}` });
  const real = app.context.embedder;
  app.context.embedder = randomEmbedder(real.dims);
  await real.close();
  await app.indexer.start();
  const reader = await openExport(file);
  let batch = [];
  for await (const conversation of reader.conversations()) {
    batch.push(conversation);
    if (batch.length === 200) {
      await service.conversations.uploadMany(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await service.conversations.uploadMany(batch);
  await waitForQueue(service, { pollMs: 1000 });
  const counts = {
    conversations: await app.context.store.count("conversations", "true"),
    chunks: await app.context.store.count("chunks", "true"),
    memories: await app.context.store.count("memories", "true"),
  };
  await app.close();
  removeDir(dir);
  await measure(["--store", store, "maintain"], benchEnv());
  return { seconds: (performance.now() - started) / 1000, ...counts };
}

function run(command, argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ["ignore", "ignore", "inherit"] });
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}

/** Runs the CLI under /usr/bin/time -v: wall seconds and peak RSS. */
async function measure(cliArgs, env) {
  const useTime = fs.existsSync("/usr/bin/time");
  const argv = useTime ? ["-v", process.execPath, BIN, ...cliArgs] : [BIN, ...cliArgs];
  const started = performance.now();
  const child = spawn(useTime ? "/usr/bin/time" : process.execPath, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`mnemo ${cliArgs.join(" ")} exited with ${code}: ${stderr.slice(-2000)}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  return { seconds, peakMB: m ? Number(m[1]) / 1024 : undefined };
}

/** The header, user, buckets and platforms of an export, and its first `n` conversations (no memories). */
async function subset(file, n, out) {
  const input = fs.createReadStream(file).pipe(zlib.createGunzip());
  const output = zlib.createGzip();
  const done = new Promise((resolve, reject) => output.pipe(fs.createWriteStream(out)).on("finish", resolve).on("error", reject));
  let conversations = 0;
  for await (const line of readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    const type = /^\{"type":"(\w+)"/.exec(line)?.[1];
    if (type === "memory") continue;
    if (type === "conversation" && ++conversations > n) break;
    if (type !== "end") output.write(`${line}\n`);
  }
  input.destroy();
  output.end(`${JSON.stringify({ type: "end", records: {} })}\n`);
  await done;
}

/**
 * `mnemo import` of an export into an empty store made beforehand, as a user's would be, with the
 * bundled model already converted (its first use in a data dir converts it, ~30 s of CPU).
 */
async function restore(file, label) {
  const store = tempDir("restore");
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  await app.context.embedder.embedQuery("warm up");
  await app.close();
  const result = await measure(["--store", store, "import", file], benchEnv());
  const counted = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  const chunks = await counted.context.store.count("chunks", "true");
  const conversations = await counted.context.store.count("conversations", "true");
  await counted.close();
  await waitForDetachedMaintenance(store);
  removeDir(store);
  return { label, ...result, conversations, chunks, chunksPerSecond: chunks / result.seconds };
}

async function main() {
  // Other work on the machine stretches every time here: the record says how busy it was.
  const loadBefore = os.loadavg();
  const keep = args.keep;
  const store = keep ?? tempDir("export-store");
  let filled;
  if (keep && fs.existsSync(path.join(store, "db"))) {
    console.log(`(reusing the store in ${store})`);
  } else {
    console.log(`Filling a store from a ${EXPORT_MB} MB ChatGPT export (random vectors; see the header)…`);
    filled = await fillStore(store);
  }
  const dir = tempDir("export-files");
  const exports = [];
  for (const [label, extra] of [
    ["with vectors", []],
    ["--no-vectors", ["--no-vectors"]],
  ]) {
    const file = path.join(dir, `${label.replace(/\W+/g, "")}.jsonl.gz`);
    const result = await measure(["--store", store, "export", file, ...extra], benchEnv());
    exports.push({ label, file, ...result, fileMB: fs.statSync(file).size / 1048576 });
  }

  const restores = [];
  restores.push(await restore(exports[0].file, "whole export, vectors carried"));
  for (const exported of exports) {
    const part = path.join(dir, `subset-${path.basename(exported.file)}`);
    await subset(exported.file, SUBSET, part);
    restores.push(await restore(part, `${SUBSET} conversations, vectors ${exported.label === "with vectors" ? "carried" : "recomputed"}`));
  }
  if (!keep) removeDir(store);
  removeDir(dir);

  heading(`Export of the ${EXPORT_MB} MB-export store`);
  if (filled) {
    console.log(
      `Store: ${filled.conversations} conversations, ${filled.chunks} chunks, ${filled.memories} memories; filled in ${fmt(filled.seconds, 0)} s.\n`,
    );
  }
  console.log(
    table(
      [
        ["export", (e) => e.label, "l"],
        ["seconds", (e) => fmt(e.seconds)],
        ["peak RSS MB", (e) => fmt(e.peakMB, 0)],
        ["file MB", (e) => fmt(e.fileMB)],
      ],
      exports,
    ),
  );
  heading("Restore (`mnemo import` of the export into an empty store)");
  console.log(
    table(
      [
        ["restore", (r) => r.label, "l"],
        ["conversations", (r) => fmt(r.conversations, 0)],
        ["chunks", (r) => fmt(r.chunks, 0)],
        ["seconds", (r) => fmt(r.seconds)],
        ["chunks/s", (r) => fmt(r.chunksPerSecond, 0)],
        ["peak RSS MB", (r) => fmt(r.peakMB, 0)],
      ],
      restores,
    ),
  );
  writeResults("export", {
    loadAverage: { before: loadBefore, after: os.loadavg() },
    sizes: { exportMB: EXPORT_MB, memories: MEMORIES, edited: EDITED, images: IMAGES, subset: SUBSET },
    store: filled,
    exports: exports.map(({ file: _file, ...rest }) => rest),
    restores,
  });
}

await main();
