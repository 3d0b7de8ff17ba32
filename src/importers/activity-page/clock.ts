// The time of day of a Takeout time line: "10:00:00", "klo 10.00.00" (fi), or in words, "10시 0분 0초"
// (ko), "22 h 00 min 00 s" (fr-CA), "22 นาฬิกา 00 นาที 00 วินาที" (th); with its AM or PM marker.
import { escapeRegExp } from "../../text/regexp.js";
import { LOCALES } from "./locales.js";

export interface ClockTime {
  hour: number;
  minute: number;
  second: number;
  start: number;
  end: number;
}

// An offset's "+5:30" is no time of day.
const COLON_TIME = /(?<![\d:+\u2212-])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])/;
// Finnish writes "klo 10.00.00"; a dotted group that goes on with a digit or a dot is a date (27.11.2024).
const DOTTED_TIME = /(?<![\d.])(\d{1,2})\.(\d{2})(?:\.(\d{2}))?(?![\d.])/g;

export function clockTime(text: string): ClockTime | undefined {
  const { words, secondSuffix } = clockPatterns();
  const colon = COLON_TIME.exec(text);
  if (colon) return withSuffix(clockOf(colon), text, secondSuffix);
  const worded = words.exec(text);
  if (worded) return clockOf(worded);
  for (const dotted of text.matchAll(DOTTED_TIME)) {
    const clock = clockOf(dotted);
    if (clock.hour < 24 && clock.minute < 60) return clock;
  }
  return undefined;
}

function clockOf(match: RegExpExecArray | RegExpMatchArray): ClockTime {
  const [whole, hour = "", minute = "", second = "0"] = match;
  const start = match.index ?? 0;
  return { hour: Number(hour), minute: Number(minute), second: Number(second), start, end: start + whole.length };
}

/** Bulgarian writes the word for hour after the time ("10:00:00 ч."): it is the time's, not the zone's. */
function withSuffix(clock: ClockTime, text: string, suffix: RegExp): ClockTime {
  const found = suffix.exec(text.slice(clock.end));
  return found ? { ...clock, end: clock.end + found[0].length } : clock;
}

/** The hour on a 24-hour clock of `hour` AM or PM; 12 AM is midnight, 12 PM noon. */
export function hourOfPeriod(hour: number, pm: boolean): number | undefined {
  if (hour > 12) return undefined;
  return (hour % 12) + (pm ? 12 : 0);
}

// --- times in words

let patterns: { words: RegExp; secondSuffix: RegExp } | undefined;

/**
 * The words LOCALES write after an hour, a minute and a second ("시", "분", "초"), read from the
 * literals of Intl's own times, so a language Intl writes so is read without a list kept here.
 */
function clockPatterns(): NonNullable<typeof patterns> {
  if (patterns) return patterns;
  const units = { hour: new Set<string>(), minute: new Set<string>(), second: new Set<string>() };
  for (const locale of LOCALES) {
    for (const timeStyle of ["short", "medium", "long", "full"] as const) addUnitWords(units, locale, timeStyle);
  }
  const [hour, minute, second] = [units.hour, units.minute, units.second].map(alternatives);
  const number = "(\\d{1,2})";
  patterns = {
    words: new RegExp(
      `(?<![\\d:.])${number} ?(?:${hour}) ?${number}(?: ?(?:${minute})(?: ?${number} ?(?:${second}))?)?(?![\\p{L}\\p{M}\\d])`,
      "u",
    ),
    secondSuffix: new RegExp(`^ ?(?:${second})(?![\\p{L}\\p{M}])`, "u"),
  };
  return patterns;
}

function addUnitWords(
  units: Record<"hour" | "minute" | "second", Set<string>>,
  locale: string,
  timeStyle: "short" | "medium" | "long" | "full",
) {
  const parts = new Intl.DateTimeFormat(locale, { timeStyle, timeZone: "UTC" }).formatToParts(Date.UTC(2025, 0, 1, 22, 4, 5));
  parts.forEach((part, i) => {
    const unit = part.type;
    const word = parts[i + 1]?.type === "literal" ? (parts[i + 1]?.value.trim() ?? "") : "";
    if ((unit === "hour" || unit === "minute" || unit === "second") && /\p{L}/u.test(word)) units[unit].add(word);
  });
}

