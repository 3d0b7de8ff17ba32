import {
  ErrorCode,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  type JSONRPCErrorResponse,
  type RequestId,
  RequestIdSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import "../schemas/messages.js";
import { cutText } from "../text/cut-text.js";

/** A JSON-RPC error answer; its id is null when the message had none to answer to (JSON-RPC 2.0 §5). */
export type ErrorAnswer<Id extends RequestId | null = RequestId | null> = Omit<JSONRPCErrorResponse, "id"> & { id: Id };

/**
 * The answer to a request the SDK's transports cannot take though it has an id to answer to
 * (`"_meta": "x"`, `"_meta": {"progressToken": {}}`, a field JSON-RPC does not have): their
 * schema refuses the whole message before any handler sees it, so over stdio the client was sent
 * nothing and waited for ever, and over /mcp it was sent -32700 with no id. Its params' problem
 * is -32602 naming the field, as every handler's is; any other is -32600. `undefined` for a
 * message the transports take, or one without an id, which no one can be answered about.
 */
export function malformedRequestAnswer(message: unknown): ErrorAnswer<RequestId> | undefined {
  if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message)) return undefined;
  const id = RequestIdSchema.safeParse(message.id);
  if (!id.success || JSONRPCMessageSchema.safeParse(message).success) return undefined;
  return answerTo(id.data, JSONRPCRequestSchema, message);
}

/**
 * The answer to one member of a batch (2025-03-26; later versions send none) that the SDK's
 * transport cannot take: it refused the whole batch, -32700 with a null id, though the batch was
 * JSON and its other members fine. A request's as above; any other member's -32600 with a null id
 * (JSON-RPC 2.0 §6: `[1]` is answered `[{"id": null, "error": {"code": -32600, …}}]`).
 * `undefined` for a member the transport takes.
 */
export function malformedMemberAnswer(member: unknown): ErrorAnswer | undefined {
  if (JSONRPCMessageSchema.safeParse(member).success) return undefined;
  const withMethod = typeof member === "object" && member !== null && "method" in member && !("id" in member);
  return malformedRequestAnswer(member) ?? answerTo(null, withMethod ? JSONRPCNotificationSchema : JSONRPCRequestSchema, member);
}

function answerTo<Id extends RequestId | null>(id: Id, schema: z.ZodType, message: unknown): ErrorAnswer<Id> {
  const parsed = schema.safeParse(message);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  const field =
    issue?.path
      .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
      .join("")
      .slice(1) || "message";
  const inParams = id !== null && issue?.path[0] === "params";
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: inParams ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest,
      message: cutText(`${field}: ${issue?.message ?? "is not a JSON-RPC request"}`, 500),
    },
  };
}
