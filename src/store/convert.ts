import { makeArrowTable } from "@lancedb/lancedb";
import type { Schema, Table as ArrowTable } from "apache-arrow";

interface ArrowValue {
  toArray(): ArrayLike<unknown>;
}

function isArrowVector(value: unknown): value is ArrowValue {
  return typeof value === "object" && value !== null && "toArray" in value && typeof value.toArray === "function";
}

/** An Arrow row proxy as LanceDB returns it → a plain object (vectors as Float32Array, lists as arrays). */
export function fromArrowRow(row: Record<string, unknown>): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (isArrowVector(value)) {
      const items = value.toArray();
      plain[key] = items instanceof Float32Array ? Float32Array.from(items) : Array.from(items);
    } else {
      plain[key] = value;
    }
  }
  return plain;
}

/** Plain rows → an Arrow table with exactly the store's schema (so nullable columns stay typed when all null). */
export function toArrowRows(rows: object[], schema: Schema): ArrowTable {
  return makeArrowTable(rows as Record<string, unknown>[], { schema });
}
