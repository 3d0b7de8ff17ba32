import { createRequire } from "node:module";
import vm from "node:vm";
import type { Worker } from "node:worker_threads";

/** node:v8, for the services and the garbage collector only: ~2 ms of a one-shot command's start. */
const v8 = () => createRequire(import.meta.url)("node:v8") as typeof import("node:v8");

/**
 * glibc's lean allocator settings for the long, memory-heavy jobs (import, maintain): allocations
 * over 128 KB go straight to mmap, so they go back to the system when freed, and at most two arenas.
 * Without them, LanceDB's and ONNX Runtime's threads (40 and more during an import) each get an
 * arena of their own and fragment it: the whole 600 MB import peaked at 511 MB, with them at 447
 * (test/bench/README.md, Import). Every command takes the arena cap at start (useFewerArenas, from
 * bin/mnemo.js); only import and maintain add the threshold: it makes every large buffer of a search
 * an mmap, and cost the server's query endpoint a tenth to a third of its throughput.
 */
const MMAP_THRESHOLD = 131_072;
const ARENA_MAX = 2;

/** The same settings for a process mnemo starts itself (glibc reads them at its start). */
export const LEAN_ALLOCATOR = `glibc.malloc.mmap_threshold=${MMAP_THRESHOLD}:glibc.malloc.arena_max=${ARENA_MAX}`;

// mallopt's parameter numbers, from glibc's <malloc.h>.
const M_MMAP_THRESHOLD = -3;
const M_ARENA_MAX = -8;

/**
 * Applies the settings to this running process through glibc's `mallopt`, called by FFI (koffi, an
 * optional dependency): arenas that exist already stay, later ones are capped. Returns whether
 * both took effect. It does nothing off Linux, on another C library (no `libc.so.6`, as on Alpine),
 * without koffi, or when the user has set `GLIBC_TUNABLES` themselves.
 */
export function useLeanAllocator(): Promise<boolean> {
  return mallopt([
    [M_ARENA_MAX, ARENA_MAX],
    [M_MMAP_THRESHOLD, MMAP_THRESHOLD],
  ]);
}

/**
 * The arena cap alone: it holds only for arenas made after it, and loading the CLI starts threads
 * that make six. A server taking in the 600 MB export over HTTP averaged 875 MB over its first 8
 * minutes with an arena per thread (peak 1.36 GB), 543 MB with two (peak 936 MB), and ~700 MB with
 * the cap set only once the server had started (8 arenas).
 */
export function useFewerArenas(): Promise<boolean> {
  return mallopt([[M_ARENA_MAX, ARENA_MAX]]);
}

/** The commands that run until stopped, and serve requests meanwhile. */
const SERVICES = new Set(["serve", "mcp", "ui"]);
/** The commands that run long or take in much: the services, and the jobs over a whole store or export. */
const LONG_RUNNING = new Set([...SERVICES, "import", "maintain", "reindex", "watch", "service"]);

/**
 * The arena cap first thing (from bin/mnemo.js) for a long-running command. Any other sets it when it
 * opens the store itself (cli/session.ts), so that a command sent to a running server never loads
 * koffi: 8–10 ms of a 150 ms command. An argument that merely reads "import" sets it early, harmlessly.
 */
export async function useFewerArenasForLongRuns(argv: string[]): Promise<void> {
  if (argv.some((arg) => LONG_RUNNING.has(arg))) await useFewerArenas();
}

/**
 * A server's heap settings: the young generation stays at its first size, and the old generation
 * grows by half its live size before a full collection, not by V8's factor of up to 4. Garbage kept
 * longer also keeps LanceDB's result buffers (freed by the collection) in glibc's heaps longer:
 * `mnemo mcp` after 10k single stores and 50 searches held V8's heap 80 → 49 MB and glibc's free
 * memory 150 → 60 MB, RSS 387 → 317 MiB (260 idle, from 295), at the same CPU per store and search
 * (test/bench/README.md, peers).
 */
const SERVER_HEAP = "--semi-space-growth-factor=1 --heap-growing-percent=50";
let heapKeptSmall = false;

/**
 * For `serve`, `mcp` and `ui` (SERVER_HEAP). Set before the heap has grown (from bin/mnemo.js): the
 * young generation alone, after 50 memory searches, held 26 MB less (heap 28 MB instead of 55). An
 * argument that merely reads "mcp" (a memory's text) sets it for a one-shot command, harmlessly.
 */
