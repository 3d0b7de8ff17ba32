// V8's heap in a process that runs as a service, for the lean-allocator test; prints JSON.
// "young": the young generation after a worker thread has started and the main thread has
// allocated (with "unkept", the young generation's setting is not renewed after the worker starts).
// "old": the largest the heap grew while objects that live a while were made and dropped, after a
// worker thread started (with "unkept", the setting is not renewed after it; "unset", never made).
// "collect": the old space after garbage is made, and after collectGarbage.
import v8 from "node:v8";
import { Worker } from "node:worker_threads";
import { collectGarbage, keepHeapSmall, keepHeapSmallAfter } from "../../dist/shared/lean-allocator.js";

const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name).space_size / 2 ** 20;
const [mode, variant] = process.argv.slice(2);
if (variant !== "unset") keepHeapSmall(["mcp"]);

/** Objects that survive a while, as a server's requests leave them: what makes V8 grow its heap. */
function churn(rounds, keep = 200_000, onRound = () => {}) {
  let kept = [];
  for (let i = 0; i < rounds; i++) {
    kept.push({ i, text: `memory ${i}`, parts: new Array(16).fill(i) });
    if (kept.length > keep) kept = [];
    if (i % 10_000 === 0) onRound();
  }
  return kept.length;
}

if (mode === "young") {
  const worker = new Worker("setTimeout(() => {}, 2000)", { eval: true });
  if (variant !== "unkept") keepHeapSmallAfter(worker);
  await new Promise((resolve) => worker.once("online", resolve));
  // Enough for V8 to grow an unkept young generation to its most (32 MB, from 500k on), not more: each round costs CPU.
  churn(500_000);
  console.log(JSON.stringify({ newSpaceMb: space("new_space") }));
  await worker.terminate();
} else if (mode === "old") {
  const worker = new Worker("setTimeout(() => {}, 2000)", { eval: true });
  if (variant !== "unset" && variant !== "unkept") keepHeapSmallAfter(worker);
  await new Promise((resolve) => worker.once("online", resolve));
  let peakMb = 0;
  churn(1_500_000, 100_000, () => (peakMb = Math.max(peakMb, v8.getHeapStatistics().total_heap_size / 2 ** 20)));
  console.log(JSON.stringify({ peakMb }));
  await worker.terminate();
} else {
  churn(1_000_000); // the old space holds as much after 1M rounds as after 2M (~57 MB): what is kept is capped
  const before = space("old_space");
  await collectGarbage();
  console.log(JSON.stringify({ before, after: space("old_space") }));
}
