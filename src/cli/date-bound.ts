import { dayRange } from "../shared/time.js";
import { localDayStart } from "../text/local-time.js";

/**
 * A `--from`/`--to` date as the user means it: a month (`2024-03`) or a year (`2024`) becomes its
 * first day for `--from` and its last for `--to`, so `--from 2024-03 --to 2024-03` is March. Any
 * other value is passed on as it is.
 */
export function dateBound(value: string, side: "from" | "to"): string {
  const month = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(value);
  if (month) {
    const [year, number] = [Number(month[1]), Number(month[2])];
    return side === "from" ? `${value}-01` : `${value}-${String(new Date(Date.UTC(year, number, 0)).getUTCDate()).padStart(2, "0")}`;
  }
  if (/^\d{4}$/.test(value)) return side === "from" ? `${value}-01-01` : `${value}-12-31`;
  return value;
}

/**
 * `--from` and `--to` as the API's `dateFrom` and `dateTo`, each only when given. A day is the
 * user's day, on the clock the CLI shows times on (`timeZone`, from $TZ): the API's day is UTC's,
 * so in Auckland a chat at 05:30 on the 12th, listed so, was found under the 11th and not the 12th.
 * Anything else (a date-time, a value that is no date) is passed on for the API to check.
 */
export function dateOptions(
  { from, to }: { from?: string | undefined; to?: string | undefined },
  timeZone: string | undefined,
): { dateFrom?: string; dateTo?: string } {
  const [fromDay, toDay] = [from === undefined ? undefined : dateBound(from, "from"), to === undefined ? undefined : dateBound(to, "to")];
  // Swapped days are refused as the days typed, before they become times.
  if (fromDay !== undefined && toDay !== undefined && isDay(fromDay) && isDay(toDay)) dayRange(fromDay, toDay);
  return {
    ...(fromDay !== undefined ? { dateFrom: isDay(fromDay) ? localDayStart(fromDay, timeZone).toISOString() : fromDay } : {}),
    ...(toDay !== undefined
      ? { dateTo: isDay(toDay) ? new Date(localDayStart(nextDay(toDay), timeZone).getTime() - 1).toISOString() : toDay }
      : {}),
  };
}

/** A real calendar day (not 2025-02-30, which the API refuses as it is). */
function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

export const DATE_HELP = "(YYYY-MM-DD or a time; a month YYYY-MM or a year YYYY for all of it)";
