// The date of a Takeout time line: "Nov 27, 2024", "27.11.2024", "2024. 11. 27.", "2024年11月27日".
import { LOCALES } from "./locales.js";

export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

const YEAR = /(?<!\d)\d{4}(?!\d)/g;
const NUMBER = /\d+/g;
// Dates hold short words besides their month ("de" in pt and es, "klo" fi, "г." ru, "at" en, 年月日
// ja and zh); a longer one is prompt text around a time ("Prompted meet on 27.11.2024 at 10:30").
const FILLER_WORD_LIMIT = 4;

export function calendarDay(text: string): CalendarDay | undefined {
  const numbers = [...text.matchAll(NUMBER)].map((match) => match[0]);
  const years = [...text.matchAll(YEAR)];
  if (years.length !== 1) return undefined;
  // A word runs to the next space, digit or comma, so "नव॰" and "בנוב׳" keep their abbreviation marks.
  const words = [...text.matchAll(/[^\s\d,،]*\p{L}[^\s\d,،]*/gu)].map((match) => monthKey(match[0]));
  const named = words.map(monthOf).find((month) => month !== undefined);
  const others = words.filter((word) => monthOf(word) === undefined);
  if (others.some((word) => word.length > FILLER_WORD_LIMIT)) return undefined;
  const year = eraYear(Number(years[0]?.[0]));
  const day = named === undefined ? numericDay(numbers, year) : namedMonthDay(numbers, year, named);
  return day && day.month >= 1 && day.month <= 12 && day.day >= 1 && year >= 1970 ? day : undefined;
}

/** A month's name, also with a one-letter preposition in front, as Hebrew writes it in a date ("ב" + "נוב׳"). */
function monthOf(word: string): number | undefined {
  const rest = [...word].slice(1).join("");
  return monthNames().get(word) ?? (rest.length >= 3 ? monthNames().get(rest) : undefined);
}

/** Thai Takeouts count years in the Buddhist era, 543 ahead. */
function eraYear(year: number): number {
  return year >= 2400 ? year - 543 : year;
}

function namedMonthDay(numbers: string[], year: number, month: number): CalendarDay | undefined {
  const days = numbers.filter((number) => number.length <= 2);
  return numbers.length === 2 && days.length === 1 ? { year, month, day: Number(days[0]) } : undefined;
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

let monthsByName: Map<string, number> | undefined;

/** Month names of LOCALES, long and short, in dates ("ledna") and alone ("leden"), as keys. */
function monthNames(): Map<string, number> {
  if (monthsByName) return monthsByName;
  monthsByName = new Map();
  const styles = [{ day: "numeric", month: "long" }, { day: "numeric", month: "short" }, { month: "long" }, { month: "short" }] as const;
  for (const locale of LOCALES) {
    for (const style of styles) addMonthNames(monthsByName, new Intl.DateTimeFormat(locale, { ...style, timeZone: "UTC" }));
  }
  return monthsByName;
}

function addMonthNames(names: Map<string, number>, format: Intl.DateTimeFormat): void {
  for (let month = 1; month <= 12; month++) {
    const name = format.formatToParts(Date.UTC(2025, month - 1, 15)).find((part) => part.type === "month")?.value ?? "";
    const key = monthKey(name);
    if (key !== "" && !/\d/.test(key) && !names.has(key)) names.set(key, month);
  }
}

function monthKey(word: string): string {
  return word.toLowerCase().replace(/\.+$/, "");
}
