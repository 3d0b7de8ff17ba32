import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import type { Embedder } from "../../src/providers/embedder.js";
import { createEmbedder } from "../../src/providers/create-providers.js";
import { imageBytes } from "../../src/core/index.js";
import { diagnose } from "../../src/core/operations/doctor.js";
import { repairStore } from "../../src/core/operations/doctor-repair.js";
import { TABLE } from "../../src/store/schema.js";
import { AppError } from "../../src/shared/errors.js";
import { isolatedEnv, openTestApp, ROOT, settled, tempDir } from "../helpers.js";

/**
 * The corruption probe, case by case: each table's data files and its latest version file
 * (manifest) cut in half or with one bit flipped, and the image files the same. In each case the
 * store opens; every read the faces make works or fails naming the damage and `mnemo doctor`;
 * `mnemo doctor` says nothing in LanceDB's own words first; damage it can tell (every cut file,
 * and an image's bit, by its PNG checksum) is named; and after `mnemo doctor --repair` every
 * memory and conversation, user and platform is there again, with its text. A bit flipped inside
 * a Lance data file is told by the checksums the store records of its files (store/checksums.ts):
 * Lance keeps none of its own, and a flipped value would read unseen.
 *
 * Needs about a minute on a 2-core machine (load 1.5–3): 44 cases, each a copy of a store opened,
 * checked in a child process, and repaired (a salvage, another two checks and an index build).
 */

const IMAGE = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png"));
const TOPICS = ["Lisbon trams", "Snake care", "Sourdough starters", "Tax returns"];

let pristine: string;
/**
 * One environment for every case (each store's data dir is its own folder): a repair's checks go to
 * a health process kept for that environment, so that the cases share one.
 */
let env: NodeJS.ProcessEnv;
/**
 * The bundled embedder, loaded once: every case opens a copy of the store twice (its damage is
 * the subject, not the model's loading, ~0.2 s of CPU each of 88 times).
 */
let embedder: Embedder;
/** What the store held: memory texts by id, conversation ids with a phrase of theirs, users by name. */
let truth: {
  memories: Map<string, string>;
  conversations: Map<string, string>;
  users: Map<string, string>;
  image: string;
  /** The titles of what was moved to the trash. */
  trash: string[];
};

beforeAll(async () => {
  pristine = path.join(tempDir(), "store");
  env = isolatedEnv();
  let app = await openTestApp({ store: pristine }, {}, env);
  await app.indexer.start();
  const me = await app.service();
  const { memoryId } = await me.memories.store({ text: "The tram 28 goes up to Graça" });
  await me.memories.update({ memoryId, text: "The tram 28 goes up to Graça and Estrela" });
  await me.memories.store({ text: "My dentist is Dr Silva" });
  const { memoryId: image } = await me.memories.storeImage({ data: IMAGE.toString("base64"), description: "the logo draft" });
  await me.conversations.uploadMany(
    TOPICS.map((title, i) => ({
      conversation: {
        id: `c${i}`,
        title,
        createdAt: "2024-05-01T10:00:00Z",
        messages: [
          { id: "m1", role: "human", content: `Tell me about ${title}, topic number ${i}` },
          { id: "m2", role: "assistant", content: `${title} is a fine subject. ${"It has many sides worth a word. ".repeat(12)}` },
        ],
      },
    })),
  );
  await settled(me);
  // A memory and a conversation in the trash, so that the trash table has data files to damage.
  const { memoryId: old } = await me.memories.store({ text: "The old locker code was 4512" });
  const [drafts] = await me.conversations.uploadMany([
    {
      conversation: {
        id: "c-old",
        title: "Old drafts",
        createdAt: "2024-04-01T10:00:00Z",
        messages: [{ id: "m1", role: "human", content: "Keep these drafts for a while" }],
      },
    },
  ]);
  await settled(me);
  await me.trash.move({ memoryIds: [old], conversationIds: [drafts!.conversationId] });
  await app.users.add("alice");
  await (await app.service("alice")).memories.store({ text: "Alice likes green tea" });
  await app.users.rotateToken("default");
  await app.close();
  // Opened once more, as any next command does: the data dir records the users (recovery.json).
  app = await openTestApp({ store: pristine }, {}, env);
  const conversations = (await (await app.service()).conversations.list({})).items;
  truth = {
    memories: new Map(await memoryTexts(app, "default")),
    conversations: new Map(conversations.map((item) => [item.id, `topic number ${TOPICS.indexOf(item.title)}`])),
    users: new Map((await app.users.list()).map((user) => [user.name, user.id])),
    image,
    trash: await trashTitles(app),
  };
  expect(truth.trash).toEqual(["Old drafts", "The old locker code was 4512"]);
  embedder = await createEmbedder(app.config.embedder, app.config);
  await app.close();
}, 120_000);

