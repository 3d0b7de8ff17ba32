import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import * as snappy from "snappyjs";
import { objectStoreRows } from "../../src/importers/leveldb/indexeddb.js";
import { readLevelDb, useSnappy } from "../../src/importers/leveldb/leveldb.js";
import { zipSources } from "../../src/importers/zip.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

// cherry-studio-direct.zip is Cherry Studio's direct backup of data.json's rows, written by Chromium
// (fixtures/exports/cherry-studio/build-leveldb.mjs): the topics in an .ldb table, a deleted topic in the
// .log, and one more topic whose pasted log Blink moved to a blob file.
const zip = join(fixtures, "cherry-studio-direct.zip");
const json = join(fixtures, "cherry-studio/data.json");
const DATABASE = "IndexedDB/file__0.indexeddb.leveldb";
const EMPTY_TOPIC = "conversations without any message text (an empty new topic)";
const PASTED_LOG = "Why does this log repeat every line number?";

/** The backup unzipped into a new folder. */
async function unzipped(): Promise<string> {
  const dir = tempDir("mnemo-cherry-direct-");
  for (const source of await zipSources(zip)) {
    const chunks: Buffer[] = [];
    for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
    await mkdir(dirname(join(dir, source.path)), { recursive: true });
    await writeFile(join(dir, source.path), Buffer.concat(chunks));
  }
  return dir;
}

async function tableName(folder: string): Promise<string> {
  const table = (await readdir(join(folder, DATABASE))).find((name) => name.endsWith(".ldb"));
  if (table === undefined) throw new Error("the fixture has no .ldb table");
  return table;
}

describe("Cherry Studio's direct backup (its IndexedDB and Local Storage folders)", () => {
  it("the zip reads as the JSON backup of the same rows does: the same conversations, names and times", async () => {
    const { conversations, skipped } = await collectWithSkips(zip);
    expect(conversations.slice(0, 3)).toEqual(await collect(json));
    expect(skipped).toEqual({ [EMPTY_TOPIC]: 1 });
  });

  it("a value Blink moved to a blob file beside the database is read from it", async () => {
    expect((await zipSources(zip)).map((source) => source.path)).toContain("IndexedDB/file__0.indexeddb.blob/1/00/2");
    const pasted = (await collect(zip))[3]?.conversation;
    expect(pasted?.title).toBe(PASTED_LOG);
    expect(pasted?.messages.map((m) => [m.id, m.content.length > 120_000])).toEqual([
      ["m5-u1", true],
      ["m5-a1", false],
    ]);
    expect(pasted?.messages[0]?.content).toMatch(/^Why does this log repeat every line number\?\n\n0 0 0\n1 /);
  });

  it("the unzipped folder reads the same", async () => {
    expect(await collect(await unzipped())).toEqual(await collect(zip));
  });

  it("reads the topics from the Snappy-compressed table and honours the deletion written after them to the log", async () => {
    const folder = await unzipped();
    const names = await readdir(join(folder, DATABASE));
    const files = await Promise.all(names.map(async (name) => ({ name, bytes: await readFile(join(folder, DATABASE, name)) })));
    const deleted = "0d0d0d0d-dead-4bee-8f00-000000000000";
    const log = files.find(({ name }) => name.endsWith(".log"));
    expect(log?.bytes.includes(deleted)).toBe(true); // written, then deleted
    useSnappy(snappy);
    const withoutLog = await objectStoreRows((await readLevelDb(files.filter((file) => file !== log))).entries, "CherryStudio", ["topics"]);
    const all = await objectStoreRows((await readLevelDb(files)).entries, "CherryStudio", ["topics"]);
    const ids = (rows: typeof all) => (rows.rows.get("topics") as { id: string }[]).map((topic) => topic.id);
    expect(ids(withoutLog)).toHaveLength(4); // the table alone holds every topic of data.json (the fifth came after it)
    expect(ids(all)).toEqual([...ids(withoutLog), "f00d0000-1a2b-4c3d-8e4f-50607080a0b0"]); // the pasted log's, written after
    expect(ids(all)).not.toContain(deleted);
  });

  it("a damaged table block costs only the rows in it, counted", async () => {
    const folder = await unzipped();
    const table = join(folder, DATABASE, await tableName(folder));
    const bytes = await readFile(table);
    const at = bytes.indexOf("a7d9e3f1-2c5b"); // the second topic's id, in the block (4 KB) holding the first three topics' rows (the third an empty one)
    bytes[at + 2] = (bytes[at + 2] ?? 0) ^ 0xff;
    await writeFile(table, bytes);
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Wie lange hält sich Sauerteig im Kühlschrank?", PASTED_LOG]);
    expect(skipped).toEqual({
      "LevelDB log records and table blocks that could not be read (damaged): the rows in them are lost": 1,
    });
  });

  it("a damaged log record costs only what was written after it in its 32 KB block, counted", async () => {
    const folder = await unzipped();
    const name = (await readdir(join(folder, DATABASE))).find((file) => file.endsWith(".log"));
    const log = join(folder, DATABASE, name ?? "");
    const bytes = await readFile(log);
    const at = bytes.indexOf("0d0d0d0d-dead"); // the deleted topic's row, the last but one record
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    await writeFile(log, bytes);
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => c.conversation.id)).toEqual((await collect(zip)).map((c) => c.conversation.id));
    expect(skipped).toEqual({
      [EMPTY_TOPIC]: 1,
      "LevelDB log records and table blocks that could not be read (damaged): the rows in them are lost": 1,
    });
  });

  it("a backup whose database is damaged beyond reading says so, not that it is no chat export", async () => {
    const folder = await unzipped();
    for (const name of await readdir(join(folder, DATABASE))) {
      const file = join(folder, DATABASE, name);
      await writeFile(file, Buffer.alloc((await readFile(file)).length, 0xa5));
    }
    await expect(collect(folder)).rejects.toThrow(
      /IndexedDB: the Cherry Studio backup's database could not be read \(it is damaged beyond reading\)$/,
    );
  });

  it("without Local Storage, topics are named by their first prompt", async () => {
    const folder = await unzipped();
    await rm(join(folder, "Local Storage"), { recursive: true });
    expect((await collect(folder)).map((c) => c.conversation.title)).toEqual([
      "My starter doubles in 6 hours. What hydration should I use for a first loaf?",
      "Why does `let r = &v[0]; v.push(1);` not compile?",
      "Wie lange hält sich Sauerteig im Kühlschrank?",
      PASTED_LOG,
    ]);
  });
});
