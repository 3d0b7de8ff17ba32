import { describe, expect, it } from "vitest";
import { localTime, shortDate } from "../../src/text/local-time.js";
import { keepingDate, startsWithItsDate, withDate } from "../../src/text/memory-date.js";

describe("the one date convention for memories", () => {
  it("starts a memory with today's local date, unless it starts with a date already", () => {
    const now = new Date(2025, 2, 9, 23, 30); // 9 March, late evening where the machine is
    expect(withDate("My dog is called Biscuit", now)).toBe("2025-03-09 My dog is called Biscuit");
    expect(withDate("2024-12-25 Christmas at my mother's", now)).toBe("2024-12-25 Christmas at my mother's");
  });

  it("dates nothing that shows nothing, so that the store refuses it as empty rather than keep a bare date", () => {
    const now = new Date(2025, 2, 9, 12, 0);
    for (const blank of ["", "  ", "\u200b", "\n\u200f"]) {
      expect(withDate(blank, now)).toBe(blank);
      expect(keepingDate("2024-12-25 Christmas", blank)).toBe(blank);
    }
    expect(keepingDate("2024-12-25 Christmas", "Christmas at home")).toBe("2024-12-25 Christmas at home");
  });

  it("shows the date once: a text that starts with the day it was stored needs none beside it", () => {
    const stored = new Date(2025, 2, 9, 10, 0).toISOString();
    expect(startsWithItsDate("2025-03-09 Biscuit", stored)).toBe(true);
    expect(startsWithItsDate("Biscuit", stored)).toBe(false);
    // About another day: the day it was stored is news, and shown.
    expect(startsWithItsDate("2024-12-25 Christmas", stored)).toBe(false);
    // A client without the user's time zone writes the UTC day (spec §4.1).
    expect(startsWithItsDate(`${stored.slice(0, 10)} Biscuit`, stored)).toBe(true);
    expect(startsWithItsDate("2025-03-09 Biscuit", "not a time")).toBe(false);
  });
});

describe("a stored time on the user's clock", () => {
  it("reads the process's own zone without Intl and another zone with it, alike", () => {
    const times = ["2025-03-09T23:30:00Z", "2024-12-31T23:59:00Z", "2026-07-01T00:05:00Z"];
    for (const iso of times) {
      const own = localTime(new Date(iso), process.env["TZ"]);
      const format = new Intl.DateTimeFormat("sv-SE", { dateStyle: "short", timeStyle: "short" });
      expect(`${own.day} ${own.minute}`).toBe(format.format(new Date(iso)));
      expect(shortDate(iso, "Asia/Tokyo")).toBe(
        new Intl.DateTimeFormat("sv-SE", { dateStyle: "short", timeStyle: "short", timeZone: "Asia/Tokyo" }).format(new Date(iso)),
      );
    }
    expect(shortDate("2025-03-09", "Asia/Tokyo")).toBe("2025-03-09");
  });
});
