// LevelDB files an attacker crafted (a backup someone sends, a zip uploaded to `mnemo serve`): each
// must cost only itself, counted as damage, without allocating or working far past its own size.
import { join } from "node:path";
import * as snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { crc32c } from "../../src/importers/leveldb/crc32c.js";
import { levelFiles } from "../../src/importers/leveldb/folder.js";
import { readLevelDb, uncompressSnappy, useSnappy } from "../../src/importers/leveldb/leveldb.js";
import { zipSources } from "../../src/importers/zip.js";
import { tempDir } from "../temp-dirs.js";
import { zipOfZeros } from "./zip-bomb.js";

useSnappy(snappy);

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let left = value;
  while (left >= 0x80) {
    bytes.push((left % 0x80) | 0x80);
    left = Math.floor(left / 0x80);
  }
  bytes.push(left);
  return Buffer.from(bytes);
}

function masked(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

interface RawEntry {
  shared: number;
  unshared: Buffer;
  value: Buffer;
}

/** A block's bytes: its entries as given (however hostile), one restart point. */
function block(entries: readonly RawEntry[]): Buffer {
  const parts = entries.flatMap(({ shared, unshared, value }) => [
    varint(shared),
    varint(unshared.length),
    varint(value.length),
    unshared,
    value,
  ]);
  const restarts = Buffer.alloc(8); // one restart point at 0, then their count
  restarts.writeUInt32LE(1, 4);
  return Buffer.concat([...parts, restarts]);
}

/** A .ldb table: the data blocks stored as given, an index naming them by `handles`, the footer. */
function table(stored: readonly Buffer[], handles?: (offsets: { offset: number; size: number }[]) => { offset: number; size: number }[]) {
  const parts: Buffer[] = [];
  const written: { offset: number; size: number }[] = [];
  let at = 0;
  const write = (contents: Buffer, type: number) => {
    const trailer = Buffer.alloc(5);
    trailer[0] = type;
    trailer.writeUInt32LE(masked(crc32c(Buffer.concat([contents, Buffer.of(type)]))), 1);
    parts.push(contents, trailer);
    const handle = { offset: at, size: contents.length };
    at += contents.length + 5;
    return handle;
  };
  for (const contents of stored) written.push(write(contents, 0));
  const named = handles ? handles(written) : written;
  const index = block(
    named.map((handle, i) => ({
      shared: 0,
      unshared: Buffer.from(`k${i}`.padEnd(9, "\0")),
      value: Buffer.concat([varint(handle.offset), varint(handle.size)]),
    })),
  );
  const indexHandle = write(index, 0);
  const footer = Buffer.alloc(48);
  Buffer.concat([varint(0), varint(0), varint(indexHandle.offset), varint(indexHandle.size)]).copy(footer);
  footer.writeBigUInt64LE(0xdb4775248b80fb57n, 40);
  return Buffer.concat([...parts, footer]);
}

/** A table key: the user key, then its tag (sequence 1, a put). */
function internalKey(key: string): Buffer {
  const tag = Buffer.alloc(8);
  tag.writeBigUInt64LE((1n << 8n) | 1n);
  return Buffer.concat([Buffer.from(key), tag]);
}

describe("hostile LevelDB files", () => {
  it("a Snappy block claiming far more than its bytes can hold is refused before it is allocated", () => {
    // 64 MB claimed by 6 bytes (a copy's 3 bytes write at most 64: the most 6 bytes can make is ~128)
    const claim = Buffer.concat([varint(64 * 1024 * 1024), Buffer.from([0x00, 0x41])]);
    expect(() => uncompressSnappy(claim)).toThrow(/too big/);
    const honest = Buffer.from(snappy.compress(Buffer.alloc(100_000, 7)));
    expect(Buffer.from(uncompressSnappy(honest)).equals(Buffer.alloc(100_000, 7))).toBe(true);
  });

  it("a block whose keys each share all of the one before and add a byte (keys growing quadratically) is damage", async () => {
    const count = 6000;
    const entries: RawEntry[] = [{ shared: 0, unshared: internalKey("k"), value: Buffer.alloc(0) }];
    for (let i = 1; i < count; i++) entries.push({ shared: 8 + i, unshared: Buffer.from("x"), value: Buffer.alloc(0) });
    const read = await readLevelDb([{ name: "000005.ldb", bytes: table([block(entries)]) }]);
    expect(read.damaged).toBe(1);
    expect(read.entries.length).toBeLessThan(count);
  });

  it("an honest block with long shared keys is read whole", async () => {
    const prefix = "p".repeat(200);
    const entries: RawEntry[] = Array.from({ length: 16 }, (_, i) => ({
      shared: i === 0 ? 0 : 200,
      unshared: i === 0 ? internalKey(`${prefix}${String(i).padStart(2, "0")}`) : internalKey(String(i).padStart(2, "0")),
      value: Buffer.from("v"),
    }));
    const read = await readLevelDb([{ name: "000005.ldb", bytes: table([block(entries)]) }]);
    expect(read).toMatchObject({ damaged: 0 });
    expect(read.entries).toHaveLength(16);
  });

  it("an index naming one data block again and again reads it once, the namings after the first damage", async () => {
    const data = block([{ shared: 0, unshared: internalKey("row"), value: Buffer.from("value") }]);
    const bytes = table([data], ([only]) => Array.from({ length: 1000 }, () => only!));
    const read = await readLevelDb([{ name: "000005.ldb", bytes }]);
    expect(read.entries.map((entry) => entry.key.toString())).toEqual(["row"]);
    expect(read.damaged).toBe(999);
  });

  // The zip is made by deflating 1.1 GB of zeros (to 1 MB) as it streams: half a second.
  it("a zip entry of the database's folder inflating past 1 GB is damage, not read into memory", async () => {
    const folder = "IndexedDB/file__0.indexeddb.leveldb/";
    const path = join(tempDir("mnemo-bomb-"), "backup.zip");
    await zipOfZeros(path, [{ name: `${folder}000003.log`, megabytes: 1100 }]);
    const read = await readLevelDb(await levelFiles(await zipSources(path), folder));
    expect(read).toEqual({ entries: [], damaged: 1 });
  });
});
