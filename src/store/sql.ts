/** Quoting for the SQL predicates LanceDB takes as strings. Every value that reaches a predicate goes through here. */
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

/** The predicate every user-scoped query starts with. */
export function ofUser(userId: string): string {
  return `userId = ${sqlString(userId)}`;
}
