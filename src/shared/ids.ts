import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

const pool = Buffer.alloc(4096);
let drawn = pool.length;

/** A random fraction from the system's generator, drawn 4 KiB at a time: ulid's own asks it once per character, 16 times per id. */
function pooledRandom(): number {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

export type IdPrefix = "mem" | "hist" | "conv" | "imp" | "chunk" | "usr" | "job" | "trs";

/** Opaque, sortable ids: a type prefix and a ULID (e.g. `mem_01JD…`). Row internals never leak. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
