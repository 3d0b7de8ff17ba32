import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import type { BucketRow } from "../../src/store/rows.js";
import type { Where } from "../../src/store/where.js";
import { openTestApp } from "../helpers.js";

// What each kind of condition of a Where selects, on a real table (the predicate is LanceDB's to read).

let app: App;
const USER = "usr_where";
const ROWS: BucketRow[] = [
  { userId: USER, id: 11, name: "Travel", description: null, createdAt: "2026-01-01T00:00:00.000Z" },
  { userId: USER, id: 12, name: "O'Brien's notes", description: "quotes", createdAt: "2026-02-01T00:00:00.000Z" },
  { userId: USER, id: 13, name: "100% sure_thing", description: "wildcards", createdAt: "2026-03-01T00:00:00.000Z" },
  { userId: USER, id: 14, name: "100 percent surely", description: "", createdAt: "2026-04-01T00:00:00.000Z" },
  { userId: "usr_other", id: 11, name: "Travel", description: null, createdAt: "2026-01-01T00:00:00.000Z" },
];

beforeAll(async () => {
  app = await openTestApp();
  await app.context.store.write(() => app.context.store.add("buckets", ROWS));
});
afterAll(async () => app.close());

async function ids(where: Where<"buckets">): Promise<number[]> {
  const rows = await app.context.store.select("buckets", { userId: USER, ...where }, { columns: ["id"] });
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

describe("a Where", () => {
  it("with no condition is every row", async () => {
    expect(await app.context.store.count("buckets", {})).toBe(ROWS.length);
  });

  it("matches a value, quotes and all, and null as no value", async () => {
    expect(await ids({ name: "O'Brien's notes" })).toEqual([12]);
    expect(await ids({ id: 13 })).toEqual([13]);
    expect(await ids({ description: null })).toEqual([11]);
    expect(await ids({ description: "" })).toEqual([14]);
  });

  it("matches one of several values; null among them takes the rows without one; none matches nothing", async () => {
    expect(await ids({ id: [11, 14] })).toEqual([11, 14]);
    expect(await ids({ name: ["Travel", "O'Brien's notes"] })).toEqual([11, 12]);
    expect(await ids({ description: [null, "quotes"] })).toEqual([11, 12]);
    expect(await ids({ description: [null] })).toEqual([11]);
    expect(await ids({ id: [] })).toEqual([]);
  });

  it("excludes a value or values, and `not: null` is any value", async () => {
    expect(await ids({ id: { not: 11 } })).toEqual([12, 13, 14]);
    expect(await ids({ id: { not: [11, 12] } })).toEqual([13, 14]);
    expect(await ids({ id: { not: [] } })).toEqual([11, 12, 13, 14]);
    expect(await ids({ description: { not: null } })).toEqual([12, 13, 14]);
  });

  it("takes ranges: from/to inclusive, after/before exclusive", async () => {
    expect(await ids({ createdAt: { from: "2026-02-01T00:00:00.000Z", to: "2026-03-01T00:00:00.000Z" } })).toEqual([12, 13]);
    expect(await ids({ createdAt: { after: "2026-02-01T00:00:00.000Z", before: "2026-04-01T00:00:00.000Z" } })).toEqual([13]);
    expect(await ids({ id: { after: 12 } })).toEqual([13, 14]);
    expect(await ids({ createdAt: { from: undefined } })).toEqual([11, 12, 13, 14]);
  });

  it("finds a text inside a column, ignoring case, its % and _ taken as themselves", async () => {
    expect(await ids({ name: { contains: "travel" } })).toEqual([11]);
    expect(await ids({ name: { contains: "100%" } })).toEqual([13]);
    expect(await ids({ name: { contains: "e_t" } })).toEqual([13]);
    expect(await ids({ name: { contains: "'b" } })).toEqual([12]);
  });

  it("holds when one of its alternatives does, beside its other conditions", async () => {
    expect(await ids({ anyOf: [{ id: 11 }, { description: "wildcards" }] })).toEqual([11, 13]);
    expect(await ids({ id: [11, 12, 13], anyOf: [{ id: 11 }, { description: { not: null } }] })).toEqual([11, 12, 13]);
    expect(await ids({ anyOf: [] })).toEqual([]);
  });
});

describe("an update", () => {
  it("writes typed values: a quote, null and a number as themselves", async () => {
    const { store } = app.context;
    const updated = await store.write(() => store.update("buckets", { userId: USER, id: 14 }, { name: "It's new", description: null }));
    expect(updated).toBe(1);
    const [row] = await store.select("buckets", { userId: USER, id: 14 });
    expect(row).toMatchObject({ name: "It's new", description: null });
  });
});
