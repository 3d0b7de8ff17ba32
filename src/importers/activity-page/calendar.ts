// The date of a Takeout time line: "Nov 27, 2024", "27.11.2024", "2024. 11. 27.", "2024年11月27日",
// with a year of the Buddhist era (th) or a date of the Persian calendar (fa: "۷ آذر ۱۴۰۳").
import { LOCALES } from "./locales.js";

export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

/** A month as named: its number in its calendar (an Intl calendar name: "gregory", "persian"). */
interface MonthName {
  month: number;
  calendar: string;
}

const YEAR = /(?<!\d)\d{4}(?!\d)/g;
const NUMBER = /\d+/g;
// Dates hold short words besides their month ("de" in pt and es, "klo" fi, "г." ru, "at" en, 年月日
// ja and zh); a longer one is prompt text around a time ("Prompted meet on 27.11.2024 at 10:30").
const FILLER_WORD_LIMIT = 4;

/** The Gregorian day of a line's date, the time and zone taken out; undefined when it is no date. */
export function calendarDay(text: string): CalendarDay | undefined {
  const numbers = [...text.matchAll(NUMBER)].map((match) => match[0]);
  const years = [...text.matchAll(YEAR)];
  if (years.length !== 1) return undefined;
  // A word runs to the next space, digit or comma, so "नव॰" and "בנוב׳" keep their abbreviation marks.
  const words = [...text.matchAll(/[^\s\d,،]*\p{L}[^\s\d,،]*/gu)].map((match) => monthKey(match[0]));
  const named = words.map(monthOf).find((month) => month !== undefined);
  const others = words.filter((word) => monthOf(word) === undefined);
  if (others.some((word) => word.length > FILLER_WORD_LIMIT)) return undefined;
  const year = Number(years[0]?.[0]);
  const day = named === undefined ? numericDay(numbers, eraYear(year)) : namedMonthDay(numbers, year, named);
  return day && day.month >= 1 && day.month <= 12 && day.day >= 1 && day.year >= 1970 ? day : undefined;
}

/** A month's name, also with a one-letter preposition in front, as Hebrew writes it in a date ("ב" + "נוב׳"). */
function monthOf(word: string): MonthName | undefined {
  const rest = [...word].slice(1).join("");
  return monthNames().get(word) ?? (rest.length >= 3 ? monthNames().get(rest) : undefined);
}

/** Thai Takeouts count years in the Buddhist era, 543 ahead. */
function eraYear(year: number): number {
  return year >= 2400 ? year - 543 : year;
}

function namedMonthDay(numbers: string[], year: number, named: MonthName): CalendarDay | undefined {
  const days = numbers.filter((number) => number.length <= 2);
  if (numbers.length !== 2 || days.length !== 1) return undefined;
  const day = { year, month: named.month, day: Number(days[0]) };
  return named.calendar === "gregory" ? { ...day, year: eraYear(year) } : gregorianDay(named.calendar, day);
}

/** 2024/11/27 and 2024. 11. 27. put the year first; 27.11.2024 the day, except 11/27/2024 (en-US). */
function numericDay(numbers: string[], year: number): CalendarDay | undefined {
  if (numbers.length !== 3) return undefined;
  const [first = "", second = "", third = ""] = numbers;
  if (first.length === 4) return { year, month: Number(second), day: Number(third) };
  if (third.length !== 4) return undefined;
  const monthFirst = Number(first) <= 12 && Number(second) > 12;
  return monthFirst ? { year, month: Number(first), day: Number(second) } : { year, month: Number(second), day: Number(first) };
}

// --- month names

let monthsByName: Map<string, MonthName> | undefined;
// Names as medium dates write them first, what Takeout writes: Croatian writes July "srp" there, a
// name Czech gives August only in a style its dates do not use.
const NAME_STYLES = [
  { dateStyle: "medium" },
  { day: "numeric", month: "long" },
  { day: "numeric", month: "short" },
  { month: "long" },
  { month: "short" },
] as const;
// The 15th of each Gregorian month falls in a different month of the Persian calendar too.
const SAMPLE_DAYS = Array.from({ length: 12 }, (_, month) => Date.UTC(2025, month, 15));

/**
 * Month names of LOCALES, long and short, in dates ("ledna") and alone ("leden"), as keys: the
 * Gregorian ones, then those of a language's own calendar when it names its months otherwise (fa).
 */
function monthNames(): Map<string, MonthName> {
  if (monthsByName) return monthsByName;
  const names = new Map<string, MonthName>();
  const ownCalendars = LOCALES.map(ownCalendar).filter(({ calendar }) => calendar !== "gregory");
  const calendars = LOCALES.map((locale) => ({ locale, calendar: "gregory" })).concat(ownCalendars);
  for (const style of NAME_STYLES) {
    for (const { locale, calendar } of calendars) addMonthNames(names, locale, calendar, style);
  }
  monthsByName = names;
  return names;
}

function ownCalendar(locale: string): { locale: string; calendar: string } {
  return { locale, calendar: new Intl.DateTimeFormat(locale).resolvedOptions().calendar };
}

function addMonthNames(names: Map<string, MonthName>, locale: string, calendar: string, style: (typeof NAME_STYLES)[number]): void {
  const format = new Intl.DateTimeFormat(locale, { ...style, calendar, timeZone: "UTC" });
  for (const day of SAMPLE_DAYS) {
    const key = monthKey(format.formatToParts(day).find((part) => part.type === "month")?.value ?? "");
    if (key !== "" && !/\d/.test(key) && !names.has(key)) names.set(key, { month: dateIn(calendar, day).month, calendar });
  }
}

function monthKey(word: string): string {
  return word.toLowerCase().replace(/\.+$/, "");
}

// --- other calendars, through Intl

const DAY_MS = 86_400_000;
const monthStarts = new Map<string, number | undefined>();
const numericFormats = new Map<string, Intl.DateTimeFormat>();

/** The Gregorian day of a day of `calendar`; undefined when that month has no such day. */
function gregorianDay(calendar: string, day: CalendarDay): CalendarDay | undefined {
  const start = monthStart(calendar, day.year, day.month);
  if (start === undefined) return undefined;
  const at = start + (day.day - 1) * DAY_MS;
  const read = dateIn(calendar, at);
  if (read.month !== day.month || read.day !== day.day) return undefined;
  const date = new Date(at);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** The first day of a month of `calendar`, found by moving a day month by month until it is in that month. */
function monthStart(calendar: string, year: number, month: number): number | undefined {
  const key = `${calendar} ${year} ${month}`;
  if (monthStarts.has(key)) return monthStarts.get(key);
  let at = Date.UTC(2025, 0, 15);
  let start: number | undefined;
  for (let step = 0; step < 8 && start === undefined; step++) {
    const seen = dateIn(calendar, at);
    const months = (year - seen.year) * 12 + (month - seen.month);
    if (months === 0) start = at - (seen.day - 1) * DAY_MS;
    else at += Math.round(months * 30.44 + 15 - seen.day) * DAY_MS;
  }
  monthStarts.set(key, start);
  return start;
}

function dateIn(calendar: string, at: number): CalendarDay {
  let format = numericFormats.get(calendar);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { calendar, year: "numeric", month: "numeric", day: "numeric", timeZone: "UTC" });
    numericFormats.set(calendar, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => Number(parts.find((found) => found.type === type)?.value);
  return { year: part("year"), month: part("month"), day: part("day") };
}
