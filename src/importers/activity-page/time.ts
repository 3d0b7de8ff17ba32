// The times Google Takeout writes in its My Activity HTML page: a date and time in the account's
// language ("Nov 27, 2024, 10:00:00 AM PST", "10 de mai. de 2026, 03:46:09 BRT", "2026年6月19日
// 12:23:08 JST") with a short zone name. Google formats them with CLDR, the data Node's Intl
// carries, so month names, AM/PM markers, the words of times written in words and zone names
// are read from Intl rather than from tables kept by hand: a language Intl knows is read without
// a change here.
import { calendarDay, type CalendarDay } from "./calendar.js";
import { type ClockTime, clockTime, dayPeriodAround, type DayPeriod, hourOfPeriod } from "./clock.js";
import { withGmt, type ZoneText, zoneBefore, zoneOffset, zoneWord } from "./zone.js";

/** A Takeout activity time read: `iso` in UTC (Date#toISOString); `unknownZone` set to the zone text when it was not recognised and the wall-clock time was read as UTC. */
export interface ActivityTime {
  iso: string;
  unknownZone?: string;
}

/** The time of a My Activity line such as "Nov 27, 2024, 10:00:00 AM PST"; undefined when the line is no date and time. */
export function activityTime(line: string): ActivityTime | undefined {
  const text = normalised(line);
  const clock = clockTime(text);
  if (!clock) return undefined;
  const { before, after, period } = withoutPeriod(text.slice(0, clock.start), text.slice(clock.end));
  const parts = before.trim() === "" ? dateAfter(after) : dateBefore(before, after);
  if (!parts) return undefined;
  const date = calendarDay(parts.date);
  const hour = period ? hourOfPeriod(clock.hour, period.pm) : clock.hour;
  if (!date || hour === undefined || hour > 23 || clock.minute > 59 || clock.second > 59) return undefined;
  return timeIn(date, { ...clock, hour }, parts.zone);
}

/**
 * The line as the readers below expect it: plain spaces, ASCII digits, no direction marks (Hebrew and
 * Arabic lines carry them), no brackets around the zone ("[GMT+1]", "(PST)"), GMT in a language's
 * own word as "GMT", and an offset written whole ("GMT -8", "GMT–8" as "GMT-8"), as languages that
 * Intl formats so write them.
 */
function normalised(line: string): string {
  const plain = asciiDigits(line)
    .replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[()[\]]/g, " ");
  return withGmt(plain)
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

/** The text before and after the time, without its AM or PM marker. */
function withoutPeriod(before: string, after: string): { before: string; after: string; period: DayPeriod | undefined } {
  const period = dayPeriodAround(before, after);
  if (period?.side === "after") return { before, after: after.slice(period.length), period };
  if (period?.side === "before") return { before: before.slice(0, before.length - period.length), after, period };
  return { before, after, period };
}

/** The date before the time, and the zone after it ("Nov 27, 2024, 10:00:00 AM PST") or between them (zh). */
function dateBefore(before: string, after: string): { date: string; zone: string } | undefined {
  const tail = after.replace(/^[\s,]+/, "").trimEnd();
  const zone: ZoneText | undefined = tail === "" ? (zoneBefore(before) ?? { text: "", side: "after" }) : zoneWord(tail);
  if (zone === undefined) return undefined;
  return { date: zone.side === "before" ? before.slice(0, before.length - zone.text.length) : before, zone: zone.text };
}

/** The date after the time and its zone, as Vietnamese writes it ("22:00:00 PST 27 thg 11, 2024"); a word there is a zone only when known. */
function dateAfter(after: string): { date: string; zone: string } {
  const tail = after.replace(/^[\s,]+/, "");
  const [first = "", ...rest] = tail.split(" ");
  const isZone = /\p{L}/u.test(first) && zoneOffset(first) !== undefined;
  return isZone ? { date: rest.join(" "), zone: first } : { date: tail, zone: "" };
}

function timeIn(date: CalendarDay, clock: ClockTime, zoneText: string): ActivityTime | undefined {
  const wallClock = Date.UTC(date.year, date.month - 1, date.day, clock.hour, clock.minute, clock.second);
  if (new Date(wallClock).getUTCDate() !== date.day) return undefined;
  const offset = zoneText === "" ? 0 : zoneOffset(zoneText);
  const iso = new Date(wallClock - (offset ?? 0) * 60_000).toISOString();
  return offset === undefined ? { iso, unknownZone: zoneText } : { iso };
}
