import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { MAX_UPLOAD_BYTES } from "../schemas/imports.js";
import { AppError } from "../shared/errors.js";

const MB = 1024 * 1024;

/**
 * The most a request body to each route may hold, checked first, before the session or the
 * sign-in reads a byte of it: 300 MB posted to /login had taken the server to 1.5 GB.
 *
 * A form is at most 1 MB (a memory of 20,000 characters, each percent-encoded as up to 9 bytes,
 * is 180 KB); an image form 15 MB (the image's 10 MB and its description). An export upload is
 * streamed to disk, never held: its declared length is checked here and the core counts the rest
 * (core/jobs/import-jobs.ts). A body without a declared length is read up to the limit and refused
 * past it (hono's bodyLimit, which holds what it read, so only for the bounded ones).
 */
const LIMITS: Record<string, { bytes: number; what: string }> = {
  "/memories/image": { bytes: 15 * MB, what: "The image is over the 10 MB limit" },
};
const FORM = { bytes: MB, what: "The form is over the 1 MB limit of a form" };
const STREAMED = new Set(["/import/upload"]);

export const bodyLimits: MiddlewareHandler = async (c, next) => {
  if (STREAMED.has(c.req.path)) {
    if (declaredLength(c) > MAX_UPLOAD_BYTES)
      throw overLimit(`The upload is over the ${MAX_UPLOAD_BYTES / 1024 ** 3} GB limit of an export file`);
    return next();
  }
  const limit = LIMITS[c.req.path] ?? FORM;
  return bodyLimit({ maxSize: limit.bytes, onError: () => Promise.reject(overLimit(limit.what)) })(c, next);
};

function declaredLength(c: Context): number {
  const length = c.req.header("content-length");
  return length === undefined ? 0 : Number(length);
}

function overLimit(message: string): AppError {
  return new AppError("payload_too_large", message);
}
