// The times of Google Takeout's My Activity HTML page, in the languages met in the wild, read by
// activityTime alone (src/importers/activity-page/time.ts).
import { describe, expect, it } from "vitest";
import { activityTime } from "../../src/importers/activity-page/time.js";

const iso = (line: string) => activityTime(line)?.iso;

describe("activityTime reads a My Activity time", () => {
  it.each([
    ["Nov 27, 2024, 10:00:00 AM PST", "2024-11-27T18:00:00.000Z"],
    ["Jul 3, 2026, 9:15:00 AM CEST", "2026-07-03T07:15:00.000Z"],
    ["May 19, 2026, 7:07:02\u202fPM GMT-03:00", "2026-05-19T22:07:02.000Z"],
    ["18 Sept 2025, 12:02:52 CET", "2025-09-18T11:02:52.000Z"],
    ["Jan 25, 2019, 8:23:48 AM GMT", "2019-01-25T08:23:48.000Z"],
    ["10 de mai. de 2026, 03:46:09 BRT", "2026-05-10T06:46:09.000Z"],
    ["1. 1. 2026 10:00:00 SEČ", "2026-01-01T09:00:00.000Z"],
    ["10.03.2025, 09:30:00 MEZ", "2025-03-10T08:30:00.000Z"],
    ["4 juli 2026 09:15:00 CEST", "2026-07-04T07:15:00.000Z"],
    ["2026年6月19日 12:23:08 JST", "2026-06-19T03:23:08.000Z"],
    ["2024/11/27 10:00:00 JST", "2024-11-27T01:00:00.000Z"],
    ["2024. 11. 27. 오후 3:00:00 GMT+9", "2024-11-27T06:00:00.000Z"],
    ["2024. 11. 27. 오전 3:00:00 GMT+9", "2024-11-26T18:00:00.000Z"],
    ["27 nov. 2024, 10:00:00 UTC+1", "2024-11-27T09:00:00.000Z"],
    ["27.11.2024 klo 10.00.00 UTC+2", "2024-11-27T08:00:00.000Z"],
    ["2024年11月27日 GMT+8 下午3:00:00", "2024-11-27T07:00:00.000Z"],
    ["2024年11月27日 GMT+8 上午3:00:00", "2024-11-26T19:00:00.000Z"],
  ])("%s", (line, expected) => {
    expect(activityTime(line)).toEqual({ iso: expected });
  });

  it.each([
    ["27. nov. 2024, 07:04:05 GMT -8", "sl: a spaced offset"],
    ["27. nov 2024, 07:04:05 GMT \u22128", "et: a spaced typographic minus"],
    ["2024年11月27日 清晨7:04:05 [PST]", "zh-TW: the zone in brackets"],
    ["2024(e)ko aza. 27(a) (07:04:05 (PST))", "eu: the time and zone in brackets"],
    ["27 \u05d1\u05e0\u05d5\u05d1\u05f3 2024, 7:04:05 GMT-8\u200e", "he: a month after its preposition, a direction mark"],
    ["27 \u0928\u0935\u0970 2024, 7:04:05 am GMT-8", "hi: a month with its abbreviation mark"],
    ["\u09e8\u09ed \u09a8\u09ad\u09c7, \u09e8\u09e6\u09e8\u09ea, \u09ed:\u09e6\u09ea:\u09e6\u09eb AM GMT -\u09ee", "bn: Bengali digits"],
    [
      "\u0968\u096d \u0928\u094b\u0935\u094d\u0939\u0947\u0902, \u0968\u0966\u0968\u096a, \u096d:\u0966\u096a:\u0966\u096b AM [GMT]-\u096e",
      "mr: Devanagari digits, GMT in brackets",
    ],
  ])("reads %s (%s), as Intl writes it", (line) => {
    expect(iso(line)).toBe("2024-11-27T15:04:05.000Z");
  });

  it.each([
    ["2024. 11. 27. \uc624\ud6c4 10\uc2dc 0\ubd84 0\ucd08 GMT-8", "ko: a time in words after its PM marker"],
    ["2024. 11. 27. PM 10\uc2dc 0\ubd84 0\ucd08 GMT-8", "ko, as Node 20 writes it"],
    [
      "27 \u0e1e.\u0e22. 2567 22 \u0e19\u0e32\u0e2c\u0e34\u0e01\u0e32 00 \u0e19\u0e32\u0e17\u0e35 00 \u0e27\u0e34\u0e19\u0e32\u0e17\u0e35 GMT-8",
      "th: a time in words",
    ],
    ["27 nov. 2024, 22 h 00 min 00 s HNP", "fr-CA: a time in words, a zone name of its own"],
    ["27 nov. 2024, 22 h 00 HNP", "fr-CA: without seconds"],
    ["22:00:00 PST 27 thg 11, 2024", "vi: the time before the date"],
    ["27.11.2024 \u0433., 22:00:00 \u0447. \u0413\u0440\u0438\u043d\u0443\u0438\u0447-8", "bg: the word for hour, GMT in Bulgarian"],
    [
      "\u06f7 \u0622\u0630\u0631 \u06f1\u06f4\u06f0\u06f3\u060c \u06f2\u06f2:\u06f0\u06f0:\u06f0\u06f0 (\u200e\u2212\u06f8 \u06af\u0631\u06cc\u0646\u0648\u06cc\u0686)",
      "fa: the Persian calendar, GMT in Persian after its offset",
    ],
    ["27\u200f/11\u200f/2024\u060c 10:00:00 \u0645 \u063a\u0631\u064a\u0646\u062a\u0634-8", "ar: GMT in Arabic"],
    ["2024\u5e7411\u670827\u65e5 \u665a\u4e0a10:00:00 [PST]", "zh-TW: in the evening, not PM"],
  ])("reads %s (%s) as 10 PM in California", (line) => {
    expect(activityTime(line)).toEqual({ iso: "2024-11-28T06:00:00.000Z" });
  });

  it("reads a Korean date in words, and a time without a zone as UTC", () => {
    expect(activityTime("2024\ub144 11\uc6d4 27\uc77c \uc624\ud6c4 10\uc2dc 0\ubd84 0\ucd08")).toEqual({
      iso: "2024-11-27T22:00:00.000Z",
    });
  });

  it("reads Persian dates through Intl's Persian calendar, and refuses a day its month has not", () => {
    const persian = (date: string) => iso(`${date}\u060c 12:00:00 GMT`);
    expect(persian("1 \u0641\u0631\u0648\u0631\u062f\u06cc\u0646 1404")).toBe("2025-03-21T12:00:00.000Z");
    expect(persian("30 \u0622\u0630\u0631 1403")).toBe("2024-12-20T12:00:00.000Z");
    expect(persian("1 \u062f\u06cc 1403")).toBe("2024-12-21T12:00:00.000Z");
    expect(persian("31 \u0622\u0630\u0631 1403")).toBeUndefined();
  });

  it("reads GMT in a language's own word with an offset's minutes, or alone", () => {
    expect(iso("27.11.2024 \u0433., 10:00:00 \u0447. \u0413\u0440\u0438\u043d\u0443\u0438\u0447+5:30")).toBe("2024-11-27T04:30:00.000Z");
    expect(iso("27.11.2024 \u0433., 10:00:00 \u0447. \u0413\u0440\u0438\u043d\u0443\u0438\u0447")).toBe("2024-11-27T10:00:00.000Z");
  });

  it("reads an offset's minutes after a dot, and takes no offset's minutes for the time of day", () => {
    expect(iso("1.1.2025 klo 5.45.00 UTC+5.45")).toBe("2025-01-01T00:00:00.000Z");
    expect(iso("1 Jan 2025, 05.45.00 GMT+5.45")).toBe("2025-01-01T00:00:00.000Z");
    expect(iso("2025\u5e741\u67081\u65e5 GMT+5:45 05:45:00")).toBe("2025-01-01T00:00:00.000Z");
    expect(iso("1 janv. 2025, 05 h 45 min 00 s UTC+5:45")).toBe("2025-01-01T00:00:00.000Z");
  });

  it("reads a month by the name medium dates give it: Croatian 'srp' is July, though Czech's August", () => {
    expect(iso("3. srp 2025. 14:00:01 CEST")).toBe("2025-07-03T12:00:01.000Z");
  });

  it.each([
    ["MSK", "2024-11-27T07:00:00.000Z"],
    ["HKT", "2024-11-27T02:00:00.000Z"],
    ["KST", "2024-11-27T01:00:00.000Z"],
    ["PHT", "2024-11-27T02:00:00.000Z"],
    ["ICT", "2024-11-27T03:00:00.000Z"],
    ["PKT", "2024-11-27T05:00:00.000Z"],
    ["NPT", "2024-11-27T04:15:00.000Z"],
    ["TRT", "2024-11-27T07:00:00.000Z"],
  ])("reads %s, a zone name no language of Intl gives", (zone, expected) => {
    expect(activityTime(`Nov 27, 2024, 10:00:00 AM ${zone}`)).toEqual({ iso: expected });
  });

  it.each([
    ["SGT", "2024-11-27T02:00:00.000Z"],
    ["WIB", "2024-11-27T03:00:00.000Z"],
    ["WITA", "2024-11-27T02:00:00.000Z"],
    ["WIT", "2024-11-27T01:00:00.000Z"],
  ])("reads %s, a zone name Intl gives in Malay and Indonesian", (zone, expected) => {
    expect(activityTime(`Nov 27, 2024, 10:00:00 AM ${zone}`)).toEqual({ iso: expected });
  });

  it("takes IST as India's: en-IN names it before en-IE (Irish summer time) in LOCALES, and Intl writes Israel's GMT+2", () => {
    expect(iso("Nov 27, 2024, 10:00:00 AM IST")).toBe("2024-11-27T04:30:00.000Z");
  });

  it("reads a time with no zone, as old Takeouts wrote it, as UTC: the zone is not unknown but absent", () => {
    expect(activityTime("Jun 23, 2015, 2:43:45 PM")).toEqual({ iso: "2015-06-23T14:43:45.000Z" });
  });

  it("reads offsets with minutes, a typographic minus and bare UTC or Z", () => {
    expect(iso("Nov 27, 2024, 10:00:00 AM GMT+5:30")).toBe("2024-11-27T04:30:00.000Z");
    expect(iso("Nov 27, 2024, 10:00:00 AM GMT\u221203:00")).toBe("2024-11-27T13:00:00.000Z");
    expect(iso("Nov 27, 2024, 10:00:00 AM UTC")).toBe("2024-11-27T10:00:00.000Z");
    expect(iso("Nov 27, 2024, 10:00:00 AM Z")).toBe("2024-11-27T10:00:00.000Z");
  });

  it("reads a name's offset from the name, so summer time moves the time by the hour the name says", () => {
    expect(iso("Jul 3, 2026, 9:15:00 AM CEST")).toBe("2026-07-03T07:15:00.000Z");
    expect(iso("Jan 3, 2026, 9:15:00 AM CET")).toBe("2026-01-03T08:15:00.000Z");
    expect(iso("Jul 3, 2026, 9:15:00 AM PDT")).toBe("2026-07-03T16:15:00.000Z");
  });

  it("takes a name two places share as en-US writes it: CST is US Central", () => {
    expect(iso("Nov 27, 2024, 10:00:00 AM CST")).toBe("2024-11-27T16:00:00.000Z");
  });

  it("reads 12 AM as midnight and 12 PM as noon, and refuses an hour past 12 with AM or PM", () => {
    expect(iso("Nov 27, 2024, 12:00:00 AM GMT")).toBe("2024-11-27T00:00:00.000Z");
    expect(iso("Nov 27, 2024, 12:30:00 PM GMT")).toBe("2024-11-27T12:30:00.000Z");
    expect(iso("Nov 27, 2024, 11:59:59 PM GMT")).toBe("2024-11-27T23:59:59.000Z");
    expect(activityTime("Nov 27, 2024, 13:00:00 PM GMT")).toBeUndefined();
  });

  it("reads other languages' day periods, with or without their dots", () => {
    expect(iso("27 de nov. de 2024, 10:00:00 p. m. GMT-6")).toBe("2024-11-28T04:00:00.000Z");
    expect(iso("27 de nov. de 2024, 10:00:00 pm GMT-6")).toBe("2024-11-28T04:00:00.000Z");
    expect(iso("2024/11/27 午後3:00:00 JST")).toBe("2024-11-27T06:00:00.000Z");
  });

  it("reads numeric dates month first when only that order makes a date (en-US)", () => {
    expect(iso("11/27/2024, 10:00:00 AM EST")).toBe("2024-11-27T15:00:00.000Z");
    expect(iso("03/11/2024, 10:00:00 GMT")).toBe("2024-11-03T10:00:00.000Z");
  });

  it("reads a Buddhist-era year as the Gregorian year 543 before", () => {
    expect(iso("27 พ.ย. 2567 10:00:00 GMT+7")).toBe("2024-11-27T03:00:00.000Z");
  });

  it("reads an unrecognised zone name as UTC and says so", () => {
    expect(activityTime("Nov 27, 2024, 10:00:00 AM XYZT")).toEqual({
      iso: "2024-11-27T10:00:00.000Z",
      unknownZone: "XYZT",
    });
    expect(activityTime("Nov 28, 2024, 10:00:00 AM XYZT")).toEqual({
      iso: "2024-11-28T10:00:00.000Z",
      unknownZone: "XYZT",
    });
  });

  it.each([
    "Prompted what is 10:30?",
    "Attached 1 file.",
    "",
    "meet at 10:30",
    "Prompted meet on 27.11.2024 at 10:30",
    "Nov 27, 2024",
    "Feb 30, 2025, 10:00:00 AM GMT",
    "13/13/2025 10:00:00 GMT",
    "Nov 27, 2024, 25:00:00 GMT",
    "Nov 27, 2024, 10:00:00 AM and then some",
    "Prompted plan for 2024: 10 h 30 min of reading",
    "10:30 PST meeting on Nov 27, 2024",
    "2024\ub144 \ud68c\uc758\ub294 \uc624\ud6c4 3\uc2dc 30\ubd84\uc5d0 \uc2dc\uc791\ud569\ub2c8\ub2e4",
  ])("refuses %j, no date and time", (line) => {
    expect(activityTime(line)).toBeUndefined();
  });
});

