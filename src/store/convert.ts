import { makeArrowTable } from "@lancedb/lancedb";
import type { Schema, Table as ArrowTable } from "apache-arrow";

interface ArrowValue {
  toArray(): ArrayLike<unknown>;
}

function isArrowVector(value: unknown): value is ArrowValue {
  return typeof value === "object" && value !== null && "toArray" in value && typeof value.toArray === "function";
}

/**
 * An Arrow table as LanceDB returns it → plain objects (vectors as Float32Array, lists as arrays),
 * read a column at a time: going through Arrow's row proxies costs several times the time and
 * garbage.
 */
export function fromArrowTable(table: ArrowTable): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = Array.from({ length: table.numRows }, () => ({}));
  for (const field of table.schema.fields) {
    const column = table.getChild(field.name);
    if (!column) continue;
    let i = 0;
    for (const value of column) rows[i++]![field.name] = plainValue(value);
  }
  return rows;
}

function plainValue(value: unknown): unknown {
  if (!isArrowVector(value)) return value;
  const items = value.toArray();
  return items instanceof Float32Array ? Float32Array.from(items) : Array.from(items);
}

/** Plain rows → an Arrow table with exactly the store's schema (so nullable columns stay typed when all null). */
export function toArrowRows(rows: object[], schema: Schema): ArrowTable {
  return makeArrowTable(rows as Record<string, unknown>[], { schema });
}
