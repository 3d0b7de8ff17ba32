// Runs the whole benchmark suite, one bench after another, each in its own process:
//
//   npm run bench                          (package.json: "npm run build && node --expose-gc test/bench/run.mjs")
//   node --expose-gc test/bench/run.mjs [--quick] [--only memories,search]
//
// Prints the machine first, then each bench's Markdown tables. A bench whose tools or data are
// missing is skipped with a note. Results go to test/bench/results/<name>.json, and this run's
// list to results/run.json. Nothing asserts a timing: the figures are for reading.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { QUICK, RESULTS_DIR, ROOT, benchEnv, commandVersion, cpuBusy, fmt, hasCommand, machine, tempDir } from "./lib.mjs";

const { values: args } = parseArgs({ options: { quick: { type: "boolean" }, only: { type: "string" } } });
const LOCOMO = process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json");

const BENCHES = [
  { name: "memories", file: "memories.mjs", needs: () => undefined },
  { name: "import", file: "import.mjs", needs: () => undefined },
  { name: "export", file: "export.mjs", needs: () => undefined },
  { name: "search", file: "search.mjs", needs: () => undefined },
  { name: "mcp", file: "mcp.mjs", needs: () => undefined },
  { name: "memory-costs", file: "memory-costs.mjs", needs: () => undefined },
  { name: "store-latency", file: "store-latency.mjs", needs: () => (fs.existsSync(LOCOMO) ? undefined : `needs ${LOCOMO} (LOCOMO_PATH)`) },
  {
    name: "peers",
    file: "peers.mjs",
    needs: () => (hasCommand("npm") ? undefined : "needs npm, to install the MCP memory servers it compares with from the registry"),
  },
  { name: "cli", file: "cli.mjs", needs: () => undefined },
  { name: "object-storage", file: "object-storage.mjs", needs: () => undefined },
  {
    name: "http",
    file: "http.mjs",
    needs: () =>
      hasCommand("wrk") || fs.existsSync(path.join(ROOT, "node_modules/autocannon"))
        ? undefined
        : "needs wrk (apt-get install wrk) or the autocannon devDependency",
  },
  { name: "pressure", file: "pressure.mjs", needs: () => undefined },
  { name: "soak", file: "soak.mjs", needs: () => undefined },
  {
    name: "web",
    file: "web.mjs",
    needs: () => (fs.existsSync("/usr/bin/chromium") ? undefined : "needs Debian's chromium (apt-get install chromium)"),
  },
  {
    name: "locomo",
    file: "locomo.mjs",
    needs: () =>
      fs.existsSync(LOCOMO)
        ? undefined
        : `needs ${path.relative(ROOT, LOCOMO)} (LoCoMo data, never copied into the project; set LOCOMO_PATH)`,
    // The retrieval-quality bench has its own arguments; --quick asks fewer questions.
    args: (resultFile) => ["--json", resultFile, ...(QUICK ? ["--limit", "200"] : [])],
  },
];

function run(file, argv) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", path.join(ROOT, "test", "bench", file), ...argv], {
      stdio: "inherit",
      env: benchEnv(),
    });
    child.on("close", (code, signal) => resolve(signal ? 128 : code));
  });
}

const m = machine();
console.log(`# mnemo benchmarks${QUICK ? " (quick)" : ""}\n`);
console.log(`- CPU: ${m.cpu}, ${m.cores} cores`);
console.log(`- RAM: ${m.ramGB} GB`);
console.log(`- Node: ${m.node} on ${m.platform}`);
console.log(`- Date: ${m.date}`);
console.log(
  `- Tools: ${commandVersion("hyperfine") ?? "hyperfine missing"}, ${commandVersion("wrk", ["-v"]) ?? "wrk missing"}, /usr/bin/time ${fs.existsSync("/usr/bin/time") ? "present" : "missing"}`,
);

if (!fs.existsSync(path.join(ROOT, "dist", "core", "app.js"))) {
  console.error("\ndist/ is missing: build first (npm run build).");
  process.exit(1);
}
const only = args.only?.split(",");
const runs = [];
const started = performance.now();
for (const bench of BENCHES) {
  if (only && !only.includes(bench.name)) continue;
  console.log(`\n---\n`);
  const missing = bench.needs();
  if (missing) {
    console.log(`## ${bench.name}: skipped (${missing})`);
    runs.push({ name: bench.name, skipped: missing });
    continue;
  }
  let argv = QUICK ? ["--quick"] : [];
  let store;
  if (bench.args) {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    store = tempDir(bench.name);
    argv = [...bench.args(path.join(RESULTS_DIR, `${bench.name}.json`)), "--store", store];
    console.log(`## LoCoMo retrieval quality${QUICK ? " (quick: first 200 questions)" : ""}\n`);
  }
  // Other work on the machine skews every figure: say so when it is not idle.
  const busy = await cpuBusy();
  if (busy !== undefined && busy > 0.15)
    console.log(
      `> Note: the CPU was ${Math.round(busy * 100)}% busy just before this bench started (other processes); its figures may be low.\n`,
    );
  const t = performance.now();
  const code = await run(bench.file, argv);
  const seconds = (performance.now() - t) / 1000;
  if (store) fs.rmSync(store, { recursive: true, force: true });
  runs.push({ name: bench.name, code, seconds, cpuBusyBefore: busy });
  if (code !== 0) console.log(`\n**${bench.name} failed (exit ${code}).**`);
}
const seconds = (performance.now() - started) / 1000;
console.log(`\n---\n\n## Summary\n`);
console.log("| bench | status | seconds |\n|---|---|---:|");
for (const r of runs)
  console.log(
    `| ${r.name} | ${r.skipped ? `skipped: ${r.skipped}` : r.code === 0 ? "ok" : `failed (exit ${r.code})`} | ${r.seconds === undefined ? "–" : fmt(r.seconds, 0)} |`,
  );
console.log(`\nTotal ${fmt(seconds / 60, 1)} min.`);
fs.mkdirSync(RESULTS_DIR, { recursive: true });
// A partial run (--only) leaves the last full run's summary in place.
if (!only)
  fs.writeFileSync(path.join(RESULTS_DIR, "run.json"), `${JSON.stringify({ quick: QUICK, machine: m, seconds, runs }, null, 2)}\n`);
if (runs.some((r) => r.code !== undefined && r.code !== 0)) process.exitCode = 1;
