import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { imageBytes, verifyImageSignature, type App } from "../core/index.js";
import { AppError, isAppError } from "../shared/errors.js";
import { allowedMethods, endpointsEndingLike, type RouteTemplate } from "./allowed-methods.js";
import { bearerAuth, FailureLimiter, type AuthVariables } from "./auth.js";
import { errorResponse } from "./error-response.js";
import { allowedHostnames, checkHost } from "./host-guard.js";
import { loggable } from "./loggable.js";
import { LargeBodies } from "./admission.js";
import {
  bodyStream,
  checkIdentityEncoding,
  checkJsonCharset,
  declaredJson,
  checkQueryOnce,
  checkUrlEncoding,
  clientGoneOr,
  jsonBody,
} from "./request-input.js";
import { rememberOrigin } from "./request-origin.js";
import { buildOpenApi } from "./openapi.js";
import { METADATA_PATH, resourceMetadata } from "./resource-metadata.js";
import { MB, ROUTES, type Route } from "./routes.js";

export interface HttpOptions {
  /** The address the server listens on: decides which Host headers are its own. */
  host: string;
  allowedHosts: string[];
  corsOrigins: string[];
  /** Where request and error lines go (stderr by default). */
  log: (line: string) => void;
  /** The secret image URLs are signed with. */
  imageSecret: Buffer;
  /** Adds routes beside the API's, after them (the web app): they pass the same Host guard and request log. */
  /** Adds routes beside the API's (the web app's pages), returning them for OPTIONS and 405 to name. */
  mount?: (http: Hono<HttpEnv>) => RouteTemplate[];
}

export type HttpEnv = { Variables: AuthVariables };
type Env = HttpEnv;

/** The routes the server answers beside the API's (openapi.ts documents them too). */
export const SERVER_ROUTES = [
  { method: "get", path: "/healthz" },
  { method: "get", path: "/openapi.json" },
  { method: "get", path: "/images/{memoryId}" },
  { method: "get", path: METADATA_PATH },
  { method: "get", path: `${METADATA_PATH}/mcp` },
];

