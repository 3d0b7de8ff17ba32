// Memory search quality (issue 27), on two sets:
//  - LoCoMo (../shared/bench/locomo10.json, read from there and never copied into the project):
//    every turn of a conversation is stored as a memory of that conversation's own user
//    ("Caroline: I went to a LGBTQ support group yesterday…"); each of the 1,540 questions of
//    categories 1–4 is the query and its evidence turns are the answer.
//  - fixtures/memories/paraphrased-questions.json: 30 short memories of one user, 30 questions
//    asked in other words (most share a common word with a memory that does not answer them), and
//    15 questions about nothing stored.
// Scored for the vector leg alone, the text leg alone (BM25, the full-text index's order), the
// weighted RRF that memories used before, the text leg re-scored by word coverage without vectors,
// and the hybrid that memory search now uses:
//   R@k   share of the evidence memories inside the top k (a question with 3 evidence turns that
//         finds 1 at rank 1 counts 1/3 towards R@1);
//   MRR   mean of 1 / the rank of the first evidence memory within the top 10 (0 when none).
// Also the top score of each query, for queries with an answer and for queries about nothing the
// user stored (LoCoMo: each question asked of the next conversation's user), and the latency.
//
//   node test/bench/locomo-memories.mjs [--limit N] [--store DIR]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT, benchEnv, fmt, heading, percentile, table, tempDir, writeResults } from "./lib.mjs";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { storeMemories } from "../../dist/core/memories/memories.js";
import { searchMemories } from "../../dist/core/memories/memory-search.js";
import { unrelatedSimilarity } from "../../dist/core/retrieval/unrelated-similarity.js";

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json") },
    store: { type: "string" },
    limit: { type: "string" },
    quick: { type: "boolean" },
    modes: { type: "string" },
  },
});

const CATEGORIES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
/** The rankings compared: how each asks memory search. */
const ALL_MODES = {
  vector: { mode: "vector", fusion: "rrf" },
  text: { mode: "bm25", fusion: "rrf" },
  "weighted RRF (before)": { mode: "hybrid", fusion: "rrf" },
  "words only (no vectors)": { mode: "bm25", fusion: "relevance" },
  hybrid: {},
};
/** `--modes hybrid` runs the hybrid alone (the scores' table needs it). */
const MODES = args.modes
  ? Object.fromEntries(Object.entries(ALL_MODES).filter(([name]) => args.modes.split(",").includes(name)))
  : ALL_MODES;
const DEPTH = 10;
const THRESHOLDS = [0.2, 0.25, 0.3, 0.325, 0.35, 0.375, 0.4, 0.5, 0.7];

const turnText = (turn) => `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ""}`;

function evidenceIds(evidence) {
  return evidence
    .flatMap((e) => e.split(/[;\s]+/))
    .map((e) => e.replace(/^D:/, "D").trim())
    .filter((e) => /^D\d+:\d+$/.test(e));
}

function turnsOf(sample) {
  return Object.entries(sample.conversation)
    .filter(([key, value]) => /^session_\d+$/.test(key) && Array.isArray(value))
    .flatMap(([, value]) => value);
}

/**
 * Stores every [key, text] as a memory of `userName`, the key as its `source` (how a hit is told
 * apart); a store that already has the user (`--store` again) is left as it is.
 */
async function storeAll(app, userName, entries) {
  const known = (await app.users.list()).some((user) => user.name === userName);
  const user = known ? await app.users.resolve(userName) : await app.users.add(userName);
  for (let i = 0; !known && i < entries.length; i += 500) {
    const batch = entries.slice(i, i + 500);
    await storeMemories(
      app.context,
      user.id,
      batch.map(([key, text]) => ({ text, source: key })),
    );
  }
  return user.id;
}

