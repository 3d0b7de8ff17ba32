// Retrieval quality on LoCoMo (../shared/bench/locomo10.json; see its README: it is never copied
// into the project). Each of the 10 samples is imported as its own user, each session as a
// conversation whose message ids are the dia_ids, timed from the session date. The 1,540 questions
// of categories 1–4 are scored by evidence recall:
//   R@5, R@10  share of evidence turns inside the top 5 / 10 search results (chunks);
//   budget     share of evidence turns whose text is inside what recall returns within 2,000 tokens.
// Vector-only, BM25-only and hybrid run side by side.
//
//   node test/bench/locomo.mjs [--store DIR] [--modes hybrid,vector,bm25] [--limit N] [--json FILE]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";
import { findChunks } from "../../dist/core/retrieval/search.js";
import { recall } from "../../dist/core/retrieval/recall.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: process.env.LOCOMO_PATH ?? path.join(ROOT, "..", "shared", "bench", "locomo10.json") },
    store: { type: "string" },
    modes: { type: "string", default: "hybrid,vector,bm25" },
    limit: { type: "string" },
    budget: { type: "string", default: "2000" },
    json: { type: "string" },
    embedder: { type: "string", default: "bundled" },
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

  const modes = args.modes.split(",");
  const budget = Number(args.budget);
  const stats = Object.fromEntries(modes.map((mode) => [mode, {}]));
  const add = (mode, category, key, found, total) => {
    for (const bucket of [category, "overall"]) {
      const s = (stats[mode][bucket] ??= { questions: 0, evidence: 0, r5: 0, r10: 0, budget: 0, recallMs: 0 });
      if (key === "q") s.questions += 1;
      else s[key] += found;
      if (key === "r5") s.evidence += total;
    }
  };
  let asked = 0;
  for (const sample of data) {
    const user = await app.users.resolve(`locomo-${sample.sample_id}`);
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
      for (const mode of modes) {
        const { hits } = await findChunks(app.context, user.id, { query: qa.question, limit: 10, provider: "all", rerank: false, mode });
        const within = (k) => new Set(hits.slice(0, k).flatMap((hit) => hit.chunk.messageIds));
        const top5 = within(5);
        const top10 = within(10);
        const t = performance.now();
        const answer = await recall(app.context, user.id, { query: qa.question, maxTokens: budget }, { mode });
        const content = normalise(answer.content);
        add(mode, qa.category, "q", 0, 0);
        add(mode, qa.category, "r5", evidence.filter((id) => top5.has(id)).length, evidence.length);
        add(mode, qa.category, "r10", evidence.filter((id) => top10.has(id)).length, evidence.length);
        add(mode, qa.category, "budget", evidence.filter((id) => content.includes(turns.get(id))).length, evidence.length);
        add(mode, qa.category, "recallMs", performance.now() - t, 0);
      }
    }
  }
  await app.close();

  const rows = [];
  for (const mode of modes) {
    for (const bucket of [...Object.keys(CATEGORIES), "overall"]) {
      const s = stats[mode][bucket];
      if (!s) continue;
      rows.push({
        mode,
        category: CATEGORIES[bucket] ?? "overall",
        questions: s.questions,
        evidence: s.evidence,
        r5: s.r5 / s.evidence,
        r10: s.r10 / s.evidence,
        budget: s.budget / s.evidence,
        recallMs: s.recallMs / s.questions,
      });
    }
  }
  const result = { store, chunks: chunkCount, importSeconds: fresh ? importSeconds : null, budget, rows };
  if (args.json) fs.writeFileSync(args.json, JSON.stringify(result, null, 2));
  console.log(
    `LoCoMo: ${asked} questions, ${chunkCount} chunks, store ${store}${fresh ? `, imported in ${importSeconds.toFixed(0)} s` : ""}`,
  );
  console.log("| mode | category | questions | R@5 | R@10 | evidence in 2,000-token recall | recall ms/q |");
  console.log("|---|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.mode} | ${r.category} | ${r.questions} | ${r.r5.toFixed(3)} | ${r.r10.toFixed(3)} | ${r.budget.toFixed(3)} | ${r.recallMs.toFixed(0)} |`,
    );
  }
}

await main();