afterAll(() => embedder?.close());

type Damage = "truncate" | "bitflip";
interface Case {
  name: string;
  /** A table's folder and what of it, or the image files. */
  target: { table: string; part: "data" | "manifest" } | "images";
  damage: Damage;
}

/**
 * Every case: each table's data files and newest manifest, and the image files, cut or flipped. The
 * images table holds no data on a local store (its pictures are files).
 */
const CASES: Case[] = [
  ...Object.values(TABLE).flatMap((table) =>
    (table === TABLE.images ? (["manifest"] as const) : (["data", "manifest"] as const)).flatMap((part) =>
      (["truncate", "bitflip"] as const).map((damage) => ({ name: `${table} ${part} ${damage}`, target: { table, part }, damage })),
    ),
  ),
  ...(["truncate", "bitflip"] as const).map((damage) => ({ name: `image file ${damage}`, target: "images" as const, damage })),
];

function filesOf(target: Case["target"]): string[] {
  if (target === "images") return filesUnder(path.join(pristine, "images"));
  const dir = path.join(pristine, "db", `${target.table}.lance`);
  if (target.part === "data") return filesUnder(path.join(dir, "data"));
  // The newest version file: their names count down (LanceDB's v2 naming).
  const manifests = filesUnder(path.join(dir, "_versions")).filter((file) => file.endsWith(".manifest"));
  return manifests.sort((a, b) => (path.basename(a) < path.basename(b) ? -1 : 1)).slice(0, 1);
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((file) => path.join(dir, file))
    .filter((file) => fs.statSync(file).isFile());
}

/** A copy of the pristine store (its model folder linked, not copied), with the case's damage done. */
function damagedCopy({ target, damage }: Case): string {
  const files = filesOf(target);
  expect(files.length, "files to damage").toBeGreaterThan(0);
  const store = path.join(tempDir(), "store");
  copyStore(pristine, store);
  for (const original of files) {
    const file = path.join(store, path.relative(pristine, original));
    // A file of its own, not the pristine store's under another name.
    fs.rmSync(file);
    fs.copyFileSync(original, file);
    const size = fs.statSync(file).size;
    if (damage === "truncate") fs.truncateSync(file, Math.floor(size / 2));
    else {
      const bytes = fs.readFileSync(file);
      bytes[Math.floor(size / 2)]! ^= 0x10;
      fs.writeFileSync(file, bytes);
    }
  }
  return store;
}

/**
 * The files of the tables (db/) hard-linked, the others copied: LanceDB writes a file once, under a
 * name of its own, and a commit, a compaction or a salvage makes new files and deletes old ones, so
 * a case never writes into a file the pristine store shares. Linked, not copied, a case's copy took
 * ~40 ms less CPU, and its removal less.
 */
function copyStore(from: string, to: string, linked = false): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const [source, copy] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (from === pristine && entry.name === "models") fs.symlinkSync(source, copy);
    else if (entry.isDirectory()) copyStore(source, copy, linked || (from === pristine && entry.name === "db"));
    else if (linked) fs.linkSync(source, copy);
    else fs.copyFileSync(source, copy);
  }
}

async function trashTitles(app: App): Promise<string[]> {
  return (await (await app.service()).trash.list()).items.map((item) => item.title).sort();
}

async function memoryTexts(app: App, user: string): Promise<[string, string][]> {
  const listed = (await (await app.service(user)).memories.listV2({ all: true, includeIds: true })).memories as {
    id: string;
    text: string;
  }[];
  return listed.map((memory) => [memory.id, memory.text]);
}

