import { expect, it } from "vitest";
import { dateBound, dateOptions } from "../../src/cli/date-bound.js";

it("reads a month or a year as all of it, and passes a day or a date-time on for the API to check", () => {
  expect(dateOptions({ from: "2024-03", to: "2024-03" }, "UTC")).toEqual({
    dateFrom: "2024-03-01T00:00:00.000Z",
    dateTo: "2024-03-31T23:59:59.999Z",
  });
  expect(dateBound("2024-02", "to")).toBe("2024-02-29");
  expect(dateBound("2023-02", "to")).toBe("2023-02-28");
  expect(dateBound("2024-12", "to")).toBe("2024-12-31");
  expect(dateOptions({ from: "2024", to: "2025" }, "UTC")).toEqual({
    dateFrom: "2024-01-01T00:00:00.000Z",
    dateTo: "2025-12-31T23:59:59.999Z",
  });
  for (const value of ["2024-03-15", "2024-03-15T10:00:00Z", "2024-03-15T25:00"]) expect(dateBound(value, "from")).toBe(value);
  expect(dateOptions({}, "UTC")).toEqual({});
  expect(dateOptions({ from: "2024-03-15T10:00:00+02:00" }, "Pacific/Auckland")).toEqual({ dateFrom: "2024-03-15T10:00:00+02:00" });
});

it("bounds a day on the user's clock, the one the CLI shows times on, across a change to or from summer time", () => {
  expect(dateOptions({ from: "2024-07-12", to: "2024-07-12" }, "Pacific/Auckland")).toEqual({
    dateFrom: "2024-07-11T12:00:00.000Z",
    dateTo: "2024-07-12T11:59:59.999Z",
  });
  // New York's clocks went forward at 02:00 on 2024-03-10: that day was 23 hours long.
  expect(dateOptions({ from: "2024-03-10", to: "2024-03-10" }, "America/New_York")).toEqual({
    dateFrom: "2024-03-10T05:00:00.000Z",
    dateTo: "2024-03-11T03:59:59.999Z",
  });
  expect(dateOptions({ from: "2024-03", to: "2024-03" }, "Asia/Kolkata")).toEqual({
    dateFrom: "2024-02-29T18:30:00.000Z",
    dateTo: "2024-03-31T18:29:59.999Z",
  });
  // The calendar's ends: no invalid time, no year read as 19xx.
  expect(dateOptions({ from: "0050-01-01", to: "9999-12-31" }, "Pacific/Auckland")).toEqual({
    dateFrom: "0049-12-31T12:21:00.000Z", // local mean time then, to the minute
    dateTo: "9999-12-31T10:59:59.999Z",
  });
  // A time of day without a zone is on that clock too, as the times the CLI shows are; one with its zone is as it says.
  expect(dateOptions({ from: "2024-07-12T09:00", to: "2024-07-12T17:30:15.5" }, "Pacific/Auckland")).toEqual({
    dateFrom: "2024-07-11T21:00:00.000Z",
    dateTo: "2024-07-12T05:30:15.500Z",
  });
  expect(dateOptions({ from: "2024-03-10T03:30" }, "America/New_York")).toEqual({ dateFrom: "2024-03-10T07:30:00.000Z" });
  expect(dateOptions({ from: "2024-07-12T09:00Z" }, "Pacific/Auckland")).toEqual({ dateFrom: "2024-07-12T09:00Z" });
  expect(() => dateOptions({ from: "2024-05-31", to: "2024-05-01" }, "Pacific/Auckland")).toThrow(
    "dateFrom: 2024-05-31 is after the range's end, 2024-05-01",
  );
});

it("refuses what is no date, naming every form --from and --to take, the month and the year too", () => {
  for (const value of ["2024-13", "2025-02-30", "2025-13-45", "March", "", "15/03/2024"]) {
    expect(() => dateBound(value, "to"), value).toThrow(
      "dateTo: must be an ISO 8601 date (2024-03-15), a month (2024-03), a year (2024) or a date-time (2024-03-15T09:00+02:00)",
    );
  }
});