class Scores {
  constructor() {
    this.buckets = {};
  }
  add(category, ranked, answers) {
    for (const bucket of [category, "overall"]) {
      const s = (this.buckets[bucket] ??= { questions: 0, evidence: 0, r1: 0, r5: 0, rr: 0 });
      s.questions += 1;
      s.evidence += answers.size;
      s.r1 += ranked.slice(0, 1).filter((key) => answers.has(key)).length;
      s.r5 += ranked.slice(0, 5).filter((key) => answers.has(key)).length;
      const first = ranked.slice(0, DEPTH).findIndex((key) => answers.has(key));
      s.rr += first === -1 ? 0 : 1 / (first + 1);
    }
  }
  rows(set, mode, names) {
    return Object.entries(this.buckets).map(([bucket, s]) => ({
      set,
      mode,
      category: names[bucket] ?? bucket,
      questions: s.questions,
      r1: s.r1 / s.evidence,
      r5: s.r5 / s.evidence,
      mrr: s.rr / s.questions,
    }));
  }
}

async function ask(app, userId, query, tuning, columns = ["source"]) {
  const started = performance.now();
  const hits = await searchMemories(app.context, { query, filter: { userId }, limit: DEPTH, columns, ...tuning });
  return { hits, ms: performance.now() - started };
}

/** One set: every mode's ranking quality, the top scores, the latency. */
async function scoreSet(app, set, questions, names) {
  const scores = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, new Scores()]));
  const top = { answered: [], answeredFirst: [], unrelated: [] };
  const ms = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, []]));
  for (const q of questions) {
    for (const [mode, tuning] of Object.entries(MODES)) {
      const { hits, ms: took } = await ask(app, q.userId, q.query, tuning);
      ms[mode].push(took);
      const ranked = hits.map((hit) => hit.row.source);
      scores[mode].add(q.category, ranked, q.answers);
      if (mode === "hybrid" && hits[0]) {
        top.answered.push(hits[0].score);
        if (q.answers.has(ranked[0])) top.answeredFirst.push(hits[0].score);
      }
    }
    if (q.unrelatedUserId) {
      const { hits } = await ask(app, q.unrelatedUserId, q.query, MODES.hybrid);
      if (hits[0]) top.unrelated.push(hits[0].score);
    }
  }
  for (const query of questionsAboutNothing(set)) {
    const { hits } = await ask(app, query.userId, query.query, MODES.hybrid);
    if (hits[0]) top.unrelated.push(hits[0].score);
  }
  return {
    rows: Object.entries(scores).flatMap(([mode, s]) => s.rows(set, mode, names)),
    top,
    latency: Object.fromEntries(
      Object.entries(ms).map(([mode, values]) => [mode, { p50: percentile(values, 50), p95: percentile(values, 95) }]),
    ),
  };
}

let aboutNothing = [];
const questionsAboutNothing = (set) => aboutNothing.filter((query) => query.set === set);

async function locomoQuestions(app, data) {
  const users = [];
  for (const sample of data) {
    const turns = turnsOf(sample);
    users.push(
      await storeAll(
        app,
        `locomo-${sample.sample_id}`,
        turns.map((turn) => [turn.dia_id, turnText(turn)]),
      ),
    );
  }
  const questions = [];
  data.forEach((sample, i) => {
    const known = new Set(turnsOf(sample).map((turn) => turn.dia_id));
    for (const qa of sample.qa) {
      if (!(qa.category in CATEGORIES)) continue;
      const answers = new Set(evidenceIds(qa.evidence).filter((id) => known.has(id)));
      if (answers.size === 0) continue;
      questions.push({
        query: qa.question,
        category: qa.category,
        answers,
        userId: users[i],
        unrelatedUserId: users[(i + 1) % users.length],
      });
    }
  });
  return args.limit ? questions.slice(0, Number(args.limit)) : args.quick ? questions.slice(0, 300) : questions;
}

