// Run as a process of its own by model-pool.int.test.ts: there, only the pool starts and ends
// threads, so their count says whether its worker (and the model's threads) went away.
// Arguments: the compiled pool's path, the models folder. Prints what it saw as JSON.
import fs from "node:fs";

const [poolModule, cacheDir] = process.argv.slice(2);
const { createEmbedderPool } = await import(poolModule);
const threads = () => fs.readdirSync("/proc/self/task").length;
const cosine = (a, b) => a.reduce((sum, value, i) => sum + value * b[i], 0);

const pool = await createEmbedderPool("bundled", { workers: 1, cacheDir, allowDownload: false, idleMs: 200 });
const before = await pool.embedQuery("the tram to Alfama");
const running = threads();
for (const deadline = Date.now() + 10_000; threads() >= running && Date.now() < deadline; )
  await new Promise((resolve) => setTimeout(resolve, 20));
const released = threads();
const again = await pool.embedQuery("the tram to Alfama");
const reloaded = threads();
await pool.close();
console.log(JSON.stringify({ running, released, reloaded, same: cosine(before, again) }));
