// Chromium IndexedDB rows an attacker crafted into a backup: each costs only itself, counted.
import { join } from "node:path";
import { Readable } from "node:stream";
import * as snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { withDirectBackups } from "../../src/importers/cherry-studio/direct.js";
import { bytesOf, levelFiles } from "../../src/importers/leveldb/folder.js";
import { objectStoreRows } from "../../src/importers/leveldb/indexeddb.js";
import { type LevelEntry, readLevelDb, useSnappy } from "../../src/importers/leveldb/leveldb.js";
import { withPageAssistStorage } from "../../src/importers/page-assist/storage.js";
import type { ByteSource } from "../../src/importers/source.js";
import { zipSources } from "../../src/importers/zip.js";
import { fixtures } from "./collect.js";

useSnappy(snappy);

// cherry-studio-direct.zip: Chromium's own files; one message block of it was moved to a blob file.
const zip = join(fixtures, "cherry-studio-direct.zip");
const DATABASE = "IndexedDB/file__0.indexeddb.leveldb/";
const BLOBS = "IndexedDB/file__0.indexeddb.blob/";
const IN_BLOB = Buffer.from([0xff, 0x11, 0x01]);

/** A row's blob list: the entry of the row's key under index id 3 (the row's is 1), after the ids' bytes packed in the first. */
function blobList(entries: readonly LevelEntry[], row: Buffer): LevelEntry | undefined {
  const first = row[0] ?? 0;
  const index = 1 + (first >> 5) + 1 + ((first >> 2) & 7) + 1;
  const key = Buffer.from(row);
  key[index] = 3;
  return entries.find((entry) => entry.key.equals(key));
}

describe("hostile IndexedDB rows", () => {
  it("a second row naming a blob file another row has is unreadable, the blob read for the first alone", async () => {
    const sources = await zipSources(zip);
    const { entries } = await readLevelDb(await levelFiles(sources, DATABASE));
    const row = entries.find((entry) => entry.value.indexOf(IN_BLOB) >= 0 && entry.value.indexOf(IN_BLOB) < 4);
    const list = row === undefined ? undefined : blobList(entries, row.key);
    if (row === undefined || list === undefined) throw new Error("the fixture has no row in a blob");
    const renamed = (key: Buffer) => Buffer.concat([key.subarray(0, -1), Buffer.of((key.at(-1) ?? 0) + 1)]);
    const forged = [...entries, { key: renamed(row.key), value: row.value }, { key: renamed(list.key), value: list.value }].sort((a, b) =>
      Buffer.compare(a.key, b.key),
    );
    let reads = 0;
    const blobFile = async (path: string) => {
      const source = sources.find((candidate) => candidate.path === BLOBS + path);
      reads++;
      return source === undefined ? undefined : bytesOf(source);
    };
    const honest = await objectStoreRows(entries, "CherryStudio", ["message_blocks"], async () => undefined);
    const read = await objectStoreRows(forged, "CherryStudio", ["message_blocks"], blobFile);
    expect(reads).toBe(1);
    expect(read.unreadable).toBe(1);
    expect(read.rows.get("message_blocks")).toHaveLength((honest.rows.get("message_blocks")?.length ?? 0) + 1);
  });

  it("a blob file inflating past 1 GB (a zip entry's size, as it says it) is not read: its row is unreadable", async () => {
    let opened = false;
    const sources = (await zipSources(zip)).map((source) =>
      source.path.startsWith(BLOBS)
        ? {
            ...source,
            size: 2 * 1024 ** 3,
            open: () => {
              opened = true;
              return source.open();
            },
          }
        : source,
    );
    const { skipped } = await withDirectBackups(sources);
    expect(opened).toBe(false);
    expect(skipped.find((skip) => skip.reason.startsWith("database rows that could not be read"))?.count).toBe(1);
  });

  // Math.max(...times) of the folder's files threw 'Maximum call stack size exceeded' past about 120,000
  // (from 130,000 with Node 20's default stack): 150,000 fails on it, at three quarters of 200,000's files.
  it("a database folder of 150,000 files besides LevelDB's is read (Page Assist's and Cherry Studio's)", async () => {
    const padded = (sources: ByteSource[], folder: string) => [
      ...sources,
      ...Array.from({ length: 150_000 }, (_, i) => ({ ...sources[0]!, label: `junk${i}`, path: `${folder}junk${i}` })),
    ];
    const pageAssist = "IndexedDB/chrome-extension_jfgfiigpkhlkbnfnbobbkinehhfdhndo_0.indexeddb.leveldb/";
    const read = await withPageAssistStorage(padded(await zipSources(join(fixtures, "page-assist-chrome-profile.zip")), pageAssist));
    expect(read.sources[0]?.path).toBe(`${pageAssist}PageAssistDatabase.json`);
    const cherry = await withDirectBackups(padded(await zipSources(zip), DATABASE));
    expect(cherry.sources[0]?.path).toMatch(/CherryStudio\.json$/);
  });

  // Each folder looked through every file of the import: 1,000 folders took 3.5 s, 4,000 took 60 s, so the
  // old code fails by the test's limit, 10 s (half a second here).
  it("a profile of 4,000 other extensions' (empty) database folders beside Page Assist's is read in one pass over its files", {
    timeout: 10_000,
  }, async () => {
    const sources = await zipSources(join(fixtures, "page-assist-chrome-profile.zip"));
    const letters = (i: number) =>
      String(i)
        .padStart(32, "0")
        .replace(/\d/g, (digit) => "abcdefghij"[Number(digit)]!);
    const others = Array.from({ length: 4_000 }, (_, i) =>
      ["MANIFEST-000001", "CURRENT", "000003.log", "LOG"].map((name) => ({
        ...sources[0]!,
        size: 0,
        open: async () => Readable.from([]),
        label: name,
        path: `IndexedDB/chrome-extension_${letters(i)}_0.indexeddb.leveldb/${name}`,
      })),
    ).flat();
    const read = await withPageAssistStorage([...others, ...sources]);
    expect(read.sources[0]?.path).toMatch(/PageAssistDatabase\.json$/);
  });

  // Each root looked through every file of the import: 2,000 roots took 8 s, 4,000 half a minute, so the
  // old code fails by the test's limit, 10 s (half a second here).
  it("a zip of 4,000 folders each like a backup's (empty LevelDB files) beside a Cherry Studio backup is read in one pass over its files", {
    timeout: 10_000,
  }, async () => {
    const sources = await zipSources(zip);
    const others = Array.from({ length: 4_000 }, (_, i) =>
      ["MANIFEST-000001", "CURRENT", "000003.log", "LOG"].map((name) => ({
        ...sources[0]!,
        size: 0,
        open: async () => Readable.from([]),
        label: name,
        path: `copy${i}/${DATABASE}${name}`,
      })),
    ).flat();
    const read = await withDirectBackups([...others, ...sources]);
    expect(read.sources[0]?.path).toBe(`${DATABASE.replace(/[^/]+\/$/, "")}CherryStudio.json`);
    expect(read.sources).toHaveLength(
      others.length +
        1 +
        sources.filter(
          (source) => !source.path.startsWith("IndexedDB/") && !source.path.startsWith("Local Storage/") && source.path !== "metadata.json",
        ).length,
    );
  });
});
