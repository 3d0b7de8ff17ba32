// A search's CPU inside the server, and a check that a change keeps search results byte for byte
// (issues 37.2, 40.2; test/bench/README.md, "A search's CPU inside the server"). Not part of
// `npm run bench`: it works on a store you built (10k memories and chunks, as search.mjs fills them).
//
//   node test/bench/search-cpu.mjs dump <store> <out.json> [dist]    results of ~100 memory and ~100 chat queries
//   node test/bench/search-cpu.mjs ab <store> <distA> <distB>        CPU per call, blocks of 40 calls alternated
//
// `dist` is a build of the project (default: ./dist); copy one aside (with package.json beside it, inside
// the checkout so that node_modules resolves) to compare two. Dumps of two builds are compared with `cmp`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchEnv, textSource } from "./lib.mjs";

const [mode, store, ...rest] = process.argv.slice(2);
const DIST = path.resolve(import.meta.dirname, "../../dist");

async function open(dist) {
  const { createApp } = await import(path.join(path.resolve(dist), "core/app.js"));
  const { loadConfig } = await import(path.join(path.resolve(dist), "config/load-config.js"));
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()));
  return { dist, app, service: await app.service() };
}

/** Generated questions and memory-like phrases, and a few hostile ones (unspaced scripts, quotes, stop words only). */
function queries(seed) {
  const t = textSource(seed);
  const odd = [
    "tea",
    "What is my dog called?",
    "Lisbon trip with Priya",
    '"tram 28"',
    "東京 ラーメン",
    "note 7",
    "I am",
    "KeyError in CSV",
    "zzzqqq",
    "the",
  ];
  const memory = Array.from({ length: 90 }, (_, i) =>
    i % 3 === 0
      ? t.query()
      : t
          .memory()
          .split(" ")
          .slice(0, 3 + (i % 6))
          .join(" "),
  );
  const chat = Array.from({ length: 90 }, (_, i) => (i % 2 === 0 ? t.query() : t.passage(8)));
  return { memory: [...memory, ...odd], chat: [...chat, ...odd] };
}

async function dump([out, dist = DIST]) {
  const { app, service } = await open(dist);
  const { memory, chat } = queries(5);
  const result = { memories: [], legacy: [], chats: [] };
  for (const [i, query] of memory.entries()) {
    result.memories.push(await service.memories.listV2({ query, includeIds: true, count: i % 2 ? 10 : 5, skip: i % 5 === 0 ? 3 : 0 }));
    result.legacy.push(await service.memories.list({ query, v: 2 }));
  }
  for (const [i, query] of chat.entries()) {
    const { processingTime: _, ...found } = await service.search({
      query,
      limit: i % 2 ? 10 : 5,
      includeUnrelated: i % 3 === 0,
      contextChunks: i % 5,
    });
    result.chats.push(found);
  }
  fs.writeFileSync(out, JSON.stringify(result, null, 1));
  await app.close();
}

const BLOCK = 40;
const ROUNDS = 8;
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function ab(dists) {
  const builds = [];
  for (const dist of dists) builds.push(await open(dist));
  const { memory, chat } = queries(9);
  const kinds = {
    memories: [memory, (s, query) => s.memories.listV2({ query, includeIds: true })],
    chats: [chat, (s, query) => s.search({ query })],
  };
  for (const [kind, [texts, run]] of Object.entries(kinds)) {
    for (const build of builds) for (const query of texts.slice(0, 20)) await run(build.service, query);
    const blocks = builds.map(() => ({ cpu: [], main: [] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [b, build] of builds.entries()) {
        const cpu = process.cpuUsage();
        const loop = performance.eventLoopUtilization();
        for (let i = 0; i < BLOCK; i++) await run(build.service, texts[(round * BLOCK + i) % texts.length]);
        const used = process.cpuUsage(cpu);
        blocks[b].cpu.push((used.user + used.system) / 1000 / BLOCK);
        blocks[b].main.push(performance.eventLoopUtilization(loop).active / BLOCK);
      }
    }
    for (const [b, build] of builds.entries()) {
      const { cpu, main } = blocks[b];
      console.log(
        `${kind} ${build.dist}: CPU ${median(cpu).toFixed(2)} ms per call (main thread ${median(main).toFixed(2)}), load ${os.loadavg()[0].toFixed(1)}`,
      );
    }
  }
  for (const build of builds) await build.app.close();
}

if (mode === "dump" && store && rest[0]) await dump(rest);
else if (mode === "ab" && store && rest.length === 2) await ab(rest);
else {
  console.error("usage: search-cpu.mjs dump <store> <out.json> [dist] | ab <store> <distA> <distB>");
  process.exitCode = 2;
}
