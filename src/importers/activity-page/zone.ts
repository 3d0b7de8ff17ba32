// The zone of a Takeout time line: a short name ("PST", "HNP", "JST"), an offset ("GMT-8", "UTC+1"),
// also in a language's own word for GMT ("Гринуич-8" bg, "−8 گرینویچ" fa), or none.
import { escapeRegExp } from "../../text/regexp.js";
import { LOCALES } from "./locales.js";

export interface ZoneText {
  /** The zone as written; "" when the line has none (old Takeouts wrote UTC without saying so). */
  text: string;
  side: "before" | "after";
}

// Languages that write times with dots write an offset's minutes after one too ("GMT+5.30": id, da, fi, sl).
const OFFSET_ZONE = /^(?:GMT|UTC)(?:([+-])(\d{1,2})(?:[:.]?(\d{2}))?)?$/;
const OFFSET_ZONE_AT_END = /(?<![\p{L}\p{M}])(?:GMT|UTC)[+-]\d{1,2}(?:[:.]?\d{2})?\s*$/u;
const CAPITALS_AT_END = /(?<![\p{L}\p{M}])\p{Lu}{2,6}\s*$/u;

/**
 * What follows the time as its zone: one short word; undefined when it is more (prompt text, not a time).
 * The length is checked first: the pattern backtracks over a long tail in quadratic time (a record
 * whose time line ran on for 300 KB held its page for minutes).
 */
export function zoneWord(tail: string): ZoneText | undefined {
  return tail.length <= 10 && /^\S*\p{L}\S*$/u.test(tail) ? { text: tail, side: "after" } : undefined;
}

/** A zone some languages (zh) write between the date and the time: an offset, or a name Intl knows. */
export function zoneBefore(before: string): ZoneText | undefined {
  const found = OFFSET_ZONE_AT_END.exec(before) ?? CAPITALS_AT_END.exec(before);
  if (!found) return undefined;
  const text = found[0].trim();
  return zoneOffset(text) !== undefined ? { text: found[0], side: "before" } : undefined;
}

/** Minutes east of UTC of a zone as Takeout writes it; undefined when it is not known. */
export function zoneOffset(zone: string): number | undefined {
  const text = zone.trim();
  if (text === "Z") return 0;
  const offset = OFFSET_ZONE.exec(text);
  if (!offset) return ABBREVIATIONS_INTL_LACKS[text] ?? shortZoneOffset(text);
  const [, sign = "+", hours = "0", minutes = "0"] = offset;
  return (sign === "-" ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

// Common names that Takeout may write and no language of Intl (CLDR 48) gives a zone, so they
// cannot be listed from it; in minutes east of UTC. None of these places keeps summer time
// (Moscow since 2014, Turkey since 2016).
const ABBREVIATIONS_INTL_LACKS: Record<string, number> = {
  MSK: 180,
  HKT: 480,
  KST: 540,
  PHT: 480,
  ICT: 420,
  PKT: 300,
  NPT: 345,
  TRT: 180,
};

// --- GMT in a language's own word

let localGmt: { before: RegExp; after: RegExp; alone: RegExp } | undefined;

/** The line with a language's own word for GMT, before or after its offset, written "GMT". */
export function withGmt(text: string): string {
  const { before, after, alone } = localGmtPatterns();
  return text.replace(before, "GMT$1").replace(after, "GMT$1").replace(alone, "GMT");
}

function localGmtPatterns(): NonNullable<typeof localGmt> {
  if (localGmt) return localGmt;
  const words =
    [...new Set(LOCALES.map(gmtWord))]
      .filter((word) => word !== "" && !/^(?:GMT|UTC)$/.test(word))
      .map(escapeRegExp)
      .join("|") || "(?!)";
  const offset = "([+\\u2212\\u2013-] ?\\d{1,2}(?::?\\d{2})?)";
  const notLetter = (side: "<" | "") => `(?${side}![\\p{L}\\p{M}])`;
  localGmt = {
    before: new RegExp(`${notLetter("<")}(?:${words}) ?${offset}`, "gu"),
    after: new RegExp(`${offset} ?(?:${words})${notLetter("")}`, "gu"),
    alone: new RegExp(`${notLetter("<")}(?:${words})${notLetter("")}`, "gu"),
  };
  return localGmt;
}

/** A locale's word for GMT: its name of the zone 8 hours west of it, without the offset. */
function gmtWord(locale: string): string {
  const format = new Intl.DateTimeFormat(locale, { timeZone: "Etc/GMT+8", timeZoneName: "shortOffset" });
  const name = format.formatToParts(Date.UTC(2025, 0, 1)).find((part) => part.type === "timeZoneName")?.value ?? "";
  return name
    .replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069[\]()]/g, "")
    .replace(/[+\u2212\u2013-]\s*\p{Nd}+/u, "")
    .trim();
}

// --- short names

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