function alternatives(words: Set<string>): string {
  return [...words]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join("|");
}

// --- AM and PM

export interface DayPeriod {
  pm: boolean;
  side: "before" | "after";
  /** Characters of the line it takes, spaces around it included. */
  length: number;
}

let periodPatterns: { after: RegExp; before: RegExp; pmMarkers: Set<string> } | undefined;

/** The AM or PM marker right after the time (en: "10:00 PM") or right before it (ko, zh: "下午3:00"). */
export function dayPeriodAround(before: string, after: string): DayPeriod | undefined {
  const patterns = dayPeriodPatterns();
  const found = patterns.after.exec(after);
  const side = found ? "after" : "before";
  const marker = found ?? patterns.before.exec(before);
  return marker ? { pm: patterns.pmMarkers.has(markerKey(marker[1] ?? "")), side, length: marker[0].length } : undefined;
}

function dayPeriodPatterns(): NonNullable<typeof periodPatterns> {
  if (periodPatterns) return periodPatterns;
  const am = new Set<string>();
  const pm = new Set<string>();
  for (const { marker, afternoon } of LOCALES.flatMap(dayPeriodMarkers)) {
    if (marker && afternoon && !am.has(marker)) pm.add(marker);
    if (marker && !afternoon && !pm.has(marker)) am.add(marker);
  }
  // Longest first, so "a. m." is not read as a shorter marker it begins with.
  const markers = [...am, ...pm]
    .sort((a, b) => b.length - a.length)
    .map(markerPattern)
    .join("|");
  periodPatterns = {
    after: new RegExp(`^[\\s,]*(${markers})(?![\\p{L}\\p{M}])[\\s,]*`, "iu"),
    before: new RegExp(`(?<![\\p{L}\\p{M}])(${markers})\\s*$`, "iu"),
    pmMarkers: pm,
  };
  return periodPatterns;
}

/** A locale's markers of the hours before noon and after, as keys (lowercase, without dots or spaces). */
function dayPeriodMarkers(locale: string): { marker: string; afternoon: boolean }[] {
  const format = new Intl.DateTimeFormat(locale, { hour: "numeric", hour12: true, timeZone: "UTC" });
  const markers = [3, 15].map((hour, i) => ({ marker: periodAt(format, hour), afternoon: i === 1 }));
  // CLDR 48 formats Korean with "AM"/"PM", while Takeout writes 오전/오후 (older CLDR); the name of
  // the day-period field still holds them, as "오전/오후".
  const field = new Intl.DisplayNames(locale, { type: "dateTimeField" }).of("dayPeriod")?.split("/") ?? [];
  if (field.length === 2) markers.push(...field.map((name, i) => ({ marker: markerKey(name), afternoon: i === 1 })));
  return markers.concat(flexibleDayPeriods(locale));
}

/**
 * The periods a language's own times name instead of AM and PM (zh-TW "晚上10:00:00", in the
 * evening); only those within one half of the day, as a night over midnight says neither.
 */
function flexibleDayPeriods(locale: string): { marker: string; afternoon: boolean }[] {
  const format = new Intl.DateTimeFormat(locale, { timeStyle: "medium", timeZone: "UTC" });
  const halves = new Map<string, Set<boolean>>();
  for (let hour = 0; hour < 24; hour++) {
    const marker = periodAt(format, hour);
    if (marker !== "") halves.set(marker, (halves.get(marker) ?? new Set()).add(hour >= 12));
  }
  return [...halves].filter(([, half]) => half.size === 1).map(([marker, half]) => ({ marker, afternoon: half.has(true) }));
}

function periodAt(format: Intl.DateTimeFormat, hour: number): string {
  return markerKey(format.formatToParts(Date.UTC(2025, 0, 1, hour)).find((part) => part.type === "dayPeriod")?.value ?? "");
}

function markerKey(marker: string): string {
  return marker.toLowerCase().replace(/[.\s]/g, "");
}

/** A regex source matching `key` with any dots and spaces Takeout may put between its letters ("p. m."). */
function markerPattern(key: string): string {
  const letters = [...key].map(escapeRegExp).join("[.\\s]*");
  return `${letters}\\.?`;
}
