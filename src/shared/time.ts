import { AppError } from "./errors.js";

/** ISO 8601 in UTC; a date-time without an offset is read as UTC, not local time. */
export function toUtcIso(value: string): string {
  return new Date(utcMillis(value)).toISOString();
}

/** A date-time's milliseconds since the epoch, one without a zone read as UTC; NaN when it is not one. */
export function utcMillis(value: string): number {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return Date.parse(hasZone ? value : `${value}Z`);
}

/** A date filter's bound: a `YYYY-MM-DD` bounds the whole day (from its first millisecond, to its last); a date-time is itself, in UTC. */
export function dayBound(value: string, side: "from" | "to"): string {
  if (value.length > 10) return toUtcIso(value);
  return side === "from" ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`;
}

/**
 * A date filter's two bounds (dateFrom, dateTo). A range that ends before it starts is refused: it
 * can hold nothing, and an empty answer would read as "nothing stored" to someone who swapped them.
 */
export function dayRange(from: string | undefined, to: string | undefined): { from: string | undefined; to: string | undefined } {
  const range = { from: from === undefined ? undefined : dayBound(from, "from"), to: to === undefined ? undefined : dayBound(to, "to") };
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw AppError.invalid("dateFrom", `${from} is after the range's end, ${to}: nothing lies between them`, "Swap the two dates.");
  }
  return range;
}

/** A date filter said in words, as the user gave it: "from 2024-03-01 to 2024-03-31", "until 2024-03-31"; "" without one. */
export function periodWords(from: string | undefined, to: string | undefined): string {
  return [from && `from ${from}`, to && `${from ? "to" : "until"} ${to}`].filter(Boolean).join(" ");
}

/**
 * Recall's answer when nothing is relevant, said plainly so that an assistant repeats no invented
 * history, with the dates it was bounded to, so that none reads it as "never discussed". The faces
 * that turn the user's days into instants name the days as typed.
 */
export function nothingRecalled(from: string | undefined, to: string | undefined): string {
  const when = periodWords(from, to);
  return `Nothing in your chat history${when ? ` ${when}` : ""} is about this.`;
}
