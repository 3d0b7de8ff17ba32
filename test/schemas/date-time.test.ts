import { expect, it } from "vitest";
import { DateTime } from "../../src/schemas/common.js";

it("takes a date-time as clients write it: RFC 3339, a time without seconds, an offset without its colon", () => {
  expect(DateTime.parse("2024-03-01T09:00:00Z")).toBe("2024-03-01T09:00:00Z");
  expect(DateTime.parse("2024-03-01T09:00Z")).toBe("2024-03-01T09:00:00Z");
  expect(DateTime.parse("2024-03-01T09:00:00+0200")).toBe("2024-03-01T09:00:00+02:00"); // Python's %z
  expect(DateTime.parse("2024-03-01T09:00:00.123-0530")).toBe("2024-03-01T09:00:00.123-05:30");
  expect(DateTime.parse("2024-03-01T09:00+0200")).toBe("2024-03-01T09:00:00+02:00");
  for (const wrong of ["2024-03-01T09:00:00+2", "2024-03-01T09:00:00+02000", "2024-03-01 09:00:00+0200x", "2024-03-01T25:00:00+0200"]) {
    expect(DateTime.safeParse(wrong).success, wrong).toBe(false);
  }
});
