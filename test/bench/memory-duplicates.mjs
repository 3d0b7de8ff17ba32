// store_memory's near-duplicate check (issue 39): where "says nearly the same" is drawn, with the
// bundled embedder, and what it would merge.
//  - fixtures/memories: the 30 memories of paraphrased-questions.json stored, then each stored
//    again in other words (restated.json `restated`: to be caught) and a different fact on the
//    same topic (`different`: never to be caught), through the check the store uses
//    (core/memories/similar-memory.ts); and every pair of the 30 (no two are the same fact).
//  - LoCoMo (../shared/bench/locomo10.json, read from there and never copied): every pair of turns
//    of each conversation, with the rule, to list what it would call the same (the check compares a
//    new memory with its 5 nearest: all pairs are a superset).
// Prints the shared words and cosine of each kind of pair, and writes results/memory-duplicates.json
// (LoCoMo's pairs are printed, never written).
//
//   node test/bench/memory-duplicates.mjs [--no-locomo]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, benchEnv, fmt, heading, table, tempDir, writeResults } from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { storeMemories } from "../../dist/core/memories/memories.js";
import { SIMILAR_COSINE, SIMILAR_WORDS, findSimilarMemory, nearlySame, sharedWords } from "../../dist/core/memories/similar-memory.js";

const LOCOMO = process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json");
const withLocomo = !process.argv.includes("--no-locomo") && fs.existsSync(LOCOMO);
const load = os.loadavg();

const fixture = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "fixtures", "memories", name), "utf8"));
const { memories } = fixture("paraphrased-questions.json");
const { restated, different } = fixture("restated.json");
const keys = Object.keys(memories);

function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

const app = await createApp(loadConfig({ store: tempDir("duplicates"), embedder: "bundled" }, benchEnv()), { maintenance: "off" });
const { embedder } = app.context;

// Pairs, measured directly.
const [originals, again, other] = await Promise.all(
  [memories, restated, different].map((set) => embedder.embedDocuments(keys.map((key) => set[key]))),
);
const pair = (a, b, va, vb) => ({ words: sharedWords(a, b), cosine: cosine(va, vb) });
const kinds = {
  "stored again in other words": keys.map((key, i) => pair(memories[key], restated[key], originals[i], again[i])),
  "another fact, same topic": keys.map((key, i) => pair(memories[key], different[key], originals[i], other[i])),
  "two of the 30": keys.flatMap((a, i) =>
    keys.slice(i + 1).map((b, j) => pair(memories[a], memories[b], originals[i], originals[i + 1 + j])),
  ),
};

// Through the check itself, on a store that holds the 30.
const user = await app.users.add("duplicates");
const ids = await storeMemories(
  app.context,
  user.id,
  keys.map((key) => ({ text: memories[key], source: key })),
);
const keyOf = new Map(ids.map((id, i) => [id, keys[i]]));
const checked = { caught: 0, wrong: 0, merged: [] };
for (const key of keys) {
  const { similar: found } = await findSimilarMemory(app.context, user.id, restated[key]);
  if (found && keyOf.get(found.memoryId) === key) checked.caught++;
  else if (found) checked.wrong++;
  const { similar: merged } = await findSimilarMemory(app.context, user.id, different[key]);
  if (merged) checked.merged.push(`${different[key]} → ${merged.text}`);
}

let locomo;
if (withLocomo) {
  const data = JSON.parse(fs.readFileSync(LOCOMO, "utf8"));
  const turnText = (turn) => `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ""}`;
  locomo = { pairs: 0, same: [] };
  for (const sample of data) {
    const turns = Object.entries(sample.conversation)
      .filter(([key, value]) => /^session_\d+$/.test(key) && Array.isArray(value))
      .flatMap(([, value]) => value)
      .map(turnText);
    const vectors = await embedder.embedDocuments(turns);
    for (let i = 0; i < turns.length; i++) {
      for (let j = i + 1; j < turns.length; j++) {
        locomo.pairs++;
        const words = sharedWords(turns[i], turns[j]);
        if (words < SIMILAR_WORDS) continue;
        const similarity = cosine(vectors[i], vectors[j]);
        if (nearlySame(words, similarity)) locomo.same.push({ words, cosine: similarity, a: turns[i], b: turns[j] });
      }
    }
  }
  locomo.same.sort((a, b) => b.cosine - a.cosine);
}
await app.close();

heading(`Near-duplicates: the rule is shared words ≥ ${SIMILAR_WORDS} and cosine ≥ ${SIMILAR_COSINE} (bundled embedder)`);
const span = (values) => `${fmt(Math.min(...values), 3)} – ${fmt(Math.max(...values), 3)}`;
console.log(
  table(
    [
      ["pairs", (r) => r.kind, "l"],
      ["n", (r) => r.pairs.length],
      ["shared words", (r) => span(r.pairs.map((p) => p.words))],
      ["cosine", (r) => span(r.pairs.map((p) => p.cosine))],
      ["called the same", (r) => r.pairs.filter((p) => nearlySame(p.words, p.cosine)).length],
    ],
    Object.entries(kinds).map(([kind, pairs]) => ({ kind, pairs })),
  ),
);
console.log(
  `\nThrough store_memory's check on a store of the 30: ${checked.caught} of ${keys.length} restatements found their memory (${checked.wrong} another), ${checked.merged.length} of ${keys.length} other facts called the same.`,
);
if (locomo) {
  console.log(`LoCoMo: ${locomo.same.length} of ${locomo.pairs.toLocaleString("en-US")} pairs of turns called the same; the first 10:`);
  for (const { words, cosine: c, a, b } of locomo.same.slice(0, 10)) console.log(`  ${fmt(words, 2)} ${fmt(c, 3)}  ${a}  ||  ${b}`);
}
console.log(`\nLoad average before: ${load.map((l) => l.toFixed(2)).join(" ")}`);
writeResults("memory-duplicates", {
  rule: { sharedWords: SIMILAR_WORDS, cosine: SIMILAR_COSINE },
  pairs: Object.fromEntries(
    Object.entries(kinds).map(([kind, pairs]) => [
      kind,
      {
        n: pairs.length,
        words: [Math.min(...pairs.map((p) => p.words)), Math.max(...pairs.map((p) => p.words))],
        cosine: [Math.min(...pairs.map((p) => p.cosine)), Math.max(...pairs.map((p) => p.cosine))],
        same: pairs.filter((p) => nearlySame(p.words, p.cosine)).length,
      },
    ]),
  ),
  check: { restatementsCaught: checked.caught, caughtAnother: checked.wrong, otherFactsMerged: checked.merged },
  // Counts only: LoCoMo's text stays out of the project.
  locomo: locomo ? { pairs: locomo.pairs, same: locomo.same.length } : null,
  loadBefore: load,
});
