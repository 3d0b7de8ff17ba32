import { dayRange } from "../shared/time.js";

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * A time on the user's clock: its day (YYYY-MM-DD) and minute (HH:MM) in `timeZone` (the output's,
 * from $TZ), or in the system's when that is undefined.
 */
export function localTime(time: Date, timeZone: string | undefined): { day: string; minute: string } {
  // The process's own zone needs no Intl.DateTimeFormat, whose first use costs a CLI run 12 ms.
  if (timeZone === process.env["TZ"]) return processLocalTime(time);
  const key = timeZone ?? "";
  let format = formats.get(key);
  if (!format) {
    const fields = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" } as const;
    format = new Intl.DateTimeFormat("en-US", { ...fields, hourCycle: "h23", ...(timeZone ? { timeZone } : {}) });
    formats.set(key, format);
  }
  const part = Object.fromEntries(format.formatToParts(time).map(({ type, value }) => [type, value]));
  return { day: `${part["year"]}-${part["month"]}-${part["day"]}`, minute: `${part["hour"]}:${part["minute"]}` };
}

function processLocalTime(time: Date): { day: string; minute: string } {
  const two = (n: number) => String(n).padStart(2, "0");
  return {
    day: `${String(time.getFullYear()).padStart(4, "0")}-${two(time.getMonth() + 1)}-${two(time.getDate())}`,
    minute: `${two(time.getHours())}:${two(time.getMinutes())}`,
  };
}

/** A stored time (UTC) as the user's local "YYYY-MM-DD HH:MM", the clock `remember` dates memories by. */
export function shortDate(iso: string, timeZone: string | undefined): string {
  const time = new Date(iso);
  if (iso.length <= 10 || Number.isNaN(time.getTime())) return iso.slice(0, 16).replace("T", " ");
  const { day, minute } = localTime(time, timeZone);
  return `${day} ${minute}`;
}

/**
 * The first moment of a day (YYYY-MM-DD) on the clock of `timeZone` (the system's when undefined),
 * as an instant: the day a person means when they type one, as the times shown them are on that clock.
 */
export function localDayStart(day: string, timeZone: string | undefined): Date {
  return localInstant(Date.parse(`${day}T00:00:00Z`), timeZone);
}

/** The instant `timeZone`'s clock shows the time `wall` (ms, that time read as if it were UTC's). */
function localInstant(wall: number, timeZone: string | undefined): Date {
  const guess = wall - offsetAt(wall, timeZone);
  // Again at the guess: the offset at UTC's moment is not the one at the local one across a DST change.
  return new Date(wall - offsetAt(guess, timeZone));
}

/** A date-time without a zone ("2024-03-15T09:00"), as typed on the clock of `timeZone`; anything else as it is. */
function localDateTime(value: string, timeZone: string | undefined): string {
  const wall = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value) ? Date.parse(`${value}Z`) : Number.NaN;
  return Number.isNaN(wall) ? value : localInstant(wall, timeZone).toISOString();
}

/** How far `timeZone`'s clock is ahead of UTC at `time` (ms, to the minute). */
function offsetAt(time: number, timeZone: string | undefined): number {
  const { day, minute } = localTime(new Date(time), timeZone);
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  const [hour, min] = minute.split(":").map(Number) as [number, number];
  // Not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  const clock = new Date(0);
  clock.setUTCFullYear(year, month - 1, date);
  clock.setUTCHours(hour, min, 0, 0);
  return clock.getTime() - (time - (((time % 60_000) + 60_000) % 60_000));
}

/**
 * A date filter's bounds as the person typing them means them: a day (YYYY-MM-DD) is theirs, on the
 * clock of `timeZone` (the system's when undefined), from its first moment to its last, as instants;
 * the API's day is UTC's, which in Auckland filed a chat shown at 06:25 on the 12th under the 11th.
 * A date-time without a zone is on that clock too. Swapped days are refused as typed. Anything else
 * (a date-time with its zone, no date at all) is passed on as it is, for the API to check.
 */
export function localDayBounds(
  from: string | undefined,
  to: string | undefined,
  timeZone: string | undefined,
): { dateFrom?: string; dateTo?: string } {
  if (from !== undefined && to !== undefined && isDay(from) && isDay(to)) dayRange(from, to);
  const end = (day: string) => new Date(localInstant(Date.parse(`${day}T00:00:00Z`) + 86_400_000, timeZone).getTime() - 1).toISOString();
  return {
    ...(from !== undefined ? { dateFrom: isDay(from) ? localDayStart(from, timeZone).toISOString() : localDateTime(from, timeZone) } : {}),
    ...(to !== undefined ? { dateTo: isDay(to) ? end(to) : localDateTime(to, timeZone) } : {}),
  };
}

/** A real calendar day (not 2025-02-30, which is passed on for the API to refuse). */
export function isDay(value: string): boolean {
  const time = Date.parse(`${value}T00:00:00Z`); // NaN for 2025-13-45
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}
