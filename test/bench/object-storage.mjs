// A store on S3-compatible object storage against one on local disk (issue 31): the same mnemo
// calls, in process, on each. The object store is s3rver in this process on 127.0.0.1, so the
// figures are the cost of LanceDB's object-store I/O (several requests per operation, each over
// HTTP), without a real network's round trips: on S3 or R2 each request takes 10–50 ms more.
import S3rver from "s3rver";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { benchEnv, fmt, heading, QUICK, summary, table, tempDir, textSource, timed, writeResults } from "./lib.mjs";

const RUNS = QUICK ? 10 : 30;
const WARMUP = 3;

async function measure(name, store, env) {
  const open = () => createApp(loadConfig({ store, embedder: "bundled" }, benchEnv(env)));
  const created = await timed(open);
  const text = textSource(5);
  let app = created.value;
  const service = await app.service();
  for (let i = 0; i < 20; i++) await service.memories.store({ text: text.memory() });
  const ops = {
    "remember (one memory)": () => service.memories.store({ text: text.memory() }),
    "memories --query (hybrid, k=10)": () => service.memories.listV2({ query: text.query(), count: 10 }),
    "memories (latest 10)": () => service.memories.listV2({ count: 10 }),
    "maintain (compact + indexes)": () => app.maintenance.run(),
  };
  const results = { "open the store (create)": summary([created.ms]) };
  for (const [op, run] of Object.entries(ops)) {
    const runs = op.startsWith("maintain") ? 3 : RUNS;
    const ms = [];
    for (let i = 0; i < WARMUP + runs; i++) {
      const { ms: took } = await timed(run);
      if (i >= WARMUP) ms.push(took);
    }
    results[op] = summary(ms);
  }
  const reopen = [];
  for (let i = 0; i < 5; i++) {
    await app.close();
    const { ms, value } = await timed(open);
    reopen.push(ms);
    app = value;
  }
  results["open the store (existing)"] = summary(reopen);
  await app.close();
  console.log(`${name}: done`);
  return results;
}

const local = await measure("local", tempDir("local-store"), {});
const s3 = new S3rver({ address: "127.0.0.1", port: 0, directory: tempDir("s3rver"), silent: true, configureBuckets: [{ name: "mnemo" }] });
const { port } = await s3.run();
// LanceDB reads the AWS_* variables from this process's environment, not from the config's.
Object.assign(process.env, {
  AWS_ENDPOINT: `http://127.0.0.1:${port}`,
  AWS_ALLOW_HTTP: "true",
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "S3RVER",
  AWS_SECRET_ACCESS_KEY: "S3RVER",
});
// A data dir of its own for the local state (models, locks), as on a second machine.
const onS3 = await measure("s3rver", "s3://mnemo/db", { XDG_DATA_HOME: tempDir("s3-home") });
await s3.close();

heading(`Local disk against s3rver on 127.0.0.1 (ms; ${RUNS} runs after ${WARMUP} warm-ups, maintain 3, reopen 5)`);
console.log(
  table(
    [
      ["operation", (op) => op, "l"],
      ["local p50 / p95", (op) => `${fmt(local[op].p50)} / ${fmt(local[op].p95)}`],
      ["s3rver p50 / p95", (op) => `${fmt(onS3[op].p50)} / ${fmt(onS3[op].p95)}`],
      ["× local (p50)", (op) => fmt(onS3[op].p50 / local[op].p50)],
    ],
    Object.keys(onS3),
  ),
);
writeResults("object-storage", { runs: RUNS, local, s3rver: onS3 });
