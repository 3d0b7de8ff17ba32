// LevelDB files an attacker crafted (a backup someone sends, a zip uploaded to `mnemo serve`): each
// must cost only itself, counted as damage, without allocating or working far past its own size.
import * as snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { uncompressSnappy, useSnappy } from "../../src/importers/leveldb/leveldb.js";

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

describe("hostile LevelDB files", () => {
  it("a Snappy block claiming far more than its bytes can hold is refused before it is allocated", () => {
    // 64 MB claimed by 6 bytes (a copy's 3 bytes write at most 64: the most 6 bytes can make is ~128)
    const claim = Buffer.concat([varint(64 * 1024 * 1024), Buffer.from([0x00, 0x41])]);
    expect(() => uncompressSnappy(claim)).toThrow(/too big/);
    const honest = Buffer.from(snappy.compress(Buffer.alloc(100_000, 7)));
    expect(Buffer.from(uncompressSnappy(honest)).equals(Buffer.alloc(100_000, 7))).toBe(true);
  });
});
