import { describe, expect, it } from "vitest";
import { chatgptConversation } from "../../src/importers/chatgpt/conversation.js";
import { isoFromTime } from "../../src/importers/json-values.js";
import { recordContext } from "./collect.js";

describe("times in exports (isoFromTime)", () => {
  it.each([
    [1712345678.123, "2024-04-05T19:34:38.123Z"], // ChatGPT: float seconds
    [1712345678, "2024-04-05T19:34:38.000Z"],
    [1712345678123, "2024-04-05T19:34:38.123Z"], // milliseconds
    ["1712345678.5", "2024-04-05T19:34:38.500Z"],
    ["2024-04-05T19:34:38Z", "2024-04-05T19:34:38.000Z"],
    [631152000, "1990-01-01T00:00:00.000Z"],
  ])("%s", (value, iso) => {
    expect(isoFromTime(value)).toBe(iso);
  });

  it.each([
    [1.5], // a version, a rating, a duration where a time belongs: not 1970
    ["1.5"],
    [0],
    [86_400],
    [-1712345678],
    [1e10], // seconds in the year 2286
    [5e10],
    [1712345678123456], // microseconds: no way to tell them from a wrong field, so no time
    ["0001-01-01T00:00:00Z"], // Go's and .NET's zero time, written for "none"
    ["1970-01-01T00:00:00Z"],
    ["2150-01-01T00:00:00Z"],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
  ])("no time: %s", (value) => {
    expect(isoFromTime(value)).toBeUndefined();
  });

  it("a date and time without a zone is UTC whatever the zone of the machine importing it", () => {
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      expect(isoFromTime("2024-05-01T12:30:00")).toBe("2024-05-01T12:30:00.000Z");
      expect(isoFromTime("2024-05-01 12:30:00.250")).toBe("2024-05-01T12:30:00.250Z");
      expect(isoFromTime("2024-05-01T12:30:00+02:00")).toBe("2024-05-01T10:30:00.000Z");
      expect(isoFromTime("2024-05-01")).toBe("2024-05-01T00:00:00.000Z"); // a date alone: UTC by Date.parse's own rule
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("a conversation whose create_time is no time takes its first message's, not 1970's", () => {
    const record = {
      id: "c1",
      title: "t",
      create_time: 1.5,
      update_time: 2,
      current_node: "m1",
      mapping: {
        m1: {
          id: "m1",
          message: { id: "m1", author: { role: "user" }, create_time: 1712345678.123, content: { content_type: "text", parts: ["hi"] } },
        },
      },
    };
    const conversation = chatgptConversation(record, recordContext())?.conversation;
    expect(conversation?.createdAt).toBe("2024-04-05T19:34:38.123Z");
    expect(conversation?.updatedAt).toBeUndefined();
  });
});