// Intl's own medium date and long time, as Takeout writes its times, read back in 60 languages at
// five moments: before times in words, the date after the time, the Persian calendar, GMT in a
// language's own word and offsets with minutes were read, 54 were read at the first, 46 at all five.
const LANGUAGES = `
  en-US en-GB en-IN en-CA en-AU ja de pt-BR es cs sk hi id ms fr-CA pt-PT it nl sv da nb pl hu ro hr sr
  bg el lv ca eu gl ar fa mr bn ta te vi af zh-TW zh-HK fr es-419 es-MX fi is sl ru uk tr lt et he ur th
  fil sw ko zh-CN
`
  .trim()
  .split(/\s+/);
const MOMENTS: [string, number][] = [
  ["America/Los_Angeles", Date.UTC(2024, 10, 27, 15, 4, 5)],
  ["America/Los_Angeles", Date.UTC(2024, 10, 28, 6, 0, 0)],
  ["Europe/Berlin", Date.UTC(2025, 6, 3, 12, 0, 1)],
  ["Asia/Kolkata", Date.UTC(2025, 6, 3, 18, 45, 0)],
  ["Asia/Kathmandu", Date.UTC(2025, 0, 1, 0, 0, 0)],
];

describe("activityTime reads Intl's own times, as Takeout writes them", () => {
  it("in all 60 languages", () => {
    expect(LANGUAGES).toHaveLength(60);
    const unread = LANGUAGES.flatMap((locale) =>
      MOMENTS.flatMap(([timeZone, moment]) => {
        const line = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "long", timeZone }).format(moment);
        return activityTime(line)?.iso === new Date(moment).toISOString() ? [] : [`${locale}: ${line}`];
      }),
    );
    expect(unread).toEqual([]);
  });
});