export function keepHeapSmall(argv: string[]): void {
  if (!argv.some((arg) => SERVICES.has(arg))) return;
  heapKeptSmall = true;
  v8().setFlagsFromString(SERVER_HEAP);
}

/**
 * Sets them again once `worker` has started: a worker thread's start sets V8's flags back as the
 * command line gave them, and `mnemo mcp`'s young generation grew to 32 MB once the model's worker ran.
 */
export function keepHeapSmallAfter(worker: Worker): void {
  if (heapKeptSmall) worker.once("online", () => v8().setFlagsFromString(SERVER_HEAP));
}

let fullCollection: (() => void) | undefined;

/**
 * Two full collections of V8's heap: the pages the first one empties are given back by the second
 * (one alone left the old space at its size). Each blocks the event loop (70–80 ms in `mnemo mcp`
 * at 2k memories). `gc` is not exposed without --expose-gc on the command line; set at run time,
 * it is in the contexts made after.
 */
export async function collectGarbage(): Promise<void> {
  if (!fullCollection) {
    v8().setFlagsFromString("--expose-gc");
    fullCollection = vm.runInNewContext("gc") as () => void;
  }
  fullCollection();
  await new Promise((resolve) => setImmediate(resolve)); // a request that came meanwhile goes first
  fullCollection();
}

/**
 * Gives the free memory glibc keeps in its heaps back to the system (`malloc_trim`). A server that
 * took in the 600 MB export and searched while its vector index was rebuilt kept 1.23 GB resident,
 * 600 MB of it free. The call blocks the event loop for 75–211 ms (called on another thread through
 * koffi, it blocked it as long: the JavaScript thread's allocations wait for the arenas it locks),
 * so it is for once a minute at most, not for every request. Returns whether it ran (Linux with
 * glibc and koffi only).
 */
export async function giveBackFreeMemory(): Promise<boolean> {
  const trim = await libcFunction<(pad: number) => number>("int malloc_trim(size_t pad)");
  if (!trim) return false;
  trim(0);
  return true;
}

async function mallopt(settings: [param: number, value: number][]): Promise<boolean> {
  if (process.env.GLIBC_TUNABLES !== undefined) return false;
  const call = await libcFunction<(param: number, value: number) => number>("int mallopt(int param, int value)");
  return call !== undefined && settings.every(([param, value]) => call(param, value) === 1);
}

const libcFunctions = new Map<string, Promise<unknown>>();

/**
 * A function of glibc, loaded once through koffi (the server trims every minute); `undefined` off
 * Linux, on another C library (no `libc.so.6`, as on Alpine) or without koffi.
 */
function libcFunction<F>(signature: string): Promise<F | undefined> {
  let loaded = libcFunctions.get(signature);
  if (!loaded) {
    loaded =
      process.platform !== "linux"
        ? Promise.resolve(undefined)
        : import("koffi").then(({ default: koffi }) => koffi.load("libc.so.6").func(signature)).catch(() => undefined);
    libcFunctions.set(signature, loaded);
  }
  return loaded as Promise<F | undefined>;
}

/** How often a server looks whether it has gone idle after doing work, and what counts as each. */
const IDLE_CHECK_MS = 5_000;
const BUSY_CPU_MS = 50;
const IDLE_CPU_MS = 20;

/**
 * Once the process goes quiet after doing work (no request waits while these hold the event loop):
 * a full collection of V8's heap, then glibc's free memory back (giveBackFreeMemory). Busy, V8
 * keeps the pages its collections emptied, and glibc what LanceDB freed: `mnemo mcp` after 2k
 * single stores and 50 searches held 374 MB (V8's heap 125 MB, 47 of it used); collected 330, and
 * once trimmed a few seconds later 272 (heap 36 MB). Looks every 5 s at the CPU time the whole
 * process (LanceDB's threads and the model's included) has used. Returns what stops it.
 */
export function giveBackWhenIdle(): () => void {
  let last = cpuMs();
  let worked = false;
  const timer = setInterval(() => {
    const now = cpuMs();
    const used = now - last;
    last = now;
    if (used >= BUSY_CPU_MS) worked = true;
    else if (worked && used < IDLE_CPU_MS) {
      worked = false;
      // Their own CPU time is not work that calls for them again.
      void collectGarbage()
        .then(giveBackFreeMemory)
        .finally(() => (last = cpuMs()));
    }
  }, IDLE_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
