import { expect, it } from "vitest";
import { dateBound, dateOptions } from "../../src/cli/date-bound.js";

it("reads a month or a year as all of it, and passes any other value on for the API to check", () => {
  expect(dateOptions({ from: "2024-03", to: "2024-03" })).toEqual({ dateFrom: "2024-03-01", dateTo: "2024-03-31" });
  expect(dateBound("2024-02", "to")).toBe("2024-02-29");
  expect(dateBound("2023-02", "to")).toBe("2023-02-28");
  expect(dateBound("2024-12", "to")).toBe("2024-12-31");
  expect(dateOptions({ from: "2024", to: "2025" })).toEqual({ dateFrom: "2024-01-01", dateTo: "2025-12-31" });
  for (const value of ["2024-03-15", "2024-03-15T10:00:00Z", "2024-13", "March", ""]) expect(dateBound(value, "from")).toBe(value);
  expect(dateOptions({})).toEqual({});
});
