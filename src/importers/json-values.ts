// Safe readers for untyped JSON values (exports are data from elsewhere: trust nothing).

import { MAX_TITLE_CHARS } from "../schemas/limits.js";
import { cutText } from "../text/cut-text.js";
import { smallText } from "./source.js";
import type { RecordContext } from "./types.js";

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value if it is a string, else undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The value if it is a string with non-whitespace content, else undefined. */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The value if it is an array, else an empty array. */
export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * A time as exports write it, to an ISO 8601 UTC string: Unix seconds (possibly fractional, as
 * ChatGPT writes them), Unix milliseconds (a number too large to be seconds), either as a numeric
 * string, or a date-time string (as Claude and Takeout write them). Undefined when absent, invalid
 * or not a plausible time of a chat (see plausibleIso): a 1.5 or a 0 where a time belongs is no time.
 */
export function isoFromTime(value: unknown): string | undefined {
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "") return undefined;
    if (NUMERIC.test(text)) return isoFromNumber(Number(text));
    return plausibleIso(Date.parse(ZONELESS.test(text) ? `${text.replace(" ", "T")}Z` : text));
  }
  return typeof value === "number" ? isoFromNumber(value) : undefined;
}

/**
 * A date and time without a zone (`2024-05-01T12:30:00`, Python's naive `isoformat()`, SQL's
 * `2024-05-01 12:30:00`): read as UTC, as Markdown times are, not in the zone of the machine that
 * imports it (Date.parse's rule), which would give one export other times on another machine.
 */
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

const NUMERIC = /^\d+(?:\.\d+)?$/;
/**
 * 10^11 seconds is the year 5138; as milliseconds it is 1973: larger numbers are milliseconds. A
 * number is read one way only: seconds that are no plausible time are not tried as milliseconds
 * (nor the reverse), so a count or a duration in a time's place is never a date.
 */
const MILLISECONDS_FROM = 1e11;

function isoFromNumber(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  return plausibleIso(Math.round(value >= MILLISECONDS_FROM ? value : value * 1000));
}

/**
 * The times a chat can have been written at: from 1990, before any app an export comes from (and
 * after the zero times programs write for "none": 0, 1970, 0001-01-01), to 2100. In seconds that is
 * 631,152,000 to 4,102,444,800; in milliseconds 6.3e11 to 4.1e12.
 */
const EARLIEST_MILLIS = Date.UTC(1990, 0, 1);
const LATEST_MILLIS = Date.UTC(2100, 0, 1);

/** Milliseconds since 1970 as ISO 8601 UTC; undefined when NaN or not a plausible time of a chat. */
export function plausibleIso(millis: number): string | undefined {
  if (Number.isNaN(millis) || millis < EARLIEST_MILLIS || millis >= LATEST_MILLIS) return undefined;
  return new Date(millis).toISOString();
}

/** The earliest of some ISO 8601 UTC strings (they sort lexically); undefined if none. */
export function earliestIso(values: Array<string | undefined>): string | undefined {
  let earliest: string | undefined;
  for (const value of values) {
    if (value !== undefined && (earliest === undefined || value < earliest)) earliest = value;
  }
  return earliest;
}

/** An export's title, trimmed and cut to what an upload takes; "Untitled" when it has none. */
export function titleFrom(value: unknown): string {
  const title = nonEmptyString(value)?.trim();
  return title ? cutText(title, MAX_TITLE_CHARS) : "Untitled";
}

/** The JSON object a text holds (a database's JSON column, a value kept as text); undefined for any other text or value. */
export function jsonObjectIn(text: unknown): JsonObject | undefined {
  const value = jsonIn(text);
  return isObject(value) ? value : undefined;
}

/** The JSON array a text holds (a database's column of a list as JSON, Crush's message parts); undefined for any other text or value. */
export function jsonArrayIn(text: unknown): unknown[] | undefined {
  const value = jsonIn(text);
  return Array.isArray(value) ? value : undefined;
}

/**
 * The JSON object in a small file beside the record's file (RecordContext.sibling: a session's state
 * or manifest); undefined when there is none, it is over `maxBytes` or holds no object. One that cannot
 * be read or parsed is counted as `unreadable` says.
 */
export async function jsonObjectBeside(
  context: Pick<RecordContext, "sibling" | "skip">,
  name: string,
  maxBytes: number,
  unreadable: string,
): Promise<JsonObject | undefined> {
  const source = await context.sibling?.(name);
  if (source === undefined) return undefined;
  try {
    const text = await smallText(source, maxBytes);
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    context.skip(unreadable);
    return undefined;
  }
}

function jsonIn(text: unknown): unknown {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
