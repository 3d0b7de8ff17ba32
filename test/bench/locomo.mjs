// Retrieval quality on LoCoMo (../shared/bench/locomo10.json; see its README: it is never copied
// into the project). Each of the 10 samples is imported as its own user, each session as a
// conversation whose message ids are the dia_ids, timed from the session date. The 1,535 questions
// of categories 1–4 (positives) are scored by evidence recall:
//   R@5, R@10  share of evidence turns inside the top 5 / 10 search results (chunks);
//   budget     share of evidence turns whose text is inside what recall returns within 2,000 tokens;
//   first      share of questions whose first cited conversation holds an evidence turn, beside
//              search's own: the share whose first hit's conversation holds one.
// Negatives (issue 34): asked of each sample's store, questions of the other samples (people and
// events not in it; --negatives per store, drawn at random with a fixed seed) and the hand-written
// questions of absent-questions.json. Scored: the share for which recall cites nothing, and the
// share whose first search hit is above the "probably unrelated" threshold. The calibration table
// gives, per threshold, the share of the positives' evidence turns found among the 40 candidates
// whose passage scores at least that, and the share of negatives whose best passage does.
// Vector-only and BM25-only run beside the hybrid with --modes.
//
// --chunk-tokens N makes a new store's chunks of at most N tokens (its config.json's chunkTokens);
// the share of chunks the bundled model reads whole (it reads the first 128 of its own tokens) is printed.
//
//   node test/bench/locomo.mjs [--store DIR] [--modes hybrid,vector,bm25] [--limit N] [--negatives N]
//                              [--margins 2,3] [--chunk-tokens N] [--json FILE]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { findChunks } from "../../dist/core/retrieval/search.js";
import { recall } from "../../dist/core/retrieval/recall.js";
import { PASSAGE_THRESHOLD } from "../../dist/core/retrieval/passage-relevance.js";
import { UseTokenizer } from "../../dist/providers/bundled/use-tokenizer.js";
import { bundledModelDir } from "../../dist/providers/bundled/bundled-model-file.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json") },
    store: { type: "string" },
    modes: { type: "string", default: "hybrid" },
    negatives: { type: "string", default: "40" },
    margins: { type: "string" },
    limit: { type: "string" },
    budget: { type: "string", default: "2000" },
    json: { type: "string" },
    embedder: { type: "string", default: "bundled" },
    "chunk-tokens": { type: "string" },
  },
});

const CATEGORIES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" → Date (UTC). */
function sessionDate(text) {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) throw new Error(`unreadable session date: ${text}`);
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === "pm") hour += 12;
  return new Date(Date.UTC(Number(m[6]), MONTHS.indexOf(m[5].toLowerCase()), Number(m[4]), hour, Number(m[2])));
}

function evidenceIds(evidence) {
  return evidence
    .flatMap((e) => e.split(/[;\s]+/))
    .map((e) => e.replace(/^D:/, "D").trim())
    .filter((e) => /^D\d+:\d+$/.test(e));
}

const turnText = (turn) => `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ""}`;
const normalise = (text) => text.toLowerCase().replace(/\s+/g, " ").trim();

function uploads(sample) {
  const c = sample.conversation;
  const sessions = Object.keys(c)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
  return sessions.map((key) => {
    const start = sessionDate(c[`${key}_date_time`]);
    return {
      platform: "locomo",
      conversation: {
        id: `${sample.sample_id}-${key}`,
        title: `${c.speaker_a} and ${c.speaker_b}, ${key.replace("_", " ")}`,
        createdAt: start.toISOString(),
        messages: c[key].map((turn, i) => ({
          id: turn.dia_id,
          role: turn.speaker === c.speaker_a ? "human" : "assistant",
          content: turnText(turn),
          createdAt: new Date(start.getTime() + i * 30_000).toISOString(),
        })),
      },
    };
  });
}

