import { z } from "zod";
import { describe, expect, it } from "vitest";
import { toolJsonSchema } from "../../src/mcp/json-schema.js";
import { ListChatsQuery } from "../../src/schemas/chat-history.js";
import { DateTime } from "../../src/schemas/common.js";

describe("toolJsonSchema", () => {
  it("keeps what tells a model something and drops zod's noise", () => {
    const schema = z.object({ at: DateTime, page: z.int().min(1), n: z.int(), tags: z.array(z.string()).max(3) });
    const input = toolJsonSchema(schema, "input", { page: "Which page." });
    expect(input).toEqual({
      type: "object",
      properties: {
        at: { type: "string", format: "date-time" },
        page: { type: "integer", minimum: 1, description: "Which page." },
        n: { type: "integer" },
        tags: { type: "array", maxItems: 3, items: { type: "string" } },
      },
      required: ["at", "page", "n", "tags"],
    });
    const output = toolJsonSchema(z.object({ at: DateTime, inner: z.object({ x: z.string() }) }), "output");
    expect(output).toEqual({
      type: "object",
      properties: { at: { type: "string" }, inner: { type: "object", properties: { x: { type: "string" } } } },
    });
  });

  it("shows a query string's integers and booleans as what they are, with their defaults", () => {
    const { properties } = toolJsonSchema(ListChatsQuery, "input");
    expect(properties?.["pageSize"]).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 25 });
    expect(properties?.["pinnedOnly"]).toEqual({ type: "boolean", default: false });
    expect(properties?.["dateFrom"]).toEqual({
      anyOf: [
        { type: "string", format: "date" },
        { type: "string", format: "date-time" },
      ],
    });
  });

  it("refuses to describe an argument the schema does not have", () => {
    expect(() => toolJsonSchema(z.object({ a: z.string() }), "input", { b: "?" })).toThrow(/b is not a property/);
  });
});