/** The whole REST API on one App, as a Hono app (testable in memory with `app.request()`). */
export function createHttpApp(app: App, options: HttpOptions): Hono<Env> {
  // Not strict: `/api/memories/` is `/api/memories`, as a client that builds paths may send it.
  const http = new Hono<Env>({ strict: false });
  const hosts = allowedHostnames(options.host, options.allowedHosts);
  const address = (c: Context) => getConnInfo(c).remote.address ?? "unknown";

  http.use(requestLog(options.log));
  http.use(async (c, next) => {
    const host = c.req.header("host");
    if (host === undefined) throw missingHost();
    const check = checkHost(host, hosts);
    if (!check.ok) return c.json({ error: `Forbidden: ${check.reason}` }, 403);
    await next();
  });
  http.use(rememberOrigin);
  // The mounted pages' routes join these once mounted, last, after the API's own.
  let methodsAt = allowedMethods([...SERVER_ROUTES, ...ROUTES, MCP_ROUTE]);
  const endpointsLike = endpointsEndingLike([...SERVER_ROUTES, ...ROUTES, MCP_ROUTE]);
  const corsOn = options.corsOrigins.length > 0;
  http.use(answerOptions((path) => methodsAt(path), corsOn));
  if (corsOn) http.use(cors({ origin: options.corsOrigins, allowHeaders: ["Authorization", "Content-Type", "Mcp-Protocol-Version"] }));
  http.onError((error, c) => errorResponse(c, error, options.log));
  http.notFound((c) => {
    const allowed = methodsAt(c.req.path);
    if (allowed.length === 0) return noSuchEndpoint(c, c.req.path.startsWith("/api/") ? endpointsLike(c.req.path) : []);
    c.header("Allow", [...allowed, "OPTIONS"].join(", "));
    return c.json({ error: `${c.req.path} does not take ${c.req.method}: use ${allowed.join(" or ")}` }, 405);
  });

  http.get("/healthz", (c) => c.json({ ok: true }));
  // Where a 401's challenge points: the API's metadata, and /mcp's (RFC 9728), without a token.
  http.get(METADATA_PATH, (c) => c.json(resourceMetadata(new URL(c.req.url).origin, "")));
  http.get(`${METADATA_PATH}/mcp`, (c) => c.json(resourceMetadata(new URL(c.req.url).origin, "/mcp")));
  let openapi: object | undefined;
  http.get("/openapi.json", (c) => c.json((openapi ??= buildOpenApi(ROUTES))));
  http.get("/images/:memoryId", async (c) => {
    const memoryId = c.req.param("memoryId");
    verifyImageSignature(options.imageSecret, memoryId, c.req.query("exp"), c.req.query("sig"));
    const image = await imageBytes(app, memoryId);
    c.header("Content-Type", image.mime);
    // The type is the stored format's; a browser must not guess another (HTML) from the bytes.
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "private, max-age=3600");
    return c.body(new Uint8Array(image.data));
  });

  // One lockout for both: a token guessed at /mcp counts as one guessed at /api.
  const auth = bearerAuth(app, new FailureLimiter(), address);
  http.use("/api/*", auth);
  const largeBodies = new LargeBodies();
  for (const route of ROUTES) register(http, route, largeBodies);
  http.use("/mcp", auth);
  http.post("/mcp", bodyLimitOf(MCP_BODY_LIMIT, "/mcp"), async (c) => {
    // The SDK is loaded by the first MCP request, not by every server start.
    const { handleMcpRequest } = await import("../mcp/http.js");
    // Read here rather than by the SDK, which would turn bytes that are not UTF-8 into U+FFFD.
    const body = await jsonBody(c).catch((error: unknown) => {
      if (error instanceof AppError && error.code !== "invalid_input") throw error; // over the limit
      return undefined;
    });
    // Not JSON (undefined) is answered there, after the headers are checked.
    return handleMcpRequest(c.req.raw, c.get("service"), options.log, body);
  });
  // Stateless MCP: no server-sent stream to open (GET) and no session to end (DELETE).
  http.on(["GET", "DELETE"], "/mcp", (c) => {
    c.header("Allow", "POST, OPTIONS");
    return c.json({ error: "/mcp takes POST: MCP over Streamable HTTP, without sessions or a server-sent stream" }, 405);
  });
  const mounted = options.mount?.(http) ?? [];
  methodsAt = allowedMethods([...SERVER_ROUTES, ...ROUTES, MCP_ROUTE, ...mounted]);
  return http;
}

/**
 * A request without Host (HTTP/1.1 requires one; Node answered an empty 400 of its own, now left to
 * us, listen.ts): a 400 naming the header, as other client errors are, not the rebinding guard's 403.
 */
function missingHost(): AppError {
  return AppError.invalid(
    "Host",
    "the header is missing: a request names the server it is for (HTTP/1.1 requires it)",
    "Send Host with the server's address, such as Host: 127.0.0.1:7411, as every HTTP client does by itself.",
  );
}

/** A 404 for a path nothing answers, pointing to the endpoints that end as it does when there are some. */
function noSuchEndpoint(c: Context, like: string[]): Response {
  const error = `No such endpoint: ${c.req.method} ${c.req.path}`;
  if (like.length === 0) return c.json({ error }, 404);
  return c.json({ error, suggestion: `Did you mean ${like.join(" or ")}? GET /openapi.json lists every endpoint.` }, 404);
}

/** MCP's one endpoint: not the API's (openapi.json leaves it out), but a path whose methods OPTIONS and 405 name. */
const MCP_ROUTE = { method: "post", path: "/mcp" };

/**
 * OPTIONS on a path the server answers: 204 with `Allow` (RFC 9110 §9.3.7), before the token is
 * asked for, since it says only what /openapi.json says to anyone; it had been a 405, or a 401.
 * A CORS preflight is the cors middleware's when origins are configured; otherwise it gets this
 * answer, which has no Access-Control-* header, so a browser still refuses the cross-origin call.
 */
function answerOptions(methodsAt: (path: string) => string[], corsOn: boolean): MiddlewareHandler {
  return async (c, next) => {
    const allowed = c.req.method === "OPTIONS" ? methodsAt(c.req.path) : [];
    if (allowed.length === 0) return next();
    c.header("Allow", [...allowed, "OPTIONS"].join(", "));
    if (corsOn && c.req.header("access-control-request-method") !== undefined) return next();
    return c.body(null, 204);
  };
}

/** The SDK's own limit on an MCP body, kept now that the server reads the body. */
const MCP_BODY_LIMIT = 4 * MB;

