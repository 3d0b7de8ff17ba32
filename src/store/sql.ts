/** Quoting for the SQL predicates LanceDB takes as strings (store/ only: core says what it asks as a Where, where.ts). */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlIn(column: string, values: readonly string[]): string {
  if (values.length === 0) return "false";
  return `${column} IN (${values.map(sqlString).join(", ")})`;
}

export function sqlAnd(...predicates: (string | undefined | false)[]): string {
  return predicates.filter((p): p is string => typeof p === "string" && p.length > 0).join(" AND ");
}
