import type { TableKey } from "./schema.js";
import type { TableRows } from "./rows.js";
import { sqlAnd, sqlIn, sqlString } from "./sql.js";

// What a query asks of a table, said as typed values; the LanceDB predicate is built here and only
// here, so core/ names columns and values and never writes (or escapes) SQL.

/** A column a filter can name: every column but the vector. */
export type Column<K extends TableKey> = Exclude<keyof TableRows[K], "vector"> & string;

type Value<K extends TableKey, C extends Column<K>> = TableRows[K][C];

/**
 * What a column must hold: a value (`null`: no value), one of several values, a range (`from`/`to`
 * inclusive, `after`/`before` exclusive: ISO dates and ids sort as text), a text it contains
 * (case-insensitive), or anything but a value or values.
 */
export type Condition<V> =
  | V
  | readonly V[]
  | { from?: V; to?: V; after?: V; before?: V }
  | { contains: string }
  | { not: V | readonly V[] };

/**
 * The rows a query reads, counts, updates or deletes: every condition holds, and (with `anyOf`) at
 * least one of the alternatives. `{}` is every row.
 */
export type Where<K extends TableKey> = { [C in Column<K>]?: Condition<Value<K, C>> } & { anyOf?: readonly Where<K>[] };

/** The columns an update sets, to these values. */
export type Values<K extends TableKey> = { [C in Column<K>]?: Value<K, C> };

/** A filter as the store's methods take it: a Where, or (in store/ and tests only) a LanceDB predicate. */
export type Filter<K extends TableKey> = Where<K> | string;

type Scalar = string | number | boolean | bigint | null;

export function predicate<K extends TableKey>(filter: Filter<K>): string {
  if (typeof filter === "string") return filter;
  const { anyOf, ...columns } = filter as Where<K> & Record<string, unknown>;
  const conditions = Object.entries(columns)
    .filter(([, condition]) => condition !== undefined)
    .map(([column, condition]) => conditionSql(column, condition));
  if (anyOf !== undefined) conditions.push(anyOf.length === 0 ? "false" : `(${anyOf.map((one) => `(${predicate(one)})`).join(" OR ")})`);
  return sqlAnd(...conditions) || "true";
}

/** The SQL expressions an update writes, one per column. */
export function valuesSql<K extends TableKey>(values: Values<K>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([column, value]) => [column, literal(value as Scalar)]),
  );
}

function conditionSql(column: string, condition: unknown): string {
  if (Array.isArray(condition)) return oneOf(column, condition as Scalar[]);
  if (condition === null || typeof condition !== "object") return equals(column, condition as Scalar);
  if ("not" in condition) {
    const not = (condition as { not: unknown }).not;
    if (not === null) return `${column} IS NOT NULL`;
    return `NOT (${Array.isArray(not) ? oneOf(column, not as Scalar[]) : equals(column, not as Scalar)})`;
  }
  if ("contains" in condition) return `${column} ILIKE ${sqlString(`%${escapeLike((condition as { contains: string }).contains)}%`)}`;
  const range = condition as Record<"from" | "to" | "after" | "before", Scalar | undefined>;
  return sqlAnd(
    range.from !== undefined && `${column} >= ${literal(range.from)}`,
    range.after !== undefined && `${column} > ${literal(range.after)}`,
    range.to !== undefined && `${column} <= ${literal(range.to)}`,
    range.before !== undefined && `${column} < ${literal(range.before)}`,
  );
}

function equals(column: string, value: Scalar): string {
  return value === null ? `${column} IS NULL` : `${column} = ${literal(value)}`;
}

/** `column IN (…)`; a null among the values also takes the rows without a value. */
function oneOf(column: string, values: Scalar[]): string {
  const present = values.filter((value) => value !== null);
  const inList =
    present.length === 0
      ? "false"
      : present.every((value) => typeof value === "string")
        ? sqlIn(column, present as string[])
        : `${column} IN (${present.map(literal).join(", ")})`;
  if (present.length === values.length) return inList;
  return present.length === 0 ? `${column} IS NULL` : `(${column} IS NULL OR ${inList})`;
}

function literal(value: Scalar): string {
  if (value === null) return "NULL";
  return typeof value === "string" ? sqlString(value) : String(value);
}

/** LIKE's wildcards taken as themselves. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}
