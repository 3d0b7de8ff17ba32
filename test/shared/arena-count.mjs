// glibc's malloc arenas after 12 threads have allocated at once, for the lean-allocator test:
// applies mnemo's settings first when the argument is "lean" (the server's arena cap alone when it
// is "arenas"), prints whether they took effect on
// stdout, and glibc's malloc_stats() (one "Arena n:" block per arena) on stderr.
import { Worker } from "node:worker_threads";
import koffi from "koffi";
import { useFewerArenas, useLeanAllocator } from "../../dist/shared/lean-allocator.js";

const mode = process.argv[2];
const applied = mode === "lean" ? await useLeanAllocator() : mode === "arenas" ? await useFewerArenas() : false;
const allocate =
  "const kept = []; for (let i = 0; i < 2000; i++) kept.push(Buffer.alloc(4096)); require('node:worker_threads').parentPort.postMessage(kept.length)";
const workers = Array.from({ length: 12 }, () => new Worker(allocate, { eval: true }));
await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once("message", resolve))));
await Promise.all(workers.map((worker) => worker.terminate()));
console.log(JSON.stringify({ applied }));
koffi.load("libc.so.6").func("void malloc_stats(void)")();
