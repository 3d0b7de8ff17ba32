import { AppError, isAppError, type ErrorCode } from "../shared/errors.js";
import type { Output } from "./output.js";
import { AbortedByUser } from "./prompts.js";

export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

const EXIT_CODES: Record<ErrorCode, number> = {
  invalid_input: EXIT.usage,
  unauthorized: EXIT.failure,
  forbidden: EXIT.failure,
  not_found: EXIT.failure,
  conflict: EXIT.failure,
  payload_too_large: EXIT.usage,
  rate_limited: EXIT.failure,
  store_mismatch: EXIT.failure,
  unavailable: EXIT.failure,
  internal: EXIT.failure,
};

/** The one place a CLI failure becomes a message and an exit code. */
export function handleError(error: unknown, output: Output): number {
  if (error instanceof AbortedByUser) {
    output.notice(error.message);
    return error.how === "interrupted" ? EXIT.interrupted : EXIT.failure;
  }
  output.error(withoutRoutes(error));
  return isAppError(error) ? EXIT_CODES[error.code] : EXIT.failure;
}

/** An API route the core names beside the command (" (GET /api/v2/memory?includeIds=true)"): not the CLI user's. */
const ROUTE = / \((?:GET|POST|PUT|PATCH|DELETE) \/api\/[^)]*\)/g;

/** The core's words for every face, with what is for API clients left out: the command that lists them is named already. */
function withoutRoutes(error: unknown): unknown {
  if (!isAppError(error) || !error.suggestion) return error;
  const suggestion = error.suggestion.replace(ROUTE, "");
  if (suggestion === error.suggestion) return error;
  return new AppError(error.code, error.message, {
    suggestion,
    details: error.details,
    cause: error.cause,
  });
}
