/**
 * The one error type the core throws. Each face maps `code` once:
 * HTTP status in http/error-response.ts, CLI exit code in cli/handle-error.ts.
 */
export type ErrorCode =
  | "invalid_input" // the caller sent something wrong (400 / exit 2)
  | "unauthorized" // missing or wrong token (401)
  | "forbidden" // signed URL expired or altered (403)
  | "not_found" // memory, bucket or conversation does not exist (404)
  | "conflict" // e.g. a bucket name that already exists (409)
  | "payload_too_large" // body over the limit (413)
  | "rate_limited" // too many failed auth attempts (429)
  | "store_mismatch" // the store was made by another embedder, or its tables are not a mnemo store's (a data dir that cannot be one is invalid_input)
  | "unavailable" // a remote dependency (LLM endpoint, model hub, server) cannot be reached
  | "internal";

export interface AppErrorOptions {
  /** What the user can do about it, phrased as an instruction. */
  suggestion?: string;
  /** Machine-readable extras a face may expose (e.g. `field`, `rejectedIds`). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly suggestion: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.suggestion = options.suggestion;
    this.details = options.details ?? {};
  }

  /** A bad value in field `field` (dotted path, e.g. `conversation.messages[0].role`). */
  static invalid(field: string, problem: string, suggestion?: string): AppError {
    return new AppError("invalid_input", `${field}: ${problem}`, {
      details: { field, problem },
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }

  static notFound(what: string, suggestion?: string): AppError {
    return new AppError("not_found", what, suggestion === undefined ? {} : { suggestion });
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** An error as a message between threads or processes can carry it (structured clone drops the class). */
export interface PlainError {
  message: string;
  code?: ErrorCode;
  suggestion?: string;
  details?: Record<string, unknown>;
}

export function plainError(error: unknown): PlainError {
  if (!isAppError(error)) return { message: error instanceof Error ? error.message : String(error) };
  return {
    message: error.message,
    code: error.code,
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    details: error.details,
  };
}

/** A PlainError back as the AppError it was (a plain Error when it was none). */
export function revivedError(error: PlainError): Error {
  if (!error.code) return new Error(error.message);
  return new AppError(error.code, error.message, {
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    details: error.details ?? {},
  });
}
