import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

export type IdPrefix = "mem" | "hist" | "conv" | "imp" | "chunk" | "usr" | "job" | "trs";

/** Opaque, sortable ids: a type prefix and a ULID (e.g. `mem_01JD…`). Row internals never leak. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