async function paraphraseQuestions(app) {
  const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, "fixtures", "memories", "paraphrased-questions.json"), "utf8"));
  const userId = await storeAll(app, "paraphrased", Object.entries(fixture.memories));
  aboutNothing = fixture.unrelated.map((query) => ({ set: "paraphrased", query, userId }));
  return fixture.questions.map((q) => ({ query: q.query, category: "paraphrased", answers: new Set([q.answer]), userId }));
}

function share(values, threshold) {
  return values.length === 0 ? NaN : values.filter((value) => value >= threshold).length / values.length;
}

async function main() {
  const load = os.loadavg();
  const data = JSON.parse(fs.readFileSync(args.data, "utf8"));
  const store = args.store ?? tempDir("locomo-memories");
  const app = await createApp(loadConfig({ store, embedder: "bundled" }, benchEnv()), { maintenance: "off" });
  const started = performance.now();
  const locomo = await locomoQuestions(app, data);
  const paraphrased = await paraphraseQuestions(app);
  await app.maintenance.run(); // the indexes, as background maintenance would build them
  const storeSeconds = (performance.now() - started) / 1000;
  const unrelatedLevel = await unrelatedSimilarity(app.context.embedder);

  const sets = [
    ["LoCoMo", await scoreSet(app, "LoCoMo", locomo, CATEGORIES)],
    ["paraphrased", await scoreSet(app, "paraphrased", paraphrased, {})],
  ];
  await app.close();

  heading(`Memory search: ${locomo.length} LoCoMo questions over ${data.length} users' turns, ${paraphrased.length} paraphrased questions`);
  const rows = sets.flatMap(([, result]) => result.rows);
  console.log(
    table(
      [
        ["set", (r) => r.set, "l"],
        ["mode", (r) => r.mode, "l"],
        ["category", (r) => r.category, "l"],
        ["questions", (r) => r.questions],
        ["R@1", (r) => fmt(r.r1, 3)],
        ["R@5", (r) => fmt(r.r5, 3)],
        ["MRR", (r) => fmt(r.mrr, 3)],
      ],
      rows,
    ),
  );
  heading("Top score of the hybrid (share of queries whose best memory scores at least …)");
  const scoreRows = sets.flatMap(([set, result]) =>
    Object.entries(result.top).map(([kind, values]) => ({ set, kind, n: values.length, values })),
  );
  console.log(
    table(
      [
        ["set", (r) => r.set, "l"],
        ["queries", (r) => r.kind, "l"],
        ["n", (r) => r.n],
        ["median", (r) => fmt(percentile(r.values, 50), 2)],
        ...THRESHOLDS.map((t) => [`≥ ${t}`, (r) => fmt(share(r.values, t), 2)]),
      ],
      scoreRows,
    ),
  );
  heading("Latency per query (ms, p50 / p95; embedding included)");
  console.log(
    table(
      [
        ["set", (r) => r.set, "l"],
        ...Object.keys(MODES).map((mode) => [mode, (r) => `${fmt(r.latency[mode].p50)} / ${fmt(r.latency[mode].p95)}`]),
      ],
      sets.map(([set, result]) => ({ set, latency: result.latency })),
    ),
  );
  console.log(
    `\nStored and indexed in ${storeSeconds.toFixed(0)} s; the embedder's unrelated level: ${unrelatedLevel.toFixed(3)}; load average before: ${load.map((l) => l.toFixed(2)).join(" ")}`,
  );
  writeResults("locomo-memories", {
    loadAverageBefore: load,
    loadAverageAfter: os.loadavg(),
    unrelatedSimilarity: unrelatedLevel,
    rows,
    topScores: scoreRows.map(({ values, ...rest }) => ({
      ...rest,
      median: percentile(values, 50),
      ...Object.fromEntries(THRESHOLDS.map((t) => [`atLeast${t}`, share(values, t)])),
    })),
    latency: Object.fromEntries(sets.map(([set, result]) => [set, result.latency])),
  });
}

await main();
