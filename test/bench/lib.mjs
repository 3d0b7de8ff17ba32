// Shared helpers of the benchmark suite: arguments, statistics, Markdown tables, result files,
// temp stores, deterministic text, and rows inserted straight into the store (to reach 100k rows
// without embedding 100k texts). Benchmarks print what they measure; nothing here asserts a timing.
process.env.LANCEDB_LOG ??= "error";

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = path.join(ROOT, "bin", "mnemo.js");
export const RESULTS_DIR = path.join(ROOT, "test", "bench", "results");
export const TINY_BERT = path.join(ROOT, "fixtures", "models", "tiny-bert");
export const QUICK = process.argv.includes("--quick");

/** Environment for child processes and configs: quiet LanceDB, no reranker download, no user config leaking in. */
export function benchEnv(extra = {}) {
  const env = { ...process.env, LANCEDB_LOG: "error", MNEMO_RERANKER: "none", ...extra };
  for (const key of ["MNEMO_URL", "MNEMO_TOKEN", "MNEMO_USER", "MNEMO_EMBEDDER", "MNEMO_SYNTHESIZER"]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

// ---------------------------------------------------------------------------------------------
// Temp dirs, removed on exit (also on Ctrl-C).

const tempDirs = new Set();
export function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mnemo-bench-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}
export function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}
function cleanup() {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.on("exit", cleanup);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });
}

export function dirSizeMB(dir) {
  let total = 0;
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else total += fs.statSync(p).size;
    }
  };
  walk(dir);
  return total / 1024 / 1024;
}

export function freeDiskMB(dir = os.tmpdir()) {
  const stats = fs.statfsSync(dir);
  return (stats.bavail * stats.bsize) / 1024 / 1024;
}

// ---------------------------------------------------------------------------------------------
// Statistics and output.

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}
export const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
export const summary = (values) => ({ n: values.length, p50: percentile(values, 50), p95: percentile(values, 95), mean: mean(values) });

export function fmt(value, digits = 1) {
  if (value === undefined || value === null || Number.isNaN(value)) return "–";
  if (typeof value !== "number") return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
}

/** A Markdown table: `columns` are [header, (row) => cell, align?] with align "l" or "r" (default r). */
export function table(columns, rows) {
  const lines = [
    `| ${columns.map(([header]) => header).join(" | ")} |`,
    `|${columns.map(([, , align]) => (align === "l" ? "---" : "---:")).join("|")}|`,
    ...rows.map((row) => `| ${columns.map(([, cell]) => String(cell(row))).join(" | ")} |`),
  ];
  return lines.join("\n");
}

export function heading(text) {
  console.log(`\n### ${text}\n`);
}

