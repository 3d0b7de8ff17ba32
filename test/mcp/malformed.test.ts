import { describe, expect, it } from "vitest";
import { malformedRequestAnswer } from "../../src/mcp/malformed.js";

const call = { jsonrpc: "2.0", id: 2, method: "tools/call" };
const args = { name: "search_chat_history", arguments: { query: "x" } };

describe("malformedRequestAnswer", () => {
  it("answers a request the SDK's schema refuses with its id: -32602 naming the params' field, -32600 for the rest", () => {
    expect(malformedRequestAnswer({ ...call, params: { ...args, _meta: "x" } })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32602, message: 'params._meta: must be an object, not "x"' },
    });
    expect(malformedRequestAnswer({ ...call, id: "a", params: { ...args, _meta: { progressToken: {} } } })).toEqual({
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32602, message: "params._meta.progressToken: must be a string or a number, not an object" },
    });
    expect(malformedRequestAnswer({ ...call, params: "x" })?.error).toEqual({
      code: -32602,
      message: 'params: must be an object, not "x"',
    });
    expect(malformedRequestAnswer({ ...call, extra: 1 })?.error).toEqual({ code: -32600, message: 'message: unknown field "extra"' });
    expect(malformedRequestAnswer({ ...call, jsonrpc: "1.0" })?.error).toMatchObject({ code: -32600, message: /^jsonrpc: / });
    expect(malformedRequestAnswer({ ...call, method: 5 })?.error).toEqual({ code: -32600, message: "method: must be a string, not 5" });
  });

  it("leaves alone what the transports take, and what has no id to answer to", () => {
    expect(malformedRequestAnswer({ ...call, params: { ...args, _meta: { progressToken: 7 } } })).toBeUndefined();
    expect(malformedRequestAnswer({ jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: "x" } })).toBeUndefined();
    expect(malformedRequestAnswer({ ...call, id: {}, params: { _meta: "x" } })).toBeUndefined();
    expect(malformedRequestAnswer({ ...call, id: 1.5 })).toBeUndefined();
    expect(malformedRequestAnswer([{ ...call, params: { _meta: "x" } }])).toBeUndefined();
    expect(malformedRequestAnswer("x")).toBeUndefined();
  });
});
