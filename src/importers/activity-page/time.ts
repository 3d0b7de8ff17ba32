// The times Google Takeout writes in its My Activity HTML page: a date and time in the account's
// language ("Nov 27, 2024, 10:00:00 AM PST", "10 de mai. de 2026, 03:46:09 BRT", "2026年6月19日
// 12:23:08 JST") with a short zone name. Google formats them with CLDR, the data Node's Intl
// carries, so month names, AM/PM markers and zone names are read from Intl rather than from
// tables kept by hand: a language Intl knows is read without a change here.
import { type CalendarDay, calendarDay } from "./calendar.js";
import { type ClockTime, clockTime, dayPeriodAround, hourOfPeriod } from "./clock.js";
import { withGmt, zoneBefore, zoneOffset, zoneWord } from "./zone.js";

/** A Takeout activity time read: `iso` in UTC (Date#toISOString); `unknownZone` set to the zone text when it was not recognised and the wall-clock time was read as UTC. */
export interface ActivityTime {
  iso: string;
  /** The day as written, in the account's time zone (YYYY-MM-DD). */
  day: string;
  unknownZone?: string;
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

function timeIn(date: CalendarDay, clock: ClockTime, zoneText: string): ActivityTime | undefined {
  const wallClock = Date.UTC(date.year, date.month - 1, date.day, clock.hour, clock.minute, clock.second);
  if (new Date(wallClock).getUTCDate() !== date.day) return undefined;
  const offset = zoneText === "" ? 0 : zoneOffset(zoneText);
  const iso = new Date(wallClock - (offset ?? 0) * 60_000).toISOString();
  const day = new Date(wallClock).toISOString().slice(0, 10);
  return offset === undefined ? { iso, day, unknownZone: zoneText } : { iso, day };
}
