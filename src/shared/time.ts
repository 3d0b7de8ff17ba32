/** ISO 8601 in UTC; a date-time without an offset is read as UTC, not local time. */
export function toUtcIso(value: string): string {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return new Date(hasZone ? value : `${value}Z`).toISOString();
}

/** A date filter's bound: a `YYYY-MM-DD` bounds the whole day (from its first millisecond, to its last); a date-time is itself, in UTC. */
export function dayBound(value: string, side: "from" | "to"): string {
  if (value.length > 10) return toUtcIso(value);
  return side === "from" ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`;
}
