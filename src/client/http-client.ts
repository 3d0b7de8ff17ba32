import http from "node:http";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { endpointPath, type Endpoint } from "../schemas/endpoints.js";
import { AppError, type ErrorCode } from "../shared/errors.js";

/** node:https, loaded for an https:// server only: it loads TLS, ~2.5 ms of a command's start. */
const https = () => createRequire(import.meta.url)("node:https") as typeof import("node:https");

const STATUS_CODES: Record<number, ErrorCode> = {
  400: "invalid_input",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  502: "unavailable",
  503: "unavailable",
};

/** A body sent as a stream of bytes rather than as JSON. */
class StreamBody {
  constructor(
    readonly stream: AsyncIterable<Uint8Array>,
    readonly size: number | undefined,
  ) {}
}

export type QueryValue = string | number | boolean | undefined;

export interface EndpointRequest {
  params?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

type Method = "GET" | "POST" | "DELETE" | "PATCH";
const methodOf = (endpoint: Endpoint) => endpoint.method.toUpperCase() as Method;

interface Answer {
  statusCode: number;
  body: http.IncomingMessage;
}

/** How long connecting may take: a server that is not there should not hold a command up. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Errors of a connection that was never made: the request did not reach the server, so sending it
 * elsewhere cannot do anything twice.
 */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOENT", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ENOTFOUND", "ECONNECTTIMEOUT"]);

/**
 * JSON over HTTP to a mnemo server: a bearer token, timeouts, and error bodies turned back into
 * AppErrors. Node's own http client: undici cost a command sent to a server ~230 ms of CPU to load,
 * more than the rest of the command (test/bench/README.md, "A command through a server").
 */
export class HttpClient {
  private readonly agent: http.Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {
    const options = { keepAlive: true, keepAliveMsecs: 10_000 };
    this.agent = baseUrl.startsWith("https:") ? new (https().Agent)(options) : new http.Agent(options);
  }

  /**
   * One call to an endpoint: `params` fill its path, `query` its query string, and `body` is sent
   * as JSON.
   */
  call<T>(endpoint: Endpoint, request: EndpointRequest = {}): Promise<T> {
    return this.send<T>(methodOf(endpoint), endpointPath(endpoint, request.params), request.query ?? {}, request.body);
  }

  /**
   * A streamed answer (GET /api/export), line by line as it arrives, each with its `\n`. The answer
   * may take as long as the export does: only a stall of 5 minutes between chunks ends it.
   */
  async lines(endpoint: Endpoint, query: Record<string, QueryValue> = {}): Promise<AsyncIterable<string>> {
    const timeouts = { headersTimeout: 300_000, bodyTimeout: 300_000 };
    const response = await this.request(methodOf(endpoint), endpointPath(endpoint), query, undefined, timeouts);
    if (response.statusCode >= 400) {
      const text = await readText(response.body);
      throw toAppError(response.statusCode, text ? safeJson(text) : undefined, this.baseUrl);
    }
    return splitLines(response.body);
  }

