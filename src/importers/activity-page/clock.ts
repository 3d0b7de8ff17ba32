// The time of day of a Takeout time line, "10:00:00" or "klo 10.00.00" (fi), with its AM or PM marker.
import { LOCALES } from "./locales.js";

export interface ClockTime {
  hour: number;
  minute: number;
  second: number;
  start: number;
  end: number;
}

const COLON_TIME = /(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])/;
// Finnish writes "klo 10.00.00"; a dotted group that goes on with a digit or a dot is a date (27.11.2024).
const DOTTED_TIME = /(?<![\d.])(\d{1,2})\.(\d{2})(?:\.(\d{2}))?(?![\d.])/g;

export function clockTime(text: string): ClockTime | undefined {
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
export function hourOfPeriod(hour: number, pm: boolean): number | undefined {
  if (hour > 12) return undefined;
  return (hour % 12) + (pm ? 12 : 0);
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