export function writeResults(name, result) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ bench: name, quick: QUICK, machine: machine(), ...result }, null, 2)}\n`);
  console.log(`\nResults written to ${path.relative(ROOT, file)}`);
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: os.availableParallelism(),
    ramGB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
  };
}

export function hasCommand(name) {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/** The first line a tool prints about its version (some, like wrk, print it with a failing exit code). */
export function commandVersion(command, args = ["--version"]) {
  const run = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (run.error) return undefined;
  const line = `${run.stdout}\n${run.stderr}`
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  return line?.replace(/\s+Copyright.*$/, "");
}

/** Share of CPU time (0–1, all cores) spent busy over `ms`, from /proc/stat: to flag a machine that is not idle. */
export async function cpuBusy(ms = 1000) {
  const read = () => {
    const [, ...fields] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
    const values = fields.map(Number);
    const idle = values[3] + (values[4] ?? 0);
    return { idle, total: values.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = read();
    await sleep(ms);
    const b = read();
    return 1 - (b.idle - a.idle) / Math.max(1, b.total - a.total);
  } catch {
    return undefined;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function timed(work) {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

export function gc() {
  globalThis.gc?.();
}

// ---------------------------------------------------------------------------------------------
// Deterministic, varied text: a dozen topics, each with sentence templates whose slots are
// filled from shared lists (names, places, numbers, dates), so texts differ in words and length
// the way personal notes and chat turns do, and full-text search has real term statistics.

export function rng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (min, max) => min + Math.floor(next() * (max - min + 1));
  next.pick = (items) => items[Math.floor(next() * items.length)];
  next.gauss = () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return next;
}

const NAMES = [
  "Priya",
  "Tomás",
  "Aiko",
  "Marta",
  "Jonas",
  "Leila",
  "Dmitri",
  "Sofia",
  "Kwame",
  "Elena",
  "Ravi",
  "Hannah",
  "Mateo",
  "Yuki",
  "Olga",
  "Sam",
  "Fatima",
  "Lukas",
  "Inès",
  "Chen",
];
const PLACES = [
  "Lisbon",
  "Kyoto",
  "Berlin",
  "Porto",
  "Oaxaca",
  "Edinburgh",
  "Seoul",
  "Valencia",
  "Montreal",
  "Tbilisi",
  "Bergen",
  "Hanoi",
  "Cape Town",
  "Ljubljana",
  "Osaka",
  "Vienna",
];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const TOPICS = {
  cooking: {
    nouns: [
      "sourdough starter",
      "miso soup",
      "risotto",
      "kimchi",
      "focaccia",
      "dal",
      "ramen broth",
      "shakshuka",
      "banana bread",
      "pesto",
      "tortillas",
      "curry paste",
    ],
    sentences: [
      "I feed the {noun} every {day} morning with {n} grams of rye flour and water.",
      "{name} says the {noun} tastes better when it rests overnight in the fridge.",
      "The {noun} came out too salty last time, so halve the soy sauce next time.",
      "Bake the {noun} at {temp} degrees for about {n} minutes until the crust is deep brown.",
      "I'm allergic to peanuts, so swap them for toasted sunflower seeds in the {noun}.",
      "My favourite {noun} recipe is the one {name} brought back from {place}.",
      "For a dinner of {n} people, triple the {noun} and start it two hours early.",
      "Hydration around {pct} percent keeps the {noun} open without making it sticky.",
      "Use the cast iron pan for the {noun}; the non-stick one scorches at high heat.",
      "Freeze leftover {noun} in small portions and thaw them on {day} evenings.",
    ],
    questions: [
      "how long do I bake the {noun}",
      "what did {name} say about the {noun}",
      "which flour for the {noun}",
      "what is my {noun} recipe from {place}",
    ],
  },
  travel: {
    nouns: [
      "night train",
      "hostel",
      "ferry",
      "walking tour",
      "rental car",
      "museum pass",
      "tram line",
      "flight",
      "guesthouse",
      "hiking trail",
      "rail pass",
      "city card",
    ],
    sentences: [
      "We booked the {noun} to {place} for the {ord} of {month}, departing at {hour}.",
      "{name} recommended a small {noun} near the old town in {place}.",
      "The {noun} in {place} costs about {n} euros per person, cash only on {day}s.",
      "Remember to validate the ticket before boarding the {noun}, the fine is {n} euros.",
      "I prefer window seats on the {noun} and an aisle seat on long flights.",
      "Our budget for {place} is {n} euros a day including the {noun}.",
      "The {noun} from {place} was delayed {n} minutes, so plan a longer connection.",
      "Pack a light rain jacket: {place} in {month} gets afternoon showers.",
      "{name} and I want to visit {place} again next {month}, maybe with the {noun}.",
      "The best pastel de nata we found was two streets from the {noun} stop.",
    ],
    questions: [
      "when do we leave for {place}",
      "what is our daily budget in {place}",
      "which {noun} did {name} recommend",
      "what should I pack for {place} in {month}",
    ],
  },
  programming: {
    nouns: [
      "connection pool",
      "retry loop",
      "database migration",
      "feature flag",
      "unit test",
      "cache layer",
      "build pipeline",
      "API client",
      "rate limiter",
      "vector index",
      "parser",
      "worker queue",
    ],
    sentences: [
      "The {noun} leaks file handles when the request times out after {n} seconds.",
      "{name} suggested wrapping the {noun} in a circuit breaker with exponential backoff.",
      "We pinned the {noun} dependency to version {n}.{small} until the regression is fixed.",
      "p95 latency of the {noun} went from {n} ms to {n2} ms after the deploy on {day}.",
      "Always run the {noun} against a copy of production data before the release.",
      "The TypeScript types for the {noun} are generated from the OpenAPI spec.",
      "I prefer small pull requests: the {noun} change should be split into {small} parts.",
      "The flaky {noun} test fails about once in {n} runs on the CI machine.",
      "Logging every call of the {noun} doubled the memory use, so sample at {pct} percent.",
      "Move the {noun} behind an interface so the tests can use an in-memory fake.",
    ],
    questions: [
      "why does the {noun} leak",
      "what did {name} suggest for the {noun}",
      "what was the {noun} latency regression",
      "which version of the {noun} did we pin",
    ],
  },
  fitness: {
    nouns: [
      "tempo run",
      "long run",
      "interval session",
      "deadlift",
      "yoga class",
      "swim set",
      "recovery week",
      "hill repeats",
      "rowing workout",
      "squat",
      "stretching routine",
      "half marathon",
    ],
    sentences: [
      "My {noun} this week was {n} kilometres at an easy conversational pace.",
      "{name} coaches the {noun} on {day}s at the track near the river.",
      "After the {noun} my left knee aches, so ice it for {small}0 minutes.",
      "The goal for the {noun} in {month} is to finish under {n} minutes.",
      "Eat something with carbs about {small} hours before the {noun}.",
      "Heart rate during the {noun} should stay below {n2} beats per minute.",
      "I skipped the {noun} on {day} because of the cold, do it on the weekend.",
      "The physio said to add a {noun} twice a week to strengthen the hips.",
      "Sleep at least {small} hours before a hard {noun}, otherwise it feels awful.",
      "I signed up for the {noun} in {place} on the {ord} of {month}.",
    ],
    questions: [
      "how far was my {noun}",
      "when is the {noun} in {place}",
      "what did the physio say about the {noun}",
      "what heart rate for the {noun}",
    ],
  },
  language: {
    nouns: [
      "kanji",
      "subjunctive",
      "past tense",
      "flashcard deck",
      "listening practice",
      "verb conjugation",
      "pronunciation",
      "vocabulary list",
      "grammar particle",
      "reading club",
      "tutor session",
      "podcast",
    ],
    sentences: [
      "I review the {noun} for {small}0 minutes every morning on the tram.",
      "{name}, my tutor, wants me to focus on the {noun} before the exam in {month}.",
      "The {noun} for は versus が still confuses me in longer sentences.",
      "I learned {n} new words this week from the {noun}.",
      "Practising the {noun} out loud helps more than reading it silently.",
      "The {noun} on {day} evenings in {place} is free for beginners.",
      "Mnemonic for the {noun}: picture the word as a small story.",
      "My {noun} streak is {n} days; do not break it while travelling.",
      "The textbook explains the {noun} badly, the podcast from {name} is clearer.",
      "Target for {month}: read a short novel without looking up every {noun}.",
    ],
    questions: [
      "how many words did I learn from the {noun}",
      "when is the {noun} exam",
      "what did {name} say about the {noun}",
      "which {noun} trick helps me",
    ],
  },
  garden: {
    nouns: [
      "tomato plants",
      "compost bin",
      "basil",
      "raised bed",
      "rose bush",
      "lemon tree",
      "seed trays",
      "drip irrigation",
      "lavender",
      "strawberries",
      "potato sacks",
      "herb spiral",
    ],
    sentences: [
      "The {noun} get yellow leaves when I water them more than every {small} days.",
      "{name} gave me cuttings for the {noun} in {month}.",
      "Move the {noun} to the sunny side of the balcony after the last frost.",
      "Add crushed eggshells and coffee grounds to the {noun} every {day}.",
      "The {noun} produced about {n} grams this season, better than last year.",
      "Aphids came back on the {noun}; spray with soapy water in the evening.",
      "Prune the {noun} in late {month} before new growth starts.",
      "The {noun} needs a pot at least {n} centimetres deep.",
      "Mulch around the {noun} keeps the soil moist during heat waves.",
      "Neighbours in {place} swear by nettle tea as fertiliser for the {noun}.",
    ],
    questions: [
      "why do the {noun} have yellow leaves",
      "when should I prune the {noun}",
      "what did {name} give me for the garden",
      "how deep a pot for the {noun}",
    ],
  },
  finance: {
    nouns: [
      "emergency fund",
      "index fund",
      "tax return",
      "mortgage",
      "electricity bill",
      "pension plan",
      "savings account",
      "phone contract",
      "insurance policy",
      "budget spreadsheet",
      "rent increase",
      "car loan",
    ],
    sentences: [
      "The {noun} should cover {small} months of expenses, about {n}0 euros.",
      "{name} from the bank said the {noun} renews on the {ord} of {month}.",
      "I moved {n} euros into the {noun} after the bonus in {month}.",
      "The {noun} went up {pct} percent, so compare offers before {month}.",
      "File the {noun} before the deadline; last year it was late by {small} days.",
      "Automatic transfer to the {noun} happens every {day} after payday.",
      "Cancel the old {noun}, it still charges {n} euros a month.",
      "The {noun} fee is {small}.{small} percent, cheaper than the bank's own product.",
      "Keep receipts for the {noun} in the shared folder named by year.",
      "Decision: no new {noun} until the {noun2} is paid off.",
    ],
    questions: [
      "when does the {noun} renew",
      "how much did I move into the {noun}",
      "what did {name} say about the {noun}",
      "how big should the {noun} be",
    ],
  },
  work: {
    nouns: [
      "quarterly review",
      "roadmap",
      "stand-up",
      "design doc",
      "on-call rotation",
      "hiring loop",
      "offsite",
      "incident report",
      "budget proposal",
      "customer demo",
      "retrospective",
      "launch plan",
    ],
    sentences: [
      "The {noun} moved to {day} at {hour} because {name} is travelling.",
      "{name} owns the {noun} and wants comments by the end of {month}.",
      "Action item from the {noun}: reduce p95 search latency below {n} ms.",
      "The {noun} slides need the numbers from the {ord} of {month}.",
      "I agreed to cover the {noun} for {name} during the week of the {ord}.",
      "The {noun} went well, but the demo crashed once when the network dropped.",
      "Keep the {noun} under {small}0 minutes; people stop listening after that.",
      "The {noun} in {place} has a budget of {n}0 euros for travel.",
      "Write the {noun} summary in plain words, no acronyms, for the new team.",
      "Feedback on the {noun}: fewer bullet points, more concrete examples.",
    ],
    questions: [
      "when is the {noun}",
      "who owns the {noun}",
      "what action items came from the {noun}",
      "what feedback did I get on the {noun}",
    ],
  },
  health: {
    nouns: [
      "dentist appointment",
      "allergy test",
      "blood test",
      "eye exam",
      "physiotherapy",
      "vitamin D",
      "sleep schedule",
      "migraine",
      "vaccination",
      "flu shot",
      "back pain",
      "iron supplement",
    ],
    sentences: [
      "The {noun} is on {day} the {ord} of {month} at {hour}.",
      "Dr. {name} said the {noun} results were normal except for low ferritin.",
      "Take the {noun} with food, never on an empty stomach.",
      "The {noun} started after {small} nights of bad sleep last {month}.",
      "I am allergic to penicillin; tell them before the {noun}.",
      "Book the next {noun} {small} months after the last one.",
      "The {noun} costs {n} euros without the insurance card.",
      "Less screen time after {hour} helped the {noun} a lot.",
      "{name} recommended a clinic in {place} for the {noun}.",
      "Write down each {noun} episode with time and what I ate before.",
    ],
    questions: ["when is my {noun}", "what did Dr. {name} say about the {noun}", "what am I allergic to", "what helped with the {noun}"],
  },
  music: {
    nouns: [
      "guitar lesson",
      "piano piece",
      "concert tickets",
      "vinyl record",
      "playlist",
      "choir rehearsal",
      "jazz club",
      "ukulele",
      "metronome practice",
      "music festival",
      "drum kit",
      "songbook",
    ],
    sentences: [
      "The {noun} with {name} is every {day} at {hour}.",
      "I practise the {noun} slowly at {n} beats per minute, then speed up.",
      "The {noun} in {place} sold out in {small} hours last year.",
      "{name} lent me the {noun}; give it back before {month}.",
      "My favourite {noun} right now is an old bossa nova album from the sixties.",
      "Tune down half a step for the {noun}, it fits my voice better.",
      "The {noun} costs {n} euros; split it with {name}.",
      "Record the {noun} once a week to hear progress honestly.",
      "Bring earplugs to the {noun}, the last one was far too loud.",
      "The bridge of the {noun} still trips me up at bar {n}.",
    ],
    questions: ["when is the {noun}", "what tempo do I practise the {noun} at", "what did {name} lend me", "how much were the {noun}"],
  },
  family: {
    nouns: [
      "birthday party",
      "school play",
      "family dinner",
      "summer holiday",
      "dentist visit",
      "piano recital",
      "grandparents' visit",
      "anniversary",
      "moving day",
      "wedding",
      "swimming lessons",
      "parent evening",
    ],
    sentences: [
      "{name}'s {noun} is on the {ord} of {month}; order the cake a week before.",
      "For the {noun}, {name} is vegetarian and the kids dislike mushrooms.",
      "The {noun} is at {hour} on {day}, bring the camera with a charged battery.",
      "Gift idea for the {noun}: a pottery class in {place} for two.",
      "We promised {name} the {noun} would be in {place} this year.",
      "Budget for the {noun} is {n} euros including travel.",
      "Remember to confirm the {noun} with {name} by {day}.",
      "The {noun} last year ran late; plan an extra hour this time.",
      "{name} prefers a quiet {noun}, not a big party.",
      "Book the {noun} venue by {month}, they fill up quickly.",
    ],
    questions: [
      "when is {name}'s {noun}",
      "what gift for the {noun}",
      "what does {name} prefer for the {noun}",
      "what is the budget for the {noun}",
    ],
  },
  reading: {
    nouns: [
      "novel",
      "book club",
      "library loan",
      "audiobook",
      "poetry collection",
      "biography",
      "reading list",
      "short story",
      "essay",
      "graphic novel",
      "history book",
      "e-reader",
    ],
    sentences: [
      "The {noun} {name} recommended is set in {place} in the nineteen twenties.",
      "Our {noun} meets on the last {day} of the month at {hour}.",
      "I stopped the {noun} at chapter {n}; the middle dragged.",
      "The {noun} is due back on the {ord} of {month}, renew it online.",
      "Favourite line from the {noun}: memory is a house with many rooms.",
      "Read the {noun} in the original language, the translation loses the jokes.",
      "{name} and I disagree about the ending of the {noun}.",
      "The {noun} for {month} is about the history of maps and navigation.",
      "I read about {n} pages a day on the {noun}, mostly on the train.",
      "Add the {noun} about {place} to the reading list for the summer.",
    ],
    questions: [
      "which {noun} did {name} recommend",
      "when is the {noun} due",
      "when does the {noun} meet",
      "what did I think of the {noun}",
    ],
  },
};
export const TOPIC_NAMES = Object.keys(TOPICS);

function fill(template, topic, r) {
  const ordinal = (n) =>
    `${n}${n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th"}`;
  return template
    .replaceAll("{noun2}", () => r.pick(topic.nouns))
    .replaceAll("{noun}", () => r.pick(topic.nouns))
    .replaceAll("{name}", () => r.pick(NAMES))
    .replaceAll("{place}", () => r.pick(PLACES))
    .replaceAll("{day}", () => r.pick(DAYS))
    .replaceAll("{month}", () => r.pick(MONTHS))
    .replaceAll("{ord}", () => ordinal(r.int(1, 28)))
    .replaceAll("{hour}", () => `${r.int(7, 21)}:${r.pick(["00", "15", "30", "45"])}`)
    .replaceAll("{temp}", () => String(r.int(18, 26) * 10))
    .replaceAll("{pct}", () => String(r.int(5, 95)))
    .replaceAll("{small}", () => String(r.int(2, 9)))
    .replaceAll("{n2}", () => String(r.int(100, 900)))
    .replaceAll("{n}", () => String(r.int(10, 500)));
}

