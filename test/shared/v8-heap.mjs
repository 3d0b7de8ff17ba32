// V8's heap in a process that runs as a service, for the lean-allocator test; prints JSON.
// "young": the young generation after a worker thread has started and the main thread has
// allocated (with "unkept", the young generation's setting is not renewed after the worker starts).
// "collect": the old space after garbage is made, and after collectGarbage.
import v8 from "node:v8";
import { Worker } from "node:worker_threads";
import { collectGarbage, keepYoungGenerationSmall, keepYoungGenerationSmallAfter } from "../../dist/shared/lean-allocator.js";

const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name).space_size / 2 ** 20;
const [mode, variant] = process.argv.slice(2);
keepYoungGenerationSmall(["mcp"]);

/** Objects that survive a while, as a server's requests leave them: what makes V8 grow its heap. */
function churn(rounds) {
  let kept = [];
  for (let i = 0; i < rounds; i++) {
    kept.push({ i, text: `memory ${i}`, parts: new Array(16).fill(i) });
    if (kept.length > 200_000) kept = [];
  }
  return kept.length;
}

if (mode === "young") {
  const worker = new Worker("setTimeout(() => {}, 2000)", { eval: true });
  if (variant !== "unkept") keepYoungGenerationSmallAfter(worker);
  await new Promise((resolve) => worker.once("online", resolve));
  churn(3_000_000);
  console.log(JSON.stringify({ newSpaceMb: space("new_space") }));
  await worker.terminate();
} else {
  churn(2_000_000);
  const before = space("old_space");
  await collectGarbage();
  console.log(JSON.stringify({ before, after: space("old_space") }));
}
