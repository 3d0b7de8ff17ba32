import { Field, FixedSizeList, Float32, Int32, List, Schema, Utf8 } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { fromArrowTable, toArrowRows } from "../../src/store/convert.js";

// fromArrowTable reads column buffers itself; each value must be what Arrow's own getters give.

const schema = new Schema([
  new Field("text", new Utf8(), true),
  new Field("count", new Int32(), true),
  new Field("names", new List(new Field("item", new Utf8(), true)), true),
  new Field("offsets", new List(new Field("item", new Int32(), true)), true),
  new Field("vector", new FixedSizeList(3, new Field("item", new Float32(), true)), true),
]);

const ROWS = [
  { text: "café ☕", count: 7, names: ["a", null, ""], offsets: [0, 12], vector: new Float32Array([0.5, -1, 2]) },
  { text: null, count: null, names: null, offsets: null, vector: null },
  { text: "", count: -3, names: [], offsets: [], vector: new Float32Array([0, 0, 0]) },
];

describe("fromArrowTable", () => {
  it("gives strings, numbers, lists, vectors and nulls as they were written", () => {
    const rows = fromArrowTable(toArrowRows(ROWS, schema));
    expect(rows).toEqual(ROWS);
    expect(rows[0]!["vector"]).toBeInstanceOf(Float32Array);
  });

  it("reads a slice of a table (its buffers offset) the same way", () => {
    expect(fromArrowTable(toArrowRows(ROWS, schema).slice(1))).toEqual(ROWS.slice(1));
  });

  it("agrees with Arrow's row getters on every column", () => {
    const table = toArrowRows(ROWS, schema);
    const byGetters = ROWS.map((_, i) =>
      Object.fromEntries(
        schema.fields.map((field) => {
          const value = table.getChild(field.name)!.get(i);
          if (value === null || typeof value !== "object") return [field.name, value];
          const items = value.toArray();
          return [field.name, items instanceof Float32Array ? Float32Array.from(items) : Array.from(items)];
        }),
      ),
    );
    expect(fromArrowTable(table)).toStrictEqual(byGetters);
  });
});
