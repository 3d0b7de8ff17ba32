import { AppError } from "../shared/errors.js";
import { isDay, localDayBounds } from "../text/local-time.js";

/**
 * A `--from`/`--to` date as the user means it: a month (`2024-03`) or a year (`2024`) becomes its
 * first day for `--from` and its last for `--to`, so `--from 2024-03 --to 2024-03` is March. A day
 * or a date-time is passed on as it is; anything else is refused, naming every form it takes.
 */
export function dateBound(value: string, side: "from" | "to"): string {
  const month = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(value);
  if (month) {
    const [year, number] = [Number(month[1]), Number(month[2])];
    return side === "from" ? `${value}-01` : `${value}-${String(new Date(Date.UTC(year, number, 0)).getUTCDate()).padStart(2, "0")}`;
  }
  if (/^\d{4}$/.test(value)) return side === "from" ? `${value}-01-01` : `${value}-12-31`;
  // A date-time is the API's to check; anything else is said here, with the forms only the CLI takes.
  if (isDay(value) || value.includes("T")) return value;
  throw AppError.invalid(side === "from" ? "dateFrom" : "dateTo", NOT_A_DATE);
}

const NOT_A_DATE = "must be an ISO 8601 date (2024-03-15), a month (2024-03), a year (2024) or a date-time (2024-03-15T09:00+02:00)";

/**
 * `--from` and `--to` as the API's `dateFrom` and `dateTo`, each only when given: a day is the
 * user's, on the clock the CLI shows times on (`timeZone`, from $TZ), not UTC's.
 */
export function dateOptions(
  { from, to }: { from?: string | undefined; to?: string | undefined },
  timeZone: string | undefined,
): { dateFrom?: string; dateTo?: string } {
  return localDayBounds(
    from === undefined ? undefined : dateBound(from, "from"),
    to === undefined ? undefined : dateBound(to, "to"),
    timeZone,
  );
}

export const DATE_HELP = "(YYYY-MM-DD or a time; a month YYYY-MM or a year YYYY for all of it)";
