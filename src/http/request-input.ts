import { isUtf8 } from "node:buffer";
import type { Context } from "hono";
import { AppError, isAppError } from "../shared/errors.js";
import { NOT_UNICODE } from "../schemas/parse.js";
import { decodeUtf8, withoutBom } from "../text/utf8.js";

/**
 * A request's JSON body, or undefined when it is empty. Bytes that are not UTF-8 are kept visible
 * (text/utf8.ts), so the core refuses them naming their field, instead of storing U+FFFD.
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const bytes = await c.req.arrayBuffer().catch(clientGoneOr);
  const text = withoutBom(decodeUtf8(new Uint8Array(bytes)));
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw AppError.invalid("body", "is not valid JSON");
  }
}

/**
 * A JSON body declared as another type (`text/plain`, as fetch sends a string; a form, as `curl -d`
 * without `-H` sends) is read as JSON all the same: the spec's bodies are JSON and documents no
 * status for a type, and such clients mean JSON. Only what cannot be read as sent is a 400 naming
 * its header: JSON in a charset other than UTF-8 (RFC 8259 allows none other).
 */
export function checkJsonCharset(contentType: string | undefined): void {
  const parameters = (contentType ?? "")
    .split(";")
    .slice(1)
    .map((part) => part.trim());
  const charset = parameters.find((parameter) => /^charset\s*=/i.test(parameter))?.replace(/^charset\s*=\s*"?([^"]*)"?$/i, "$1");
  if (charset === undefined || /^utf-?8$/i.test(charset)) return;
  throw AppError.invalid(
    "Content-Type",
    `charset ${charset} is not UTF-8, the one charset of JSON`,
    "Send the body in UTF-8, with Content-Type: application/json (or application/json; charset=utf-8).",
  );
}

/** Whether a body declared so is declared as JSON (no Content-Type is taken as JSON). */
export function declaredJson(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]!.trim();
  return type === "" || /^application\/(?:[\w.-]+\+)?json$/i.test(type);
}

/**
 * Refuses a JSON body sent compressed (`Content-Encoding: gzip`): its bytes were read as JSON and
 * answered "body: is not valid JSON", and a body that only claimed a coding was stored.
 */
export function checkIdentityEncoding(contentEncoding: string | undefined): void {
  const codings = (contentEncoding ?? "").split(",").map((coding) => coding.trim().toLowerCase());
  const other = codings.find((coding) => coding !== "" && coding !== "identity");
  if (other === undefined) return;
  throw AppError.invalid(
    "Content-Encoding",
    `${other} is not taken: the body is read as it is sent`,
    "Send the body uncompressed, without a Content-Encoding header.",
  );
}

/** A body the client stopped sending (it closed the connection) as a 400 about the body; any other error as it is. */
export function clientGoneOr(error: unknown): never {
  throw isAbort(error) ? clientGone() : error;
}

/** Whether the error is a request body's read ending because its client went away. */
export function isAbort(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (
    error instanceof Error &&
    (error.message === "aborted" || error.name === "AbortError" || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE")
  );
}

/** The client closed the connection before its body was complete: said so, and logged as that, not as a fault of ours. */
export function clientGone(): AppError {
  const problem = "ended before it was complete: the client closed the connection";
  return new AppError("invalid_input", `body: ${problem}`, { details: { field: "body", problem, clientGone: true } });
}

/** The log's line for an error that is the client's leaving, or undefined for any other. */
export function clientGoneLine(error: unknown, method: string, path: string): string | undefined {
  return isAppError(error) && error.details["clientGone"] === true
    ? `${method} ${path}: the client closed the connection before its body was complete`
    : undefined;
}

/**
 * Refuses a query-string parameter or path parameter whose percent-encoding is not UTF-8
 * (`?query=%FF`): the router keeps such a value undecoded, so it would be searched or stored as
 * the literal "%FF". `template` is the route's path (`/api/memories/{memoryId}`), to name a path
 * parameter by its name.
 */
export function checkUrlEncoding(url: string, template: string): void {
  const { pathname, search } = new URL(url);
  const names = template.split("/");
  pathname.split("/").forEach((segment, index) => {
    if (!isUtf8Component(segment)) throw AppError.invalid(names[index]?.replace(/^\{(\w+)\}$/, "$1") || "path", NOT_UNICODE);
  });
  for (const pair of search.slice(1).split("&")) {
    const [name = "", value = ""] = pair.split(/=(.*)/s);
    const field = [...new URLSearchParams(pair).keys()][0] ?? "query";
    if (!isUtf8Component(name)) throw AppError.invalid("query", `has a parameter name that ${NOT_UNICODE}`);
    if (!isUtf8Component(value)) throw AppError.invalid(field, NOT_UNICODE);
  }
}

/**
 * Refuses a query-string parameter given more than once (`?limit=5&limit=500`): every parameter of
 * the API holds one value, and reading the first in silence would answer a request the client did not mean.
 */
export function checkQueryOnce(url: string): void {
  const names = [...new URL(url).searchParams.keys()];
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) {
    throw AppError.invalid(repeated, `is given ${names.filter((name) => name === repeated).length} times; give it once`);
  }
}

/**
 * Refuses a query parameter on an endpoint that reads none, where ignoring it would widen what the
 * request does: `POST /api/trash/empty?ids=…` ran without its ids, and so emptied the whole trash.
 */
export function checkNoQuery(query: Record<string, string>, path: string): void {
  const [name] = Object.keys(query);
  if (name === undefined) return;
  throw AppError.invalid(
    name || "query",
    `is not a query parameter of ${path}, which takes none`,
    "Send the request's fields in its JSON body.",
  );
}

/**
 * Whether the bytes a URL component's percent-escapes stand for are UTF-8. A "%" without two hex
 * digits after it is a literal one, as the router reads it.
 */
function isUtf8Component(component: string): boolean {
  if (!/%[89a-f][0-9a-f]/i.test(component)) return true; // escapes of ASCII bytes at most
  const bytes = component
    .split(/(%[0-9a-f]{2})/i)
    .flatMap((part) => (/^%[0-9a-f]{2}$/i.test(part) ? [Number.parseInt(part.slice(1), 16)] : [...Buffer.from(part)]));
  return isUtf8(Uint8Array.from(bytes));
}

/**
 * A request's body as the bytes arrive, for the core to write to disk (never read whole into
 * memory). A client that goes away mid-body is said to have (clientGone), not logged as our fault.
 */
export async function* bodyStream(c: Context): AsyncIterable<Uint8Array> {
  const body = c.req.raw.body;
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(clientGoneOr);
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
