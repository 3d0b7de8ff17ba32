/** ISO 8601 in UTC; a date-time without an offset is read as UTC, not local time. */
export function toUtcIso(value: string): string {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return new Date(hasZone ? value : `${value}Z`).toISOString();
}