const RAW = /LanceError|\/rustc\/|cargo\/registry|panicked at|Caused by/;

/** A read works, or fails with the damage named and `mnemo doctor` as the way on. */
async function readsOrNamesDamage(what: string, read: () => Promise<unknown>): Promise<void> {
  try {
    await read();
  } catch (error) {
    expect(error, `${what}: ${String(error)}`).toBeInstanceOf(AppError);
    const { message, suggestion } = error as AppError;
    expect(`${message} ${suggestion}`, what).toMatch(/is damaged.*mnemo doctor/s);
    expect(message, what).not.toMatch(RAW);
  }
}

describe("the corruption probe", () => {
  it.each(CASES)(
    "$name: named where it is read, told by doctor, nothing that could be read lost by --repair",
    async (probe) => {
      const store = damagedCopy(probe);
      const app = await openTestApp({ store }, { embedder }, env);
      try {
        await readsOrNamesDamage("memories", async () => memoryTexts(app, "default"));
        await readsOrNamesDamage("conversations", async () => (await app.service()).conversations.list({}));
        await readsOrNamesDamage("buckets", async () => (await app.service()).buckets.list({}));
        await readsOrNamesDamage("search", async () => (await app.service()).search({ query: "Lisbon", skipRerank: true }));
        await readsOrNamesDamage("info", async () => (await app.service()).info());
        await readsOrNamesDamage("image", () => imageBytes(app, truth.image));
        await readsOrNamesDamage("trash", () => trashTitles(app));
      } finally {
        await app.close();
      }
      const diagnosis = await diagnose(app.config);
      for (const finding of diagnosis.findings) expect(`${finding.what} ${finding.fix}`).not.toMatch(RAW);
      if (probe.damage === "truncate" || probe.target === "images" || probe.target.part === "data")
        expect(diagnosis.findings).not.toEqual([]);
      if (diagnosis.findings.length === 0) return;
      const repaired = await repairStore(app.config, diagnosis, undefined, { embedder });
      // A picture cannot be rebuilt from the store: an export puts it back.
      expect(
        repaired.after.findings.filter((finding) => finding.table !== "images"),
        repaired.actions.join("; "),
      ).toEqual([]);
      await expectEverythingBack(probe, store);
    },
    300_000,
  );
});

async function expectEverythingBack(probe: Case, store: string): Promise<void> {
  const app = await openTestApp({ store }, { embedder }, env);
  try {
    const users = new Map((await app.users.list()).map((user) => [user.name, user.id]));
    expect(users, probe.name).toEqual(truth.users);
    expect(new Map(await memoryTexts(app, "default")), probe.name).toEqual(truth.memories);
    expect(
      (await memoryTexts(app, "alice")).map(([, text]) => text),
      probe.name,
    ).toEqual(["Alice likes green tea"]);
    const me = await app.service();
    const listed = (await me.conversations.list({})).items.map((item) => item.id).sort();
    expect(listed, probe.name).toEqual([...truth.conversations.keys()].sort());
    for (const [id, phrase] of truth.conversations) {
      const text = (await me.conversations.get(id)).messages.map((message) => message.text).join(" ");
      expect(text, `${probe.name}: ${id}`).toContain(phrase);
    }
    expect((await me.search({ query: "Sourdough starters", skipRerank: true })).results.length, probe.name).toBeGreaterThan(0);
    // The trash is the one table nothing else holds a copy of: a damaged one keeps the rows that
    // can be read, those of a file changed in place as they read (a title may have a changed
    // letter), and with its newest version file damaged, its previous version (the memory moved
    // there first; the conversation, moved last, is lost with that version).
    const trash = await trashTitles(app);
    if (probe.name.startsWith(`${TABLE.trash} manifest`)) expect(trash, probe.name).toEqual(["The old locker code was 4512"]);
    else if (probe.name.startsWith(`${TABLE.trash} data truncate`)) expect(truth.trash, probe.name).toEqual(expect.arrayContaining(trash));
    else if (probe.name.startsWith(`${TABLE.trash} data bitflip`)) expect(trash.length, probe.name).toBe(truth.trash.length);
    else expect(trash, probe.name).toEqual(truth.trash);
  } finally {
    await app.close();
  }
}