function bodyLimitOf(maxSize: number, path: string): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("payload_too_large", `The request body is over the ${Math.round(maxSize / MB)} MB limit of ${path}`);
    },
  });
}

function register(http: Hono<Env>, route: Route, largeBodies: LargeBodies): void {
  const path = route.path.replace(/\{(\w+)\}/g, ":$1");
  const limit = bodyLimitOf(route.bodyLimit ?? MB, route.path);
  const handle = async (c: Context<Env>) => {
    checkUrlEncoding(c.req.url, route.path);
    checkQueryOnce(c.req.url);
    if (route.body) {
      checkJsonCharset(c.req.header("content-type"));
      checkIdentityEncoding(c.req.header("content-encoding"));
    }
    const result = await route.handle({
      service: c.get("service"),
      query: c.req.query(),
      params: c.req.param() as Record<string, string>,
      body: route.body ? await readBody(c, route) : undefined,
      stream: route.stream ? bodyStream(c) : undefined,
    });
    if (route.produces) return streamLines(c, result as AsyncIterable<string>);
    return c.json(result as object);
  };
  const admitted = (c: Context<Env>) => (route.body ? largeBodies.admit(c, () => handle(c)) : handle(c));
  // A streamed body is counted by the core as it is written to disk: the limit would buffer nothing, but it is not this one.
  if (route.stream) http[route.method](path, handle);
  else http[route.method](path, limit, admitted);
}

/**
 * Lines streamed as they are made, gzip-compressed when the client accepts it. The first line is
 * made before the answer starts, so a failure there (a damaged table) is an error answer with its
 * status; a failure later can only cut the stream short, which a reader of the export format sees
 * (it has no `end` record).
 */
async function streamLines(c: Context, lines: AsyncIterable<string>): Promise<Response> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  const source = Readable.from(
    (async function* () {
      if (first.done) return;
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    })(),
  );
  const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
  const body = gzip ? pipeline(source, createGzip(), () => undefined) : source;
  const headers: Record<string, string> = {
    "Content-Type": "application/x-ndjson; charset=utf-8",
    "Content-Disposition": `attachment; filename="mnemo-export-${new Date().toISOString().slice(0, 10)}.jsonl"`,
    Vary: "Accept-Encoding",
    ...(gzip ? { "Content-Encoding": "gzip" } : {}),
  };
  return new Response(Readable.toWeb(body) as ReadableStream, { headers });
}

/** The request's JSON body; one that is not JSON, declared as another type, is said to have been sent so. */
function readBody(c: Context, route: Route): Promise<unknown> {
  const type = c.req.header("content-type");
  return readJson(c, route).catch((error: unknown) => {
    if (declaredJson(type) || !isAppError(error) || error.details["field"] !== "body") throw error;
    throw AppError.invalid(
      "body",
      `${String(error.details["problem"])} (it was sent as ${type})`,
      "Send it as JSON, with Content-Type: application/json.",
    );
  });
}

function readJson(c: Context, route: Route): Promise<unknown> {
  const stream = c.req.raw.body;
  if (!route.readBody || !stream) return jsonBody(c);
  const length = c.req.header("content-length");
  // preventCancel: a reader that stops early (an upload over the token limit) must not cancel the
  // stream, which would close the connection before the answer is written.
  return route
    .readBody(stream.values({ preventCancel: true }), length === undefined ? undefined : Number(length))
    .catch((error: unknown) => {
      discardRest(c, stream);
      return clientGoneOr(error);
    });
}

/**
 * The rest of a body the server has refused, read and dropped (up to the body limit) so the client
 * can finish sending and read the answer: many clients read nothing until they have sent
 * everything, and closing on them loses the answer ("other side closed"). The connection closes after.
 */
function discardRest(c: Context, stream: ReadableStream<Uint8Array>): void {
  c.header("Connection", "close");
  void (async () => {
    try {
      for await (const _ of stream) {
        // dropped
      }
    } catch {
      // the client went away, or passed the body limit: nothing more to read
    }
  })();
}

/** One line per request — method, path, status, time — and nothing else: no token, no query, no body. */
function requestLog(log: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    log(`${c.req.method} ${loggable(c.req.path)} ${c.res.status} ${Math.round(performance.now() - started)}ms`);
  };
}
