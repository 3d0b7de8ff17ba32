import {
  ErrorCode,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  RequestIdSchema,
  type JSONRPCErrorResponse,
} from "@modelcontextprotocol/sdk/types.js";
import "../schemas/messages.js";
import { cutText } from "../text/cut-text.js";

/**
 * The answer to a request the SDK's transports cannot take though it has an id to answer to
 * (`"_meta": "x"`, `"_meta": {"progressToken": {}}`, a field JSON-RPC does not have): their
 * schema refuses the whole message before any handler sees it, so over stdio the client was sent
 * nothing and waited for ever, and over /mcp it was sent -32700 with no id. Its params' problem
 * is -32602 naming the field, as every handler's is; any other is -32600. `undefined` for a
 * message the transports take, or one without an id, which no one can be answered about.
 */
export function malformedRequestAnswer(message: unknown): JSONRPCErrorResponse | undefined {
  if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message)) return undefined;
  const id = RequestIdSchema.safeParse(message.id);
  if (!id.success || JSONRPCMessageSchema.safeParse(message).success) return undefined;
  const parsed = JSONRPCRequestSchema.safeParse(message);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  const field =
    issue?.path
      .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
      .join("")
      .slice(1) || "message";
  const inParams = issue?.path[0] === "params";
  return {
    jsonrpc: "2.0",
    id: id.data,
    error: {
      code: inParams ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest,
      message: cutText(`${field}: ${issue?.message ?? "is not a JSON-RPC request"}`, 500),
    },
  };
}
