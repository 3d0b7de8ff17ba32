// Safe readers for untyped JSON values (exports are data from elsewhere: trust nothing).

import { MAX_TITLE_CHARS } from "../schemas/chat-history.js";
import { cutText } from "../text/cut-text.js";

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
 * string, or a date-time string (as Claude and Takeout write them). Undefined when absent or invalid.
 */
export function isoFromTime(value: unknown): string | undefined {
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "") return undefined;
    return NUMERIC.test(text) ? isoFromNumber(Number(text)) : isoFromMillis(Date.parse(text));
  }
  return typeof value === "number" ? isoFromNumber(value) : undefined;
}

const NUMERIC = /^\d+(?:\.\d+)?$/;
/** 10^11 seconds is the year 5138; as milliseconds it is 1973: larger numbers are milliseconds. */
const MILLISECONDS_FROM = 1e11;

function isoFromNumber(value: number): string | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  return isoFromMillis(Math.round(value >= MILLISECONDS_FROM ? value : value * 1000));
}

/** Undefined past the year 9999 or before year 0 too: ISO writes those years in six digits, which no upload takes. */
function isoFromMillis(millis: number): string | undefined {
  const date = new Date(millis);
  if (Number.isNaN(date.getTime())) return undefined;
  const iso = date.toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined;
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
