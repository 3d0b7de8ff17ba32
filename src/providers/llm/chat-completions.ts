import type { IncomingHttpHeaders } from "node:http";
import pRetry, { AbortError } from "p-retry";
import { Agent, request } from "undici";
import { AppError } from "../../shared/errors.js";

export interface ChatCompletionsOptions {
  /** Includes the API version, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Sent as a bearer token when set. */
  apiKey?: string | undefined;
  model: string;
  /** Longest one attempt may take, from connecting to the last byte of the answer. */
  timeoutMs: number;
  /** Further attempts after the first, on 429, 5xx and network errors. */
  retries: number;
}

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

export interface Completion {
  /** The answer's text, trimmed; never empty. */
  content: string;
  /** The model the server says answered, else the one asked for. */
  servedModel: string;
}

export interface ChatCompletions {
  complete(messages: ChatMessage[], settings: { maxTokens: number; temperature: number }): Promise<Completion>;
}

/** Backoff between attempts: 250 ms, then doubling, each randomized by ×1–2 (p-retry / retry). */
const BACKOFF = { factor: 2, minTimeout: 250, maxTimeout: 4_000, randomize: true } as const;
/** A server's Retry-After is honoured up to this; a longer one is not worth blocking a search for. */
const MAX_RETRY_AFTER_MS = 5_000;
/** Cap on connecting, so an unroutable host fails well before a long completion timeout. */
const MAX_CONNECT_TIMEOUT_MS = 10_000;

/**
 * A client of any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, LM Studio,
 * llama.cpp server): one timeout per attempt, retries with backoff on 429, 5xx and network errors,
 * and every failure an `unavailable` AppError naming the endpoint. `fallback` finishes its
 * suggestions with what the caller can do without the endpoint ("use the extractive synthesizer …").
 */
