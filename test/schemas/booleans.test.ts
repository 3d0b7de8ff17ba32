import { expect, it } from "vitest";
import { ExcludeRequest, PinRequest } from "../../src/schemas/chat-history.js";
import { SearchRequest } from "../../src/schemas/recall.js";

it("reads a boolean of a request body written as a string, as its numbers are (a model's tool call sends them so)", () => {
  expect(SearchRequest.parse({ query: "tea", includeUnrelated: "true", skipRerank: "false", limit: "5" })).toMatchObject({
    includeUnrelated: true,
    skipRerank: false,
    limit: 5,
  });
  expect(PinRequest.parse({ ids: ["conv_1"], pinned: "true" }).pinned).toBe(true);
  expect(ExcludeRequest.parse({ ids: ["conv_1"], excluded: "False" }).excluded).toBe(false);
  expect(PinRequest.safeParse({ ids: ["conv_1"], pinned: "yes please" }).success).toBe(false);
});
