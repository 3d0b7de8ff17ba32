import { ErrorCode, McpError, type CallToolResult, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { isAppError, type AppError } from "../shared/errors.js";
import { cutText, shownId } from "../text/cut-text.js";
import { forModel } from "../text/visible.js";

/**
 * The fix for the MCP face when something named is not found, by the field that named it: the
 * core's suggestion names a CLI command or an endpoint, which a model cannot run; these name the
 * tool that finds what was missing.
 */
const FIXES: Record<string, string> = {
  memoryId: "Find memory ids with search_memories or get_memories_and_buckets.",
  memoryIds: "Find memory ids with search_memories or get_memories_and_buckets.",
  bucketId: "See the buckets with list_buckets; make one with create_bucket (update_or_move_memories also takes a new bucketName).",
  conversationId: "Find conversation ids with list_conversations or search_chat_history.",
};

/** A bucket's name where its id goes ("bucketId": "Travel"), as a model is apt to send it. */
const BUCKET_NAME_AS_ID = "Give the bucket's id, a number: list_buckets shows each bucket's id and name.";

function fixFor(error: AppError): string | undefined {
  const field = error.details["field"];
  const fix = typeof field === "string" && error.code === "not_found" ? FIXES[field] : undefined;
  const nameAsId = field === "bucketId" && /^must be a number, not "/.test(String(error.details["problem"] ?? ""));
  return fix ?? (nameAsId ? BUCKET_NAME_AS_ID : error.suggestion);
}

/** What went wrong and how to fix it, in the words a model reads (no stack, no path). */
function describe(error: unknown): string | undefined {
  if (!isAppError(error)) return undefined;
  const rejected = error.details["rejectedIds"];
  const ids = Array.isArray(rejected) ? `: ${rejected.map((id) => shownId(String(id))).join(", ")}` : "";
  const fix = fixFor(error);
  return `${error.message}${ids}${fix ? `\nFix: ${fix}` : ""}`;
}

/**
 * A name the caller sent (a tool's, an argument's, a cursor), as an error quotes it: cut, since a
 * model or a broken client may send megabytes, and the error goes back into its context whole.
 */
export function quoted(name: string, max = 60): string {
  return JSON.stringify(cutText(name, max));
}

/** A line for the log, at a level of the protocol's (RFC 5424's); `error` unless said (mcp/server.ts sends it). */
export type McpLog = (line: string, level?: LoggingLevel) => void;

const INTERNAL = "mnemo failed unexpectedly; the details are in its log. Try again, or tell the user.";

/**
 * The one place an error becomes an MCP answer. A tool's failure is a result with isError, which
 * the model reads and can act on: never a protocol error, never a crashed server.
 */
export function toolError(error: unknown, log: McpLog): CallToolResult {
  const text = describe(error);
  if (text === undefined) logInternal(error, log);
  return { isError: true, content: [{ type: "text", text: forModel(text ?? INTERNAL) }] };
}

/** For resources and prompts, whose failures the protocol answers as JSON-RPC errors. */
export function protocolError(error: unknown, log: McpLog): McpError {
  const text = describe(error);
  if (text === undefined) {
    logInternal(error, log);
    return plain(new McpError(ErrorCode.InternalError, INTERNAL), INTERNAL);
  }
  const code = (error as AppError).code;
  // -32002 is the spec's "resource not found".
  return plain(
    new McpError(code === "not_found" ? -32002 : code === "invalid_input" ? ErrorCode.InvalidParams : ErrorCode.InternalError, text),
    text,
  );
}

/**
 * McpError puts "MCP error <code>: " before its message, and the server sends the message as it
 * is: the SDK's client, which adds the prefix itself, showed it twice ("MCP error -32002: MCP
 * error -32002: bucket 9 does not exist"). The code travels beside the message anyway.
 */
function plain(error: McpError, text: string): McpError {
  error.message = text;
  return error;
}

function logInternal(error: unknown, log: McpLog): void {
  log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
