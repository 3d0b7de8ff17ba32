#!/usr/bin/env node
// Writes a realistic ChatGPT `conversations.json` of about <sizeMB> megabytes, streaming
// (one conversation at a time, honouring backpressure), for memory/throughput benchmarks.
//
//   node test/bench/generate-chatgpt-export.mjs /tmp/conversations.json 600 [--cut-emoji]
//
// The output is deterministic (seeded PRNG). Each conversation has a system root, hidden
// context messages, branched (regenerated) answers with `current_node` on one branch,
// tool calls, multimodal parts, code blocks and non-ASCII text, like real exports. Titles are cut
// to 60 characters between characters; `--cut-emoji` cuts them as some exports do, through an
// emoji's surrogate pair (a lone surrogate, which the importer repairs).
import { createWriteStream } from "node:fs";
import { once } from "node:events";

const [outPath, sizeArg, ...flags] = process.argv.slice(2);
if (!outPath || !sizeArg || !(Number(sizeArg) > 0) || flags.some((flag) => flag !== "--cut-emoji")) {
  console.error("usage: node generate-chatgpt-export.mjs <outPath> <sizeMB> [--cut-emoji]");
  process.exit(2);
}
const cutEmoji = flags.includes("--cut-emoji");
const targetBytes = Math.round(Number(sizeArg) * 1024 * 1024);

let seed = 0x9e3779b9;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];
const int = (min, max) => min + Math.floor(random() * (max - min + 1));

const WORDS = (
  "the a to of and in for is on that with as it be this are you can your by from or at an " +
  "sourdough starter hydration flour oven lisbon tram alfama pastel nata itinerary budget " +
  "python script traceback exception list dictionary loop variable function import module " +
  "japanese hiragana katakana kanji grammar particle verb conjugation practice flashcards " +
  "garden tomato compost watering schedule marathon training tempo interval recovery " +
  "database index query latency cache memory stream buffer parser token sentence paragraph " +
  "recipe temperature minutes overnight fermentation crumb crust bake schedule weekend"
).split(" ");
const EXTRA = ["Grüße aus München", "ありがとうございます", "日本語の勉強", "café com leite", "🙂", "🚋", "naïve façade", "Ελληνικά"];

function sentence() {
  const n = int(6, 22);
  const words = [];
  for (let i = 0; i < n; i++) words.push(random() < 0.03 ? pick(EXTRA) : pick(WORDS));
  const s = words.join(" ");
  return s.charAt(0).toUpperCase() + s.slice(1) + pick([".", ".", ".", "?", "!"]);
}
function paragraph(sentences) {
  const parts = [];
  for (let i = 0; i < sentences; i++) parts.push(sentence());
  return parts.join(" ");
}
function answerText() {
  const paragraphs = [];
  for (let i = int(1, 5); i > 0; i--) paragraphs.push(paragraph(int(2, 6)));
  if (random() < 0.25) paragraphs.push(`\`\`\`python\nfor i in range(10):\n    print(i * ${int(2, 9)})\n\`\`\``);
  return paragraphs.join("\n\n");
}

/** The first 60 UTF-16 units of a title: a whole character less where that would split one, unless asked to. */
function cutTitle(text) {
  const cut = text.slice(0, 60);
  return cutEmoji ? cut : cut.replace(/[\ud800-\udbff]$/, "");
}

let idCounter = 0;
const uuid = () => {
  idCounter++;
  const hex = idCounter.toString(16).padStart(12, "0");
  return `${Math.floor(random() * 0xffffffff)
    .toString(16)
    .padStart(8, "0")}-aaaa-4bbb-8ccc-${hex}`;
};

function message(id, role, time, content, extra = {}) {
  return {
    id,
    author: { role, name: extra.authorName ?? null, metadata: {} },
    create_time: time,
    update_time: null,
    content,
    status: "finished_successfully",
    end_turn: role === "assistant" ? true : null,
    weight: 1.0,
    metadata: {
      is_visually_hidden_from_conversation: extra.hidden ?? undefined,
      model_slug: role === "assistant" ? pick(["gpt-4o", "gpt-4o-mini", "o3"]) : undefined,
      default_model_slug: "auto",
      parent_id: extra.parentId,
      request_id: `${uuid()}-req`,
      timestamp_: "absolute",
      message_type: null,
      citations: [],
      content_references: [],
    },
    recipient: extra.recipient ?? "all",
    channel: null,
  };
}

function conversation(index) {
  const mapping = {};
  const start = 1_650_000_000 + index * 3_600 + random();
  let time = start;
  const add = (msg, parent) => {
    const nodeId = msg ? msg.id : uuid();
    mapping[nodeId] = { id: nodeId, message: msg, parent, children: [] };
    if (parent) mapping[parent].children.push(nodeId);
    return nodeId;
  };
  const root = add(null, null);
  let current = add(message(uuid(), "system", null, { content_type: "text", parts: [""] }, { hidden: true }), root);
  current = add(
    message(
      uuid(),
      "user",
      null,
      { content_type: "user_editable_context", user_profile: "I bake bread.", user_instructions: "Be brief." },
      { hidden: true },
    ),
    current,
  );
  const turns = int(2, 14);
  for (let turn = 0; turn < turns; turn++) {
    time += int(20, 600);
    const userContent =
      random() < 0.1
        ? {
            content_type: "multimodal_text",
            parts: [
              {
                content_type: "image_asset_pointer",
                asset_pointer: `file-service://file-${uuid()}`,
                width: 1024,
                height: 768,
                size_bytes: 123456,
              },
              paragraph(int(1, 3)),
            ],
          }
        : { content_type: "text", parts: [paragraph(int(1, 4))] };
    current = add(message(uuid(), "user", time, userContent), current);
    if (random() < 0.15) {
      const call = add(
        message(
          uuid(),
          "assistant",
          time + 1,
          { content_type: "code", language: "unknown", text: `search("${pick(WORDS)} ${pick(WORDS)}")` },
          { recipient: "web" },
        ),
        current,
      );
      current = add(message(uuid(), "tool", time + 2, { content_type: "text", parts: [paragraph(2)] }, { authorName: "web" }), call);
    }
    if (random() < 0.2) {
      // A regenerated answer: the abandoned branch stays in the mapping.
      add(message(uuid(), "assistant", time + 3, { content_type: "text", parts: [answerText()] }), current);
    }
    if (random() < 0.2) {
      current = add(
        message(uuid(), "assistant", time + 4, { content_type: "thoughts", thoughts: [{ summary: "Thinking", content: paragraph(2) }] }),
        current,
      );
    }
    current = add(message(uuid(), "assistant", time + 5, { content_type: "text", parts: [answerText()] }), current);
  }
  return {
    title: cutTitle(sentence()),
    create_time: start,
    update_time: time + 5,
    mapping,
    moderation_results: [],
    current_node: current,
    plugin_ids: null,
    conversation_id: uuid(),
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    safe_urls: [],
    default_model_slug: "auto",
    id: undefined,
  };
}

async function main() {
  const out = createWriteStream(outPath);
  let written = 0;
  const write = async (text) => {
    written += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  await write("[");
  let count = 0;
  while (written < targetBytes) {
    await write((count === 0 ? "" : ", ") + JSON.stringify(conversation(count)));
    count++;
  }
  await write("]");
  out.end();
  await once(out, "finish");
  console.error(`wrote ${count} conversations, ${(written / 1024 / 1024).toFixed(1)} MB to ${outPath}`);
}

await main();
