import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { isAppError, type ErrorCode } from "../shared/errors.js";
import { loggable } from "./loggable.js";
import { clientGoneLine } from "./request-input.js";

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  store_mismatch: 500,
  unavailable: 503,
  internal: 500,
};

/** The HTTP status of an error's code (the web app answers with the same ones). */
export function statusOf(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

/**
 * The one place an error becomes an HTTP answer: `{ "error": "…" }`, with the `field` at fault and
 * the fix as `suggestion` when there are (plus `rejectedIds` for a bulk move). Anything that is not an AppError is
 * logged and answered with a plain 500: no stack trace or internal message ever reaches a client.
 */
export function errorResponse(c: Context, error: unknown, log: (line: string) => void): Response {
  if (isAppError(error)) {
    const gone = clientGoneLine(error, c.req.method, loggable(c.req.path));
    if (gone) log(gone);
    const rejectedIds = error.details["rejectedIds"];
    const { field } = error.details;
    const body = {
      error: error.message,
      ...(typeof field === "string" ? { field } : {}),
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      ...(Array.isArray(rejectedIds) ? { rejectedIds } : {}),
    };
    return c.json(body, STATUS[error.code]);
  }
  log(
    `internal error on ${c.req.method} ${loggable(c.req.path)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return c.json({ error: "Internal server error" }, 500);
}
