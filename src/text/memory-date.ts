import { localTime } from "./local-time.js";
import { hasVisibleText } from "./visible.js";

/**
 * The one date convention for memories, on every face: a memory's text starts with the day it was
 * told, `YYYY-MM-DD ` in the user's time zone, as the spec asks clients to write it (§4.1) — the date
 * is then in the text wherever a memory goes: the legacy API's plain strings, a plugin's prompt,
 * an export. The faces that take a memory from a person (`mnemo remember`, the web's Add) put it
 * there unless the text starts with a date already; the MCP tool asks the agent to; the API stores
 * what it is sent. And every face shows the date once: beside the text only when the text does not
 * start with the day it was stored.
 */

const LEADING_DATE = /^(\d{4}-\d{2}-\d{2})\b/;

/**
 * A time's day as YYYY-MM-DD in `timeZone` (the CLI's run's $TZ), or in this machine's when that is
 * undefined (a server's is its user's).
 */
export function localDay(time: Date, timeZone?: string): string {
  return localTime(time, timeZone).day;
}

/**
 * The text with today's date before it, unless it starts with a date already. Text that shows
 * nothing stays as it is, for the store to refuse as empty: dated, it passed as a memory that
 * said only the day (`mnemo memories edit <id> ""` replaced a memory with "2026-11-28").
 */
export function withDate(text: string, now = new Date(), timeZone?: string): string {
  return LEADING_DATE.test(text) || !hasVisibleText(text) ? text : `${localDay(now, timeZone)} ${text}`;
}

/** New text for a memory that keeps the day the old text started with, unless the new one starts with a date (or shows nothing, as above). */
export function keepingDate(previous: string, text: string): string {
  const day = LEADING_DATE.exec(previous)?.[1];
  return day && !LEADING_DATE.test(text) && hasVisibleText(text) ? `${day} ${text}` : text;
}

/**
 * Whether the text starts with the day it was stored (`createdAt`, local or UTC, as a client without
 * the user's time zone writes it): its date is then shown by the text, and not again beside it.
 */
export function startsWithItsDate(text: string, createdAt: string, timeZone?: string): boolean {
  const day = LEADING_DATE.exec(text)?.[1];
  const created = new Date(createdAt);
  if (!day || Number.isNaN(created.getTime())) return false;
  return day === localDay(created, timeZone) || day === createdAt.slice(0, 10);
}
