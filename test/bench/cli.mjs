// A command from the shell, through a warm server and on the store (issue 40): `mnemo memories
// --query`, `mnemo search` and `mnemo recall`, each a fresh process as a user's shell starts it, on
// a store of 10k memories and 10k chunks with `mnemo serve` running on it. Through the server
// (no flag) the command finds the server's record and sends its request; with --local it opens the
// store and loads the model itself (the cold path, as every command did before). Prints Markdown
// tables; writes results/cli.json.
//
//   node test/bench/cli.mjs [--quick]
//
// The two paths alternate, run by run, so that load from other work falls on both alike; the load
// average is printed beside the figures. Wall time is spawn to exit.
import { spawn } from "node:child_process";
import os from "node:os";
import {
  BIN,
  QUICK,
  benchEnv,
  embedBase,
  fmt,
  heading,
  insertConversations,
  insertMemories,
  removeDir,
  serveProcess,
  summary,
  table,
  tempDir,
  textSource,
  writeResults,
} from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { newId } from "../../dist/shared/ids.js";

const SIZES = {
  memories: 10_000,
  chunks: 10_000,
  baseTexts: QUICK ? 300 : 1_000,
  runs: QUICK ? 7 : 21,
};
const TARGETS_MS = { "memories --query": 150, search: 150, recall: 250 };

/** Runs `node bin/mnemo.js …` to its end: wall ms. */
function runOnce(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`mnemo ${args.join(" ")} exited ${code}: ${stderr}`));
      resolve({ ms });
    });
  });
}

async function main() {
  console.log(`## A command from the shell, through a warm server and on the store${QUICK ? " (quick)" : ""}`);
  const store = tempDir("cli");
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  const user = await app.users.resolve("default");
  const text = textSource(71);
  const memoryTexts = Array.from({ length: SIZES.baseTexts }, () => text.memory());
  const { vectors: memoryBases } = await embedBase(app, memoryTexts);
  await insertMemories(app, {
    newId,
    userId: user.id,
    count: SIZES.memories,
    text: (i) => memoryTexts[i] ?? text.memory(),
    bases: memoryBases,
  });
  const chunkTexts = Array.from({ length: SIZES.baseTexts }, () => text.passage(150));
  const { vectors: chunkBases } = await embedBase(app, chunkTexts);
  await insertConversations(app, { newId, userId: user.id, target: SIZES.chunks, bases: chunkBases, text });
  await app.maintenance.run();
  await app.close();

  const server = await serveProcess(store);
  const env = benchEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const queryText = textSource(73);
  const commands = {
    "memories --query": (q) => ["memories", "--query", q],
    search: (q) => ["search", q],
    recall: (q) => ["recall", q],
  };
  const load = { before: os.loadavg() };
  const times = Object.fromEntries(Object.keys(commands).map((name) => [name, { warm: [], cold: [] }]));
  const node = [];
  try {
    // Warm the server: its first query loads the model.
    for (const args of Object.values(commands)) await runOnce(args(queryText.query()), env);
    for (let i = 0; i < SIZES.runs; i++) {
      const nodeStart = performance.now();
      await new Promise((resolve) => spawn(process.execPath, ["-e", "0"]).on("close", resolve));
      node.push(performance.now() - nodeStart);
      for (const [name, args] of Object.entries(commands)) {
        const q = queryText.query();
        times[name].warm.push((await runOnce(args(q), env)).ms);
        times[name].cold.push((await runOnce(["--local", ...args(q)], env)).ms);
      }
    }
  } finally {
    await server.stop();
    removeDir(store);
  }
  load.after = os.loadavg();

  const rows = Object.entries(times).map(([name, { warm, cold }]) => ({
    name,
    warm: summary(warm),
    cold: summary(cold),
    target: TARGETS_MS[name],
  }));
  heading(
    `From the shell, spawn to exit (${fmt(SIZES.memories, 0)} memories, ${fmt(SIZES.chunks, 0)} chunks, ${SIZES.runs} runs each, load average ${load.before.map((l) => fmt(l, 1)).join(" ")} before, ${load.after.map((l) => fmt(l, 1)).join(" ")} after)`,
  );
  console.log(
    table(
      [
        ["command", (r) => `\`mnemo ${r.name}\``, "l"],
        ["through the server p50 / p95 ms", (r) => `${fmt(r.warm.p50, 0)} / ${fmt(r.warm.p95, 0)}`],
        ["target p50 ms", (r) => fmt(r.target, 0)],
        ["--local (cold) p50 / p95 ms", (r) => `${fmt(r.cold.p50, 0)} / ${fmt(r.cold.p95, 0)}`],
        ["cold ÷ warm", (r) => `${fmt(r.cold.p50 / r.warm.p50, 1)}×`],
      ],
      rows,
    ),
  );
  const nodeSummary = summary(node);
  console.log(`\n\`node -e 0\` (Node's own start, the floor of any command): p50 ${fmt(nodeSummary.p50, 0)} ms.`);
  writeResults("cli", { sizes: SIZES, load, node: nodeSummary, commands: rows });
}

await main();