export function createChatCompletions(options: ChatCompletionsOptions, fallback: string): ChatCompletions {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const endpoint = chatCompletionsUrl(baseUrl);
  const timeoutMs = options.timeoutMs;
  const agent = new Agent({
    connect: { timeout: Math.min(timeoutMs, MAX_CONNECT_TIMEOUT_MS) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) headers["authorization"] = `Bearer ${options.apiKey}`;

  async function attempt(body: string): Promise<Completion> {
    let statusCode: number;
    let responseHeaders: IncomingHttpHeaders;
    let text: string;
    try {
      const response = await request(endpoint, {
        method: "POST",
        headers,
        body,
        dispatcher: agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // Bounds the whole attempt, including a server that drips its body out slowly.
        signal: AbortSignal.timeout(timeoutMs),
      });
      statusCode = response.statusCode;
      responseHeaders = response.headers;
      text = await response.body.text();
    } catch (error) {
      // A server that took the request and said nothing: waiting as long again would double the wait.
      if (isTimeout(error) && errorCode(error) !== "UND_ERR_CONNECT_TIMEOUT") {
        throw new AppError("unavailable", `The LLM endpoint at ${baseUrl} did not answer within ${timeoutMs} ms`, {
          suggestion: `Raise llm.timeoutMs if the model is slow, or ${fallback}`,
          details: { endpoint: baseUrl },
          cause: error,
        });
      }
      const cause = describeNetworkError(error, timeoutMs);
      const unreachable = new AppError("unavailable", `Cannot reach the LLM endpoint at ${baseUrl}: ${cause}`, {
        suggestion: `Check llm.baseUrl / MNEMO_LLM_BASE_URL, or ${fallback}`,
        details: { endpoint: baseUrl },
        cause: error,
      });
      throw isTransientNetworkError(error) ? new TransientError(unreachable) : unreachable;
    }

    const parsed = parseJson(text);
    if (statusCode === 429 || statusCode >= 500) {
      throw new TransientError(httpError(baseUrl, statusCode, parsed, text, fallback), retryAfterMs(responseHeaders));
    }
    if (statusCode < 200 || statusCode >= 300) throw httpError(baseUrl, statusCode, parsed, text, fallback);
    return readCompletion(baseUrl, parsed, text, options.model, fallback);
  }

  /** One attempt as p-retry sees it: only a TransientError is tried again. */
  async function retryableAttempt(body: string): Promise<Completion> {
    try {
      return await attempt(body);
    } catch (error) {
      if (error instanceof TransientError) throw error;
      throw new AbortError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  return {
    async complete(messages, settings): Promise<Completion> {
      const body = JSON.stringify({ model: options.model, messages, max_tokens: settings.maxTokens, temperature: settings.temperature });
      let attempts = 0;
      try {
        return await pRetry(
          () => {
            attempts += 1;
            return retryableAttempt(body);
          },
          {
            ...BACKOFF,
            retries: options.retries,
            // Waits out the server's Retry-After; p-retry's own backoff (with jitter) comes on top.
            onFailedAttempt: async (error) => {
              if (error instanceof TransientError && error.retryAfterMs > 0 && error.retriesLeft > 0) {
                await sleep(error.retryAfterMs);
              }
            },
          },
        );
      } catch (error) {
        if (error instanceof TransientError) {
          const final = error.appError;
          if (attempts > 1) final.message = `${final.message} (gave up after ${attempts} attempts)`;
          throw final;
        }
        throw error;
      }
    },
  };
}

/** A failed attempt worth another try (429, 5xx, network error); carries the error to report if none succeeds. */
class TransientError extends Error {
  constructor(
    readonly appError: AppError,
    readonly retryAfterMs = 0,
  ) {
    super(appError.message);
    this.name = "TransientError";
  }
}

function chatCompletionsUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(`${baseUrl}/chat/completions`);
  } catch {
    throw AppError.invalid(
      "llm.baseUrl",
      `${baseUrl} is not a URL`,
      "Set it to e.g. https://api.openai.com/v1 or http://localhost:11434/v1",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw AppError.invalid(
      "llm.baseUrl",
      `${baseUrl} is not an http(s) URL`,
      "Set it to e.g. https://api.openai.com/v1 or http://localhost:11434/v1",
    );
  }
  return url;
}

function readCompletion(baseUrl: string, body: unknown, text: string, configuredModel: string, fallback: string): Completion {
  if (body === undefined) {
    throw new AppError("unavailable", `The LLM endpoint at ${baseUrl} returned a response that is not JSON: ${snippet(text)}`, {
      suggestion: "Check that llm.baseUrl points at an OpenAI-compatible API (it usually ends in /v1)",
      details: { endpoint: baseUrl },
    });
  }
  const record = asRecord(body);
  const choices = Array.isArray(record["choices"]) ? (record["choices"] as unknown[]) : [];
  const message = asRecord(asRecord(choices[0])["message"]);
  const content = typeof message["content"] === "string" ? message["content"].trim() : "";
  if (!content) {
    const serverMessage = errorMessage(body);
    throw new AppError("unavailable", `The LLM endpoint at ${baseUrl} returned no content${serverMessage ? `: ${serverMessage}` : ""}`, {
      suggestion: `Try again, raise the token budget, or ${fallback}`,
      details: { endpoint: baseUrl },
    });
  }
  const served = typeof record["model"] === "string" && record["model"] ? record["model"] : configuredModel;
  return { content, servedModel: served };
}

function httpError(baseUrl: string, status: number, body: unknown, text: string, fallback: string): AppError {
  const serverMessage = errorMessage(body) ?? (text.trim() ? snippet(text) : undefined);
  return new AppError("unavailable", `The LLM endpoint at ${baseUrl} answered ${status}${serverMessage ? `: ${serverMessage}` : ""}`, {
    suggestion: suggestionForStatus(status, fallback),
    details: { endpoint: baseUrl, status },
  });
}

function suggestionForStatus(status: number, fallback: string): string {
  if (status === 401 || status === 403) {
    return `Check llm.apiKey / MNEMO_LLM_API_KEY (or OPENAI_API_KEY), or ${fallback}`;
  }
  if (status === 404) {
    return "Check llm.model / MNEMO_LLM_MODEL and llm.baseUrl / MNEMO_LLM_BASE_URL (it usually ends in /v1)";
  }
  if (status === 429) return `The LLM endpoint is rate limiting: wait and try again, or ${fallback}`;
  if (status >= 500) return `The LLM server failed: try again later, or ${fallback}`;
  return `Check the llm settings (baseUrl, model, apiKey), or ${fallback}`;
}

/** OpenAI's `{ error: { message } }`, plus the shapes other compatible servers use. */
function errorMessage(body: unknown): string | undefined {
  const record = asRecord(body);
  const error = record["error"];
  if (typeof error === "string" && error.trim()) return snippet(error);
  const nested = asRecord(error)["message"];
  if (typeof nested === "string" && nested.trim()) return snippet(nested);
  const message = record["message"] ?? record["detail"];
  if (typeof message === "string" && message.trim()) return snippet(message);
  return undefined;
}

/** Seconds (or an HTTP date) from Retry-After, or OpenAI's retry-after-ms; capped. */
function retryAfterMs(headers: IncomingHttpHeaders): number {
  const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.trim();
  let ms = 0;
  const milliseconds = single(headers["retry-after-ms"]);
  const retryAfter = single(headers["retry-after"]);
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds)) ms = Number(milliseconds);
  else if (retryAfter && /^\d+(\.\d+)?$/.test(retryAfter)) ms = Number(retryAfter) * 1_000;
  else if (retryAfter) {
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) ms = at - Date.now();
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
/** Failures that say nothing about the next try: a bad URL or an unknown host. */
const PERMANENT_CODES = new Set(["UND_ERR_INVALID_ARG", "ENOTFOUND", "ERR_INVALID_URL"]);

function errorCode(error: unknown): string | undefined {
  const code = asRecord(error)["code"];
  return typeof code === "string" ? code : undefined;
}

function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return (error instanceof Error && error.name === "TimeoutError") || (code !== undefined && TIMEOUT_CODES.has(code));
}

function isTransientNetworkError(error: unknown): boolean {
  const code = errorCode(error);
  return code === undefined || !PERMANENT_CODES.has(code);
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `no response within ${timeoutMs} ms`;
  // Node's happy-eyeballs connect (e.g. `localhost` → ::1 and 127.0.0.1) fails with an AggregateError whose own message is empty.
  if (error instanceof AggregateError && !error.message) {
    const inner = [...new Set(error.errors.map((each: unknown) => (each instanceof Error ? each.message : String(each))))];
    if (inner.length > 0) return inner.join("; ");
  }
  if (error instanceof Error) return error.message || errorCode(error) || error.name;
  return String(error);
}

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** The text on one line, its whitespace runs as single spaces, cut to `maxChars` with a mark of the cut. */
export function oneLine(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}

const snippet = (text: string) => oneLine(text, 300);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
