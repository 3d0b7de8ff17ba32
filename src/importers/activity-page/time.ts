// The times Google Takeout writes in its My Activity HTML page: a date and time in the account's
// language ("Nov 27, 2024, 10:00:00 AM PST", "10 de mai. de 2026, 03:46:09 BRT", "2026年6月19日
// 12:23:08 JST") with a short zone name. Google formats them with CLDR, the data Node's Intl
// carries, so month names, AM/PM markers and zone names are read from Intl rather than from
// tables kept by hand: a language Intl knows is read without a change here.

/** A Takeout activity time read: `iso` in UTC (Date#toISOString); `unknownZone` set to the zone text when it was not recognised and the wall-clock time was read as UTC. */
export interface ActivityTime {
  iso: string;
  /** The day as written, in the account's time zone (YYYY-MM-DD). */
  day: string;
  unknownZone?: string;
}

/**
 * Languages whose names Takeout may write. en-US first: a name two places share (CST) means theirs.
 * Then those with zone names of their own, so a zone name is found before the rest are listed
 * (the rest have only "GMT+1" and are here for their months and AM/PM).
 */
const LOCALES = `
  en-US en-GB en-IN en-CA en-AU en-NZ en-IE en-ZA ja de pt-BR es cs sk hi id ms fr-CA pt-PT it nl sv da
  nb pl hu ro hr sr bg el lv ca eu gl ar fa mr bn ta te vi af zh-TW zh-HK
  fr es-419 es-MX fi is sl ru uk tr lt et he ur th fil sw ko zh-CN
`
  .trim()
  .split(/\s+/);

interface ClockTime {
  hour: number;
  minute: number;
  second: number;
  start: number;
  end: number;
}

interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

/** The time of a My Activity line such as "Nov 27, 2024, 10:00:00 AM PST"; undefined when the line is no date and time. */
export function activityTime(line: string): ActivityTime | undefined {
  const text = normalised(line);
  const clock = clockTime(text);
  if (!clock) return undefined;
  let before = text.slice(0, clock.start);
  let after = text.slice(clock.end);
  const period = dayPeriodAround(before, after);
  if (period?.side === "after") after = after.slice(period.length);
  if (period?.side === "before") before = before.slice(0, before.length - period.length);
  const tail = after.replace(/^[\s,]+/, "").trimEnd();
  const zone = tail === "" ? (zoneBefore(before) ?? { text: "", side: "after" }) : zoneWord(tail);
  if (zone === undefined) return undefined;
  if (zone.side === "before") before = before.slice(0, before.length - zone.text.length);
  const date = calendarDay(before);
  const hour = period ? hourOfPeriod(clock.hour, period.pm) : clock.hour;
  if (!date || hour === undefined || hour > 23 || clock.minute > 59 || clock.second > 59) return undefined;
  return timeIn(date, { ...clock, hour }, zone.text);
}

/**
 * The line as the readers below expect it: plain spaces, ASCII digits, no direction marks (Hebrew and
 * Arabic lines carry them), no brackets around the zone ("[GMT+1]", "(PST)"), and an offset written
 * whole ("GMT -8", "GMT–8" as "GMT-8"), as languages that Intl formats so write them.
 */
function normalised(line: string): string {
  return asciiDigits(line)
    .replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[()[\]]/g, " ")
    .replace(/\b(GMT|UTC) ?[\u2212\u2013-] ?(?=\d)/g, "$1-")
    .replace(/\b(GMT|UTC) ?\+ ?(?=\d)/g, "$1+")
    .replace(/[\s\u00a0\u202f\u2009]+/g, " ")
    .trim();
}

/** Digits of other scripts (Devanagari, Bengali, Arabic-Indic…) as ASCII: each script's run from 0 to 9. */
function asciiDigits(text: string): string {
  return text.replace(/(?![0-9])\p{Nd}/gu, (digit) => {
    let zero = digit.codePointAt(0) ?? 0;
    while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
    return String(((digit.codePointAt(0) ?? 0) - zero) % 10);
  });
}

