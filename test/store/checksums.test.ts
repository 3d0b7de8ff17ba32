import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { ChecksumRecord, checksumOf } from "../../src/store/checksums.js";
import { tempDir } from "../temp-dirs.js";

/** A database folder with one table's data, deletion and index files, and its version files. */
function database(): { db: string; record: ChecksumRecord; file: (name: string) => string } {
  const db = tempDir();
  const write = (name: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(db, name)), { recursive: true });
    fs.writeFileSync(path.join(db, name), text);
  };
  write("memories.lance/data/a.lance", "The tram 28 goes up to Graça");
  write("memories.lance/_deletions/0-1-2.arrow", "deleted rows");
  write("memories.lance/_indices/0b1e/metadata.lance", "an index");
  write("memories.lance/_versions/1.manifest", "a version file, rewritten in older stores");
  return { db, record: new ChecksumRecord(db, path.join(tempDir(), "checksums.json")), file: (name) => path.join(db, name) };
}

describe("the checksums of a store's files", () => {
  it("records the files that never change, and finds a flipped bit in any of them", async () => {
    const { record, file } = database();
    expect(await record.record()).toBe(3);
    expect(Object.keys(record.read()).sort()).toEqual([
      "memories.lance/_deletions/0-1-2.arrow",
      "memories.lance/_indices/0b1e/metadata.lance",
      "memories.lance/data/a.lance",
    ]);
    expect(await record.verify()).toEqual([]);
    for (const name of ["memories.lance/data/a.lance", "memories.lance/_indices/0b1e/metadata.lance"]) {
      const bytes = fs.readFileSync(file(name));
      bytes[3]! ^= 0x01;
      fs.writeFileSync(file(name), bytes);
    }
    expect(await record.verify()).toEqual([
      { table: "memories", file: "memories.lance/data/a.lance", kind: "data", resized: false },
      { table: "memories", file: "memories.lance/_indices/0b1e/metadata.lance", kind: "index", resized: false },
    ]);
    fs.truncateSync(file("memories.lance/_deletions/0-1-2.arrow"), 4);
    expect((await record.verify()).map((changed) => [changed.kind, changed.resized])).toEqual([
      ["data", false],
      ["deletions", true],
      ["index", false],
    ]);
    // Recording again keeps what was recorded: a changed file stays found until it is replaced.
    expect(await record.record()).toBe(0);
    expect((await record.verify()).length).toBe(3);
  });

  it("a file gone (compacted) or new (written since) is not damage: the one is forgotten, the other recorded", async () => {
    const { record, file } = database();
    await record.record();
    fs.rmSync(file("memories.lance/data/a.lance"));
    fs.writeFileSync(file("memories.lance/data/b.lance"), "My dentist is Dr Silva");
    // LanceDB writes a file under a staging name and renames it once whole.
    fs.writeFileSync(file("memories.lance/data/.tmpem922E"), "half of it");
    fs.writeFileSync(file("memories.lance/data/c.lance#1"), "half of it");
    expect(await record.verify()).toEqual([]);
    expect(await record.record()).toBe(1);
    expect(Object.keys(record.read()).filter((name) => name.includes("/data/"))).toEqual(["memories.lance/data/b.lance"]);
  });

  it("forgets the files a repair replaced", async () => {
    const { record } = database();
    await record.record();
    record.forget(["memories.lance/data/a.lance", "memories.lance/data/never-recorded.lance"]);
    expect(Object.keys(record.read())).not.toContain("memories.lance/data/a.lance");
    expect(Object.keys(record.read()).length).toBe(2);
  });

  it("hashes a file larger than one read as zlib does at once", async () => {
    const file = path.join(tempDir(), "big.lance");
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    bytes[2_000_000] = 1;
    fs.writeFileSync(file, bytes);
    expect(await checksumOf(file)).toEqual({ size: bytes.length, crc32: zlib.crc32(bytes) });
    expect(await checksumOf(`${file}.gone`)).toBeUndefined();
  });
});