/** A generator of deterministic texts; each call gives a new one. */
export function textSource(seed = 1) {
  const r = rng(seed);
  const topicOf = () => TOPICS[r.pick(TOPIC_NAMES)];
  const sentence = (topic) => fill(r.pick(topic.sentences), topic, r);
  return {
    random: r,
    /** A memory-sized note (~10–25 words): one or two sentences of one topic. */
    memory() {
      const topic = topicOf();
      const first = sentence(topic);
      return first.split(" ").length < 12 ? `${first} ${sentence(topic)}` : first;
    },
    /** About `words` words of one topic. */
    passage(words = 150, topic = topicOf()) {
      const parts = [];
      let count = 0;
      while (count < words) {
        const s = sentence(topic);
        parts.push(s);
        count += s.split(" ").length;
      }
      return parts.join(" ");
    },
    /** A short (~15 words) text. */
    short() {
      return this.passage(12);
    },
    /** A search question. */
    query() {
      const topic = topicOf();
      return fill(r.pick(topic.questions), topic, r);
    },
    topic: topicOf,
    sentence,
    /** A chat conversation in mnemo's upload shape, with `messages` turns (human first). */
    conversation(id, messages, created = new Date(Date.UTC(2024, 0, 1) + r.int(0, 600) * 86_400_000)) {
      const topic = topicOf();
      const title = fill(r.pick(topic.questions), topic, r).replace(/^./, (c) => c.toUpperCase());
      const turns = [];
      for (let i = 0; i < messages; i++) {
        const human = i % 2 === 0;
        const content = human
          ? `${fill(r.pick(topic.questions), topic, r).replace(/^./, (c) => c.toUpperCase())}? ${this.passage(r.int(5, 30), topic)}`
          : this.passage(r.int(40, 220), topic);
        turns.push({
          id: `${id}-m${i + 1}`,
          role: human ? "human" : "assistant",
          content,
          createdAt: new Date(created.getTime() + i * 45_000).toISOString(),
        });
      }
      return {
        platform: "bench",
        platformDisplayName: "Bench",
        conversation: { id, title, createdAt: created.toISOString(), messages: turns },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Vectors for rows inserted directly: a few thousand texts are embedded once, and every row
// reuses one of those vectors plus small Gaussian noise, renormalised to unit length. The noise
// (σ per dimension, default 0.01 — cosine ≈ 0.97 to its base for 512 dims) spreads the copies
// into clusters, so vector indexes and top-k see distinct vectors instead of exact duplicates.

export function perturbed(base, r, sigma = 0.01) {
  const v = new Float32Array(base.length);
  let norm = 0;
  for (let i = 0; i < base.length; i++) {
    v[i] = base[i] + sigma * r.gauss();
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** Embeds `texts` with the app's embedder, reporting the time it took. */
export async function embedBase(app, texts) {
  const started = performance.now();
  const vectors = await app.context.embedder.embedDocuments(texts);
  return { vectors, ms: performance.now() - started };
}

const ISO_BASE = Date.UTC(2023, 0, 1);
const isoAt = (i) => new Date(ISO_BASE + i * 60_000).toISOString();

export function memoryRow(newId, userId, text, vector, i) {
  const at = isoAt(i);
  return {
    id: newId("mem"),
    userId,
    bucketId: 1,
    text,
    contentType: "text",
    imageFile: null,
    imageDescription: null,
    source: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    vector,
  };
}

/**
 * Inserts `count` memory rows (text from `texts(i)`, vector perturbed from `bases`) in batches of
 * 5,000, each batch one write. Returns the seconds it took.
 */
export async function insertMemories(app, { newId, userId, count, start = 0, text, bases, seed = 7, batch = 5_000 }) {
  const r = rng(seed + start);
  const started = performance.now();
  for (let from = start; from < start + count; from += batch) {
    const rows = [];
    for (let i = from; i < Math.min(start + count, from + batch); i++) {
      rows.push(memoryRow(newId, userId, text(i), perturbed(bases[i % bases.length], r), i));
    }
    await app.context.store.write(() => app.context.store.add("memories", rows));
  }
  return (performance.now() - started) / 1000;
}

/**
 * A chunk row as the index worker writes it: `messages` ([{id, sender, text, time}]) joined by
 * blank lines, with offsets into the joined text.
 */
export function chunkRow(userId, conversationId, chunkIndex, messages, vector) {
  const offsets = [];
  let text = "";
  for (const m of messages) {
    if (text) text += "\n\n";
    offsets.push(text.length);
    text += m.text;
  }
  return {
    id: `${conversationId}:1:${chunkIndex}`,
    userId,
    conversationId,
    platform: "bench",
    chunkIndex,
    text,
    sender: messages[0].sender,
    messageIds: messages.map((m) => m.id),
    messageOffsets: offsets,
    messageTimes: messages.map((m) => m.time),
    messageSenders: messages.map((m) => m.sender),
    timestamp: messages[0].time,
    tokenCount: Math.round(text.split(/\s+/).length * 1.3),
    active: true,
    vector,
  };
}

export function conversationRow(userId, id, title, createdAt, chunkCount) {
  return {
    id,
    userId,
    platform: "bench",
    platformConversationId: id,
    importId: "imp_bench",
    title,
    createdAt,
    updatedAt: createdAt,
    status: "ready",
    statusReason: null,
    pinned: false,
    excluded: false,
    quotaBlocked: false,
    messageCount: chunkCount * 2,
    tokenCount: chunkCount * 200,
    contentHash: `bench-${id}`,
    revision: 1,
    claimedAt: null,
    claimedBy: null,
    uploadedAt: createdAt,
  };
}

/** Fragment counts of a table (LanceDB's table.stats()). */
/**
 * Inserts conversations of `perConversation` chunks each (2–3 generated messages of one topic a
 * chunk, vectors near `bases`) until the store holds `target` chunks, from `from`. Returns seconds.
 */
export async function insertConversations(app, { newId, userId, from = 0, target, bases, text, perConversation = 10, batch = 5_000 }) {
  const r = rng(from + 3);
  const per = perConversation;
  const started = performance.now();
  for (let start = from; start < target; start += batch) {
    const end = Math.min(target, start + batch);
    const conversations = [];
    const chunks = [];
    for (let c = start / per; c < end / per; c++) {
      const id = newId("conv");
      const created = new Date(Date.UTC(2023, 0, 1) + c * 3_600_000);
      const topic = text.topic();
      const title = text.sentence(topic).split(" ").slice(0, 8).join(" ");
      conversations.push(conversationRow(userId, id, title, created.toISOString(), per));
      let m = 0;
      for (let k = 0; k < per; k++) {
        const messages = [];
        for (let j = 0, n = r.int(2, 3); j < n; j++, m++) {
          const sender = m % 2 === 0 ? "human" : "assistant";
          const words = sender === "human" ? r.int(15, 35) : r.int(60, 110);
          messages.push({
            id: `${id}-m${m}`,
            sender,
            text: text.passage(words, topic),
            time: new Date(created.getTime() + m * 45_000).toISOString(),
          });
        }
        const i = start + (c - start / per) * per + k;
        chunks.push(chunkRow(userId, id, k, messages, perturbed(bases[i % bases.length], r)));
      }
    }
    await app.context.store.write(async () => {
      await app.context.store.add("conversations", conversations);
      await app.context.store.add("chunks", chunks);
    });
  }
  return (performance.now() - started) / 1000;
}

export async function fragments(app, key) {
  const stats = await (await app.context.store.table(key)).stats();
  return { fragments: stats.fragmentStats.numFragments, small: stats.fragmentStats.numSmallFragments, rows: stats.numRows };
}

export async function indexNames(app, key) {
  return (await (await app.context.store.table(key)).listIndices()).map((index) => `${index.columns.join(",")}:${index.indexType}`);
}

/** Peak RSS of a child process, in MB, from /proc/<pid>/status VmHWM, polled until it exits. */
export function watchPeakRss(pid, everyMs = 100) {
  let peak = 0;
  const read = () => (peak = Math.max(peak, highWaterMB(pid)));
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      read();
      clearInterval(timer);
      return peak;
    },
  };
}

/** Pids of `mnemo maintain` processes a CLI command left running on `dir` (detached maintenance). */
export function maintainProcesses(dir) {
  const pids = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (cmd.includes("maintain") && cmd.some((part) => part.startsWith(dir))) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * Waits (up to `timeoutMs`) for the detached maintenance a CLI command started on `dir` to finish.
 * Returns how long it ran and its peak RSS (VmHWM), 0 when none ran.
 */
export async function waitForDetachedMaintenance(dir, timeoutMs = 600_000) {
  await sleep(500);
  const started = performance.now();
  const until = Date.now() + timeoutMs;
  const peaks = new Map();
  for (;;) {
    const pids = maintainProcesses(dir);
    if (pids.length === 0 || Date.now() >= until) break;
    for (const pid of pids) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, highWaterMB(pid)));
    await sleep(100);
  }
  return { seconds: peaks.size > 0 ? (performance.now() - started) / 1000 : 0, peakRssMB: Math.max(0, ...peaks.values()) };
}

function highWaterMB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0; // gone
  }
}

// ---------------------------------------------------------------------------------------------
// `mnemo serve` in a process of its own (pressure.mjs, soak.mjs).

/** Current RSS of a process in MB (VmRSS), 0 once it is gone. */
export function rssMB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Starts `mnemo serve --port <port> --json` on `store` (port 0 picks one) and resolves once it
 * listens, with its URL, the default user's token and its pid. The log goes to a file beside the
 * store. `stop()` sends SIGTERM (SIGKILL after 20 s); `kill()` is kill -9. MNEMO_BENCH_BIN runs
 * another build's bin/mnemo.js instead (an older commit's, to compare under the same load).
 */
export async function serveProcess(store, { port = 0, env = {} } = {}) {
  const logFile = path.join(path.dirname(store), `serve-${Date.now()}.log`);
  const log = fs.openSync(logFile, "w");
  const bin = process.env.MNEMO_BENCH_BIN ?? BIN;
  const child = spawn(process.execPath, [bin, "serve", "--port", String(port), "--json", "--store", store], {
    env: benchEnv({ MNEMO_EMBEDDER: "bundled", ...env }),
    stdio: ["ignore", "pipe", log],
  });
  fs.closeSync(log);
  const stderr = () => fs.readFileSync(logFile, "utf8").slice(-5_000);
  let stdout = "";
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr()}`)), 120_000);
    child.stdout.on("data", (d) => {
      stdout += d;
      try {
        const parsed = JSON.parse(stdout);
        clearTimeout(timer);
        resolve(parsed);
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr()}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url: info.url,
    token: fs.readFileSync(info.tokenFile, "utf8").trim(),
    pid: child.pid,
    logFile,
    exited,
    stop: async () => {
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(20_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