  /** A request whose body is streamed as it is read (an export file), never held whole. */
  upload<T>(endpoint: Endpoint, query: Record<string, QueryValue>, body: AsyncIterable<Uint8Array>, size?: number): Promise<T> {
    return this.send<T>(methodOf(endpoint), endpointPath(endpoint), query, new StreamBody(body, size));
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  private async send<T>(method: Method, path: string, query: Record<string, QueryValue>, body: unknown): Promise<T> {
    const response = await this.request(method, path, query, body, { headersTimeout: 120_000, bodyTimeout: 120_000 });
    const text = await readText(response.body);
    const parsed = text ? safeJson(text) : undefined;
    if (response.statusCode >= 400) throw toAppError(response.statusCode, parsed, this.baseUrl);
    return parsed as T;
  }

  private request(
    method: Method,
    path: string,
    query: Record<string, QueryValue>,
    body: unknown,
    timeouts: { headersTimeout: number; bodyTimeout: number },
  ): Promise<Answer> {
    const url = new URL(path.replace(/^\//, ""), this.baseUrl.endsWith("/") ? this.baseUrl : `${this.baseUrl}/`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.token) headers["authorization"] = `Bearer ${this.token}`;
    const stream = body instanceof StreamBody ? body : undefined;
    const json = stream || body === undefined ? undefined : JSON.stringify(body);
    if (stream) {
      headers["content-type"] = "application/octet-stream";
      if (stream.size !== undefined) headers["content-length"] = String(stream.size);
    } else if (json !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(json));
    }
    const transport = url.protocol === "https:" ? https() : http;
    return new Promise<Answer>((resolve, reject) => {
      let connected = false;
      const fail = (error: Error & { code?: string }) => reject(this.unreachable(error, connected));
      const request = transport.request(url, { method, headers, agent: this.agent });
      const answerTimer = setTimeout(
        () => request.destroy(Object.assign(new Error(`no answer within ${timeouts.headersTimeout / 1000} s`), { code: "ETIMEDOUT" })),
        timeouts.headersTimeout,
      );
      request.on("socket", (socket) => {
        if (!socket.connecting) return void (connected = true);
        const connectTimer = setTimeout(
          () => request.destroy(Object.assign(new Error("could not connect within 5 s"), { code: "ECONNECTTIMEOUT" })),
          CONNECT_TIMEOUT_MS,
        );
        socket.once("connect", () => {
          connected = true;
          clearTimeout(connectTimer);
        });
        socket.once("close", () => clearTimeout(connectTimer));
      });
      request.on("error", (error) => {
        clearTimeout(answerTimer);
        fail(error);
      });
      request.on("response", (response) => {
        clearTimeout(answerTimer);
        response.setTimeout(timeouts.bodyTimeout, () =>
          response.destroy(new Error(`the answer stalled for ${timeouts.bodyTimeout / 1000} s`)),
        );
        resolve({ statusCode: response.statusCode ?? 0, body: response });
      });
      if (stream) pipeline(Readable.from(stream.stream), request).catch((error: Error) => request.destroy(error));
      else request.end(json);
    });
  }

  /** A request that failed before an answer came: `details.delivered` says whether the server may have acted on it. */
  private unreachable(error: Error & { code?: string }, connected: boolean): AppError {
    if (error instanceof AppError) return error; // the body's own failure (an export file that could not be read)
    return new AppError("unavailable", `Cannot reach the mnemo server at ${this.baseUrl}: ${error.message}`, {
      suggestion: "Start it with `mnemo serve`, or check --remote / MNEMO_URL.",
      details: { delivered: connected && !NOT_CONNECTED.has(error.code ?? "") },
      cause: error,
    });
  }
}

/** A whole answer as text (UTF-8). */
async function readText(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** A byte stream cut into its lines (UTF-8; each keeps its `\n`; a last line without one is kept too). */
async function* splitLines(body: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let end = pending.indexOf("\n");
    while (end !== -1) {
      yield pending.slice(0, end + 1);
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
    }
  }
  pending += decoder.decode();
  if (pending !== "") yield pending;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: text.slice(0, 500) };
  }
}

function toAppError(status: number, body: unknown, baseUrl: string): AppError {
  const { error, suggestion: given, ...details } = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const message = typeof error === "string" ? error : `The server answered ${status}`;
  const code = STATUS_CODES[status] ?? "internal";
  const suggestion =
    code === "unauthorized"
      ? "Pass the server's token with --token or MNEMO_TOKEN: it is in the file `token` of the server's data dir (`mnemo token --rotate` there makes a new one)."
      : typeof given === "string"
        ? given
        : undefined;
  // The field's problem, as AppError.invalid keeps it, so the CLI can name its own flag instead.
  const field = details["field"];
  const problem = typeof field === "string" && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : undefined;
  return new AppError(code, message, {
    details: { ...details, ...(problem ? { problem } : {}), status, server: baseUrl },
    ...(suggestion ? { suggestion } : {}),
  });
}