function timeIn(date: CalendarDay, clock: ClockTime, zoneText: string): ActivityTime | undefined {
  const wallClock = Date.UTC(date.year, date.month - 1, date.day, clock.hour, clock.minute, clock.second);
  if (new Date(wallClock).getUTCDate() !== date.day) return undefined;
  const offset = zoneText === "" ? 0 : zoneOffset(zoneText);
  const iso = new Date(wallClock - (offset ?? 0) * 60_000).toISOString();
  const day = new Date(wallClock).toISOString().slice(0, 10);
  return offset === undefined ? { iso, day, unknownZone: zoneText } : { iso, day };
}

// --- the time of day

const COLON_TIME = /(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])/;
// Finnish writes "klo 10.00.00"; a dotted group that goes on with a digit or a dot is a date (27.11.2024).
const DOTTED_TIME = /(?<![\d.])(\d{1,2})\.(\d{2})(?:\.(\d{2}))?(?![\d.])/g;

function clockTime(text: string): ClockTime | undefined {
  const colon = COLON_TIME.exec(text);
  if (colon) return clockOf(colon);
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

/** The hour on a 24-hour clock of `hour` AM or PM; 12 AM is midnight, 12 PM noon. */
function hourOfPeriod(hour: number, pm: boolean): number | undefined {
  if (hour > 12) return undefined;
  return (hour % 12) + (pm ? 12 : 0);
}

// --- AM and PM

interface DayPeriod {
  pm: boolean;
  side: "before" | "after";
  /** Characters of the line it takes, spaces around it included. */
  length: number;
}

let periodPatterns: { after: RegExp; before: RegExp; pmMarkers: Set<string> } | undefined;

/** The AM or PM marker right after the time (en: "10:00 PM") or right before it (ko, zh: "下午3:00"). */
function dayPeriodAround(before: string, after: string): DayPeriod | undefined {
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
  for (const [morning, afternoon] of LOCALES.flatMap(dayPeriodMarkers)) {
    if (morning && !pm.has(morning)) am.add(morning);
    if (afternoon && !am.has(afternoon)) pm.add(afternoon);
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

/** A locale's AM and PM markers, as keys (lowercase, without dots or spaces). */
function dayPeriodMarkers(locale: string): string[][] {
  const format = new Intl.DateTimeFormat(locale, { hour: "numeric", hour12: true, timeZone: "UTC" });
  const markers = [3, 15].map((hour) => {
    const parts = format.formatToParts(Date.UTC(2025, 0, 1, hour));
    return markerKey(parts.find((part) => part.type === "dayPeriod")?.value ?? "");
  });
  // CLDR 48 formats Korean with "AM"/"PM", while Takeout writes 오전/오후 (older CLDR); the name of
  // the day-period field still holds them, as "오전/오후".
  const field = new Intl.DisplayNames(locale, { type: "dateTimeField" }).of("dayPeriod")?.split("/") ?? [];
  return field.length === 2 ? [markers, field.map(markerKey)] : [markers];
}

function markerKey(marker: string): string {
  return marker.toLowerCase().replace(/[.\s]/g, "");
}

/** A regex source matching `key` with any dots and spaces Takeout may put between its letters ("p. m."). */
function markerPattern(key: string): string {
  const letters = [...key].map((char) => char.replace(/[\\^$*+?()[\]{}|/-]/g, "\\$&")).join("[.\\s]*");
  return `${letters}\\.?`;
}

// --- the zone

interface ZoneText {
  /** The zone as written; "" when the line has none (old Takeouts wrote UTC without saying so). */
  text: string;
  side: "before" | "after";
}

const OFFSET_ZONE = /^(?:GMT|UTC)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/;
const OFFSET_ZONE_AT_END = /(?<![\p{L}\p{M}])(?:GMT|UTC)[+-]\d{1,2}(?::?\d{2})?\s*$/u;
const CAPITALS_AT_END = /(?<![\p{L}\p{M}])\p{Lu}{2,6}\s*$/u;

/** What follows the time as its zone: one short word; undefined when it is more (prompt text, not a time). */
function zoneWord(tail: string): ZoneText | undefined {
  return /^\S*\p{L}\S*$/u.test(tail) && tail.length <= 10 ? { text: tail, side: "after" } : undefined;
}

/** A zone some languages (zh) write between the date and the time: an offset, or a name Intl knows. */
function zoneBefore(before: string): ZoneText | undefined {
  const found = OFFSET_ZONE_AT_END.exec(before) ?? CAPITALS_AT_END.exec(before);
  if (!found) return undefined;
  const text = found[0].trim();
  return OFFSET_ZONE.test(text) || shortZoneOffset(text) !== undefined ? { text: found[0], side: "before" } : undefined;
}

/** Minutes east of UTC of a zone as Takeout writes it; undefined when it is not known. */
function zoneOffset(zone: string): number | undefined {
  const text = zone.trim();
  if (text === "Z") return 0;
  const offset = OFFSET_ZONE.exec(text);
  if (!offset) return shortZoneOffset(text);
  const [, sign = "+", hours = "0", minutes = "0"] = offset;
  return (sign === "-" ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

// Short zone names of every language × zone cost 1.6 s to list (0.6 s with the grouping below), so
// they are listed one language at a time, in LOCALES order, only until the name asked for is found. Zones are listed by their
// English long names: zones sharing them share their short names in every language (checked over
// LOCALES: the same names and offsets), so one zone of each, 153 of 418, is enough.
const shortZoneNames = new Map<string, number>();
let localesListed = 0;
let namedZones: { zone: string; offsets: number[] }[] | undefined;
const SAMPLE_DAYS = [Date.UTC(2025, 0, 15, 12), Date.UTC(2025, 6, 15, 12)];

function shortZoneOffset(name: string): number | undefined {
  while (!shortZoneNames.has(name) && localesListed < LOCALES.length) {
    listShortZoneNames(LOCALES[localesListed++] ?? "en-US");
  }
  return shortZoneNames.get(name);
}

function listShortZoneNames(locale: string): void {
  for (const { zone, offsets } of zonesWithNames()) {
    const format = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" });
    SAMPLE_DAYS.forEach((day, i) => {
      const name = zoneNameAt(format, day);
      if (name !== "" && !/^(?:GMT|UTC)/.test(name) && !shortZoneNames.has(name)) shortZoneNames.set(name, offsets[i] ?? 0);
    });
  }
}

/** One zone for each set of English long names, with its offsets on SAMPLE_DAYS; zones named only "GMT+3" left out. */
function zonesWithNames(): { zone: string; offsets: number[] }[] {
  if (namedZones) return namedZones;
  const zones = new Map<string, string>();
  for (const zone of Intl.supportedValuesOf("timeZone")) {
    const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "long" });
    const names = SAMPLE_DAYS.map((day) => zoneNameAt(format, day));
    const key = names.join("|");
    if (!names.every((name) => name.startsWith("GMT")) && !zones.has(key)) zones.set(key, zone);
  }
  namedZones = [...zones.values()].map((zone) => {
    const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    return { zone, offsets: SAMPLE_DAYS.map((day) => zoneOffset(zoneNameAt(format, day)) ?? 0) };
  });
  return namedZones;
}

function zoneNameAt(format: Intl.DateTimeFormat, day: number): string {
  return format.formatToParts(day).find((part) => part.type === "timeZoneName")?.value ?? "";
}

// --- the date

const YEAR = /(?<!\d)\d{4}(?!\d)/g;
const NUMBER = /\d+/g;
// Dates hold short words besides their month ("de" in pt and es, "klo" fi, "г." ru, "at" en, 年月日
// ja and zh); a longer one is prompt text around a time ("Prompted meet on 27.11.2024 at 10:30").
const FILLER_WORD_LIMIT = 4;

function calendarDay(text: string): CalendarDay | undefined {
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