async function settle(app) {
  for (;;) {
    const rows = await app.context.store.select("conversations", "status IN ('queued', 'processing')", { columns: ["id"] });
    if (rows.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main() {
  const data = JSON.parse(fs.readFileSync(args.data, "utf8"));
  const store = args.store ?? fs.mkdtempSync(path.join(os.tmpdir(), "mnemo-locomo-"));
  if (args["chunk-tokens"]) {
    fs.mkdirSync(store, { recursive: true });
    fs.writeFileSync(path.join(store, "config.json"), JSON.stringify({ chunkTokens: Number(args["chunk-tokens"]) }));
  }
  const app = await createApp(loadConfig({ store, embedder: args.embedder }, { ...process.env, MNEMO_RERANKER: "none" }));
  const fresh = (await app.users.list()).length <= 1;
  const started = performance.now();
  if (fresh) {
    app.indexer.start();
    for (const sample of data) {
      await app.users.add(`locomo-${sample.sample_id}`).catch(() => undefined);
      const service = await app.service(`locomo-${sample.sample_id}`);
      await service.conversations.uploadMany(uploads(sample));
    }
    await settle(app);
    await app.indexer.stop();
    await app.maintenance.run();
  }
  const importSeconds = (performance.now() - started) / 1000;
  const chunkCount = await app.context.store.count("chunks", "true");
  const { chunkTokens } = app.context.store.meta;
  const modelTokenizer = new UseTokenizer(JSON.parse(fs.readFileSync(path.join(bundledModelDir(), "vocab.json"), "utf8")));
  const chunkTexts = await app.context.store.select("chunks", "true", { columns: ["text"] });
  const readWhole = chunkTexts.filter((chunk) => modelTokenizer.encode(chunk.text).length <= 128).length / chunkTexts.length;

  const modes = args.modes.split(",");
  const margins = args.margins ? args.margins.split(",").map(Number) : [undefined];
  const variants = modes.flatMap((mode) =>
    margins.map((margin) => ({ mode, margin, name: margin === undefined ? mode : `${mode}, margin ${margin}` })),
  );
  const budget = Number(args.budget);
  const stats = Object.fromEntries(variants.map((v) => [v.name, {}]));
  const add = (variant, category, values) => {
    for (const bucket of [category, "overall"]) {
      const s = (stats[variant][bucket] ??= { questions: 0, evidence: 0, r5: 0, r10: 0, budget: 0, first: 0, searchFirst: 0, recallMs: 0 });
      s.questions += 1;
      for (const [key, value] of Object.entries(values)) s[key] += value;
    }
  };
  const calibration = { evidence: [], negatives: { other: [], absent: [] } };
  const negatives = Object.fromEntries(
    variants.map((v) => [v.name, { other: { n: 0, silent: 0, searchAbove: 0 }, absent: { n: 0, silent: 0, searchAbove: 0 } }]),
  );
  const absent = JSON.parse(fs.readFileSync(path.join(ROOT, "test", "bench", "absent-questions.json"), "utf8")).questions;
  let seed = 34;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let asked = 0;
  for (const sample of data) {
    const user = await app.users.resolve(`locomo-${sample.sample_id}`);
    // Each conversation's session: an evidence turn D3:5 is in session 3.
    const sessions = new Map(
      (await app.context.store.select("conversations", `userId = '${user.id}'`, { columns: ["id", "platformConversationId"] })).map((c) => [
        c.id,
        c.platformConversationId.split("-session_")[1],
      ]),
    );
    const turns = new Map();
    for (const [_key, value] of Object.entries(sample.conversation)) {
      if (Array.isArray(value)) for (const turn of value) turns.set(turn.dia_id, normalise(turnText(turn)));
    }
    for (const qa of sample.qa) {
      if (!(qa.category in CATEGORIES)) continue;
      const evidence = [...new Set(evidenceIds(qa.evidence))].filter((id) => turns.has(id));
      if (evidence.length === 0) continue;
      if (args.limit && asked >= Number(args.limit)) break;
      asked++;
      for (const variant of variants) {
        const { mode } = variant;
        const { hits } = await findChunks(app.context, user.id, { query: qa.question, limit: 40, provider: "all", rerank: false, mode });
        const within = (k) => new Set(hits.slice(0, k).flatMap((hit) => hit.chunk.messageIds));
        const top5 = within(5);
        const top10 = within(10);
        if (variant === variants[0]) {
          for (const id of evidence) {
            const hit = hits.find((h) => h.chunk.messageIds.includes(id));
            if (hit) calibration.evidence.push(hit.score);
          }
        }
        const t = performance.now();
        const answer = await recall(
          app.context,
          user.id,
          { query: qa.question, maxTokens: budget },
          { mode, conversationMargin: variant.margin },
        );
        const recallMs = performance.now() - t;
        const content = normalise(answer.content);
        const holdsEvidence = (conversationId) => evidence.some((id) => id.startsWith(`D${sessions.get(conversationId)}:`));
        add(variant.name, qa.category, {
          evidence: evidence.length,
          r5: evidence.filter((id) => top5.has(id)).length,
          r10: evidence.filter((id) => top10.has(id)).length,
          budget: evidence.filter((id) => content.includes(turns.get(id))).length,
          first: answer.sources[0] && holdsEvidence(answer.sources[0].conversationId) ? 1 : 0,
          searchFirst: hits[0] && holdsEvidence(hits[0].chunk.conversationId) ? 1 : 0,
          recallMs,
        });
      }
    }
    // Negatives: other samples' questions (people and events not in this store) and absent topics.
    const others = data
      .filter((other) => other !== sample)
      .flatMap((other) => other.qa.filter((qa) => qa.category in CATEGORIES).map((qa) => qa.question));
    const drawn = others.filter(() => random() < Number(args.negatives) / others.length);
    for (const [kind, questions] of [
      ["other", drawn],
      ["absent", absent],
    ]) {
      for (const question of questions) {
        for (const variant of variants) {
          const { hits } = await findChunks(app.context, user.id, {
            query: question,
            limit: 20,
            provider: "all",
            rerank: false,
            mode: variant.mode,
          });
          const answer = await recall(
            app.context,
            user.id,
            { query: question, maxTokens: budget },
            { mode: variant.mode, conversationMargin: variant.margin },
          );
          const n = negatives[variant.name][kind];
          n.n += 1;
          n.silent += answer.sources.length === 0 ? 1 : 0;
          n.searchAbove += hits[0] && hits[0].score >= PASSAGE_THRESHOLD ? 1 : 0;
          if (variant === variants[0]) calibration.negatives[kind].push(hits[0]?.score ?? 0);
        }
      }
    }
  }
  await app.close();

  const rows = [];
  for (const variant of variants) {
    for (const bucket of [...Object.keys(CATEGORIES), "overall"]) {
      const s = stats[variant.name][bucket];
      if (!s) continue;
      rows.push({
        mode: variant.name,
        category: CATEGORIES[bucket] ?? "overall",
        questions: s.questions,
        evidence: s.evidence,
        r5: s.r5 / s.evidence,
        r10: s.r10 / s.evidence,
        budget: s.budget / s.evidence,
        first: s.first / s.questions,
        searchFirst: s.searchFirst / s.questions,
        recallMs: s.recallMs / s.questions,
      });
    }
  }
  const thresholds = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
  const share = (values, t) => values.filter((v) => v >= t).length / Math.max(1, values.length);
  const calibrationRows = thresholds.map((t) => ({
    threshold: t,
    evidenceKept: share(calibration.evidence, t),
    otherAbove: share(calibration.negatives.other, t),
    absentAbove: share(calibration.negatives.absent, t),
  }));
  const negativeRows = Object.entries(negatives).flatMap(([mode, kinds]) =>
    Object.entries(kinds).map(([kind, n]) => ({ mode, kind, questions: n.n, silent: n.silent / n.n, searchAbove: n.searchAbove / n.n })),
  );
  const result = {
    store,
    chunks: chunkCount,
    chunkTokens,
    readWhole,
    importSeconds: fresh ? importSeconds : null,
    budget,
    threshold: PASSAGE_THRESHOLD,
    loadAverage: os.loadavg(),
    rows,
    negatives: negativeRows,
    calibration: calibrationRows,
  };
  if (args.json) fs.writeFileSync(args.json, JSON.stringify(result, null, 2));
  console.log(
    `LoCoMo: ${asked} questions, ${chunkCount} chunks of up to ${chunkTokens} tokens (${(readWhole * 100).toFixed(0)}% within the bundled model's 128 tokens), store ${store}${fresh ? `, imported in ${importSeconds.toFixed(0)} s` : ""}`,
  );
  console.log(
    "| mode | category | questions | R@5 | R@10 | evidence in 2,000-token recall | first cited conversation holds evidence | search's first hit does | recall ms/q |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.mode} | ${r.category} | ${r.questions} | ${r.r5.toFixed(3)} | ${r.r10.toFixed(3)} | ${r.budget.toFixed(3)} | ${r.first.toFixed(3)} | ${r.searchFirst.toFixed(3)} | ${r.recallMs.toFixed(0)} |`,
    );
  }
  console.log("\n| mode | negatives | questions | recall cites nothing | search's first hit above the threshold |");
  console.log("|---|---|---:|---:|---:|");
  for (const r of negativeRows)
    console.log(`| ${r.mode} | ${r.kind} | ${r.questions} | ${r.silent.toFixed(3)} | ${r.searchAbove.toFixed(3)} |`);
  console.log(
    `\nCalibration (${calibration.evidence.length} evidence turns among the candidates; ${calibration.negatives.other.length} + ${calibration.negatives.absent.length} negatives)`,
  );
  console.log(
    "| threshold | positives' evidence kept | other samples' questions: best passage above | absent topics: best passage above |",
  );
  console.log("|---:|---:|---:|---:|");
  for (const r of calibrationRows)
    console.log(`| ${r.threshold} | ${r.evidenceKept.toFixed(3)} | ${r.otherAbove.toFixed(3)} | ${r.absentAbove.toFixed(3)} |`);
}

await main();
