// Times as Markdown transcripts write them: ISO 8601 (`<time datetime="…">`, front matter), or a
// browser's `toLocaleString()` in English ("Jun 1, 2025, 10:00 AM", "6/1/2025, 10:00:00 AM").
// V8's Date.parse reads "Claude 3.5" as 2001-03-05, so a time that is not ISO is taken only when it
// holds a four-digit year, a month (by name or as d/m/y digits) and no other words.
import { plausibleIso } from "../json-values.js";

/** An ISO date, its time optional, its zone optional: `2025-06-01`, `2025-06-01 10:00`, `2025-06-01T10:00:00.123Z`. */
const ISO = /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?/i;
const YEAR = /\b(?:19|20)\d{2}\b/;
const MONTH = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?/gi;
const WEEKDAY = /\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?/gi;
const NUMERIC_DATE = /\b\d{1,2}[/.]\d{1,2}[/.](?:19|20)\d{2}\b/;
/** Words a locale's date may hold besides its month and weekday. */
const DATE_WORDS = /\b(?:am|pm|a\.m\.|p\.m\.|at|utc|gmt|z)\b/gi;

/**
 * The time `text` holds as a whole (ignoring spaces and the punctuation around it), as ISO 8601
 * UTC; undefined when it is not only a time. A time without a zone is read as UTC (ISO) or in this
 * machine's zone (a browser's locale string, written on the user's own machine).
 */
export function timeOf(text: string): string | undefined {
  const trimmed = text.trim();
  const iso = ISO.exec(trimmed);
  if (iso && iso.index === 0 && iso[0].length === trimmed.length) return isoTime(iso);
  return localeTime(trimmed);
}

/** The first ISO time anywhere in `text` (a heading's "User — 2025-06-01 10:00"). */
export function isoTimeIn(text: string): string | undefined {
  const iso = ISO.exec(text);
  return iso ? isoTime(iso) : undefined;
}

function isoTime(match: RegExpExecArray): string | undefined {
  const [, year, month, day, hour = "0", minute = "00", second = "00", fraction = "", zone = "Z"] = match;
  const offset = /^(?:Z|UTC|GMT)$/i.test(zone) ? "Z" : zone.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const text = `${year}-${month}-${day}T${hour.padStart(2, "0")}:${minute}:${second}${fraction}${offset}`;
  return plausibleIso(Date.parse(text));
}

function localeTime(text: string): string | undefined {
  if (!YEAR.test(text) || !(text.search(MONTH) !== -1 || NUMERIC_DATE.test(text))) return undefined;
  const words = text.replace(MONTH, " ").replace(WEEKDAY, " ").replace(DATE_WORDS, " ");
  if (/\p{L}/u.test(words)) return undefined;
  return plausibleIso(Date.parse(text));
}
