import { makeArrowTable } from "@lancedb/lancedb";
import type { Data, DataType, Schema, Table as ArrowTable } from "apache-arrow";
import { arrow } from "./arrow.js";

const { Type } = arrow;

interface ArrowValue {
  toArray(): ArrayLike<unknown>;
}

function isArrowVector(value: unknown): value is ArrowValue {
  return typeof value === "object" && value !== null && "toArray" in value && typeof value.toArray === "function";
}

interface ArrowColumn extends Iterable<unknown> {
  data: readonly Data[];
}

/**
 * An Arrow table as LanceDB returns it → plain objects (vectors as Float32Array, lists as arrays),
 * read a column at a time from its buffers: going through Arrow's row proxies costs several times
 * the time and garbage, and even its per-value getters (a Vector object for each list) took 2 of a
 * chat search's 13 ms on the main thread (10 columns, 4 of them lists, of ~100 rows).
 */
export function fromArrowTable(table: ArrowTable): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = Array.from({ length: table.numRows }, () => ({}));
  for (const field of table.schema.fields) {
    const column = table.getChild(field.name) as ArrowColumn | null;
    if (!column) continue;
    let i = 0;
    for (const data of column.data) {
      const values = chunkValues(data);
      if (values) for (const value of values) rows[i++]![field.name] = value;
      else for (const value of column.data.length === 1 ? column : chunkIterable(column, data)) rows[i++]![field.name] = plainValue(value);
    }
  }
  return rows;
}

/** One chunk of a column, by Arrow's own iterator (the types chunkValues does not read itself). */
function chunkIterable(column: ArrowColumn, data: Data): Iterable<unknown> {
  const Vector = column.constructor as new (data: Data[]) => Iterable<unknown>;
  return new Vector([data]);
}

function plainValue(value: unknown): unknown {
  if (!isArrowVector(value)) return value;
  const items = value.toArray();
  return items instanceof Float32Array ? Float32Array.from(items) : Array.from(items);
}

const utf8 = new TextDecoder("utf-8");

/**
 * A chunk's values as plainValue makes them, read straight from its buffers, for the types the
 * store's tables hold: strings, 32-bit numbers, lists of those, and vectors. Undefined for others.
 */
function chunkValues(data: Data): unknown[] | undefined {
  const { type } = data;
  if (isSimple(type)) return Array.from({ length: data.length }, (_, i) => (data.getValid(i) ? simpleValue(data, i) : null));
  if ((type.typeId !== Type.List && type.typeId !== Type.FixedSizeList) || data.offset !== 0) return undefined;
  const child = data.children[0]!;
  if (child.offset !== 0) return undefined;
  if (type.typeId === Type.FixedSizeList) {
    if (child.type.typeId !== Type.Float || !(child.values instanceof Float32Array)) return undefined;
    const { stride } = data;
    return Array.from({ length: data.length }, (_, i) =>
      data.getValid(i) ? Float32Array.from((child.values as Float32Array).subarray(i * stride, (i + 1) * stride)) : null,
    );
  }
  // A list of floats is a typed array to plainValue: no table holds one.
  return child.type.typeId === Type.Float || !isSimple(child.type) ? undefined : listValues(data, child);
}

/** Each list as an array: of numbers, Arrow's typed array copied (nulls and all); of strings, each string or null. */
function listValues(data: Data, child: Data): unknown[] {
  const offsets = data.valueOffsets as Int32Array;
  const strings = child.type.typeId === Type.Utf8;
  return Array.from({ length: data.length }, (_, i) => {
    if (!data.getValid(i)) return null;
    const items: unknown[] = [];
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) items.push(strings && !child.getValid(j) ? null : simpleValue(child, j));
    return items;
  });
}

/** Strings and numbers of 32 bits or fewer: one value each, read as Arrow's getters read them. */
function isSimple(type: DataType): boolean {
  if (type.typeId === Type.Utf8) return true;
  if (type.typeId === Type.Int) return (type as DataType & { bitWidth: number }).bitWidth <= 32;
  return type.typeId === Type.Float && (type as DataType & { precision: number }).precision > 0;
}

function simpleValue(data: Data, i: number): unknown {
  if (data.type.typeId !== Type.Utf8) return (data.values as ArrayLike<number>)[i];
  const offsets = data.valueOffsets as Int32Array;
  return utf8.decode((data.values as Uint8Array).subarray(offsets[i], offsets[i + 1]));
}

/** Plain rows → an Arrow table with exactly the store's schema (so nullable columns stay typed when all null). */
export function toArrowRows(rows: object[], schema: Schema): ArrowTable {
  return makeArrowTable(rows as Record<string, unknown>[], { schema });
}
