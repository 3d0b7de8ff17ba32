import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { brackets, cite } from "../../../src/providers/synthesis/citations.js";
import { AppError } from "../../../src/shared/errors.js";
import { buildMessages, createOpenAiSynthesizer, type OpenAiSynthesizerOptions } from "../../../src/providers/synthesis/openai.js";
import type { SynthesisRequest } from "../../../src/providers/synthesis/synthesizer.js";

interface ChatRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    max_tokens: number;
    temperature: number;
  };
}

/** What the fake endpoint does with one valid request: answer (status + body + headers) or never answer. */
type Reply = { status?: number; body?: unknown; text?: string; headers?: Record<string, string> } | "hang";

/**
 * A tiny OpenAI-compatible chat-completions server on 127.0.0.1. It checks the request shape
 * (answering 400 when it is wrong, so a test sees it) and plays `replies` in order, repeating the last.
 */
class FakeChatServer {
  readonly requests: ChatRequest[] = [];
  replies: Reply[] = [];
  expectedToken: string | undefined;
  private readonly server: Server = createServer((req, res) => void this.handle(req, res));

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  reset(): void {
    this.requests.length = 0;
    this.replies = [];
    this.expectedToken = undefined;
    this.server.closeAllConnections();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const problem = this.validate(req, raw);
    if (problem) return send(res, 400, { error: { message: `fake server: ${problem}`, type: "invalid_request_error" } });
    const body = JSON.parse(raw) as ChatRequest["body"];
    this.requests.push({ method: req.method, url: req.url, headers: req.headers, body });
    if (this.expectedToken !== undefined && req.headers.authorization !== `Bearer ${this.expectedToken}`) {
      return send(res, 401, {
        error: { message: "Incorrect API key provided: sk-wr***ng", type: "invalid_request_error", code: "invalid_api_key" },
      });
    }
    const reply = this.replies[Math.min(this.requests.length - 1, this.replies.length - 1)] ?? {};
    if (reply === "hang") return; // never answers; the connection stays open
    if (reply.text !== undefined) {
      res.writeHead(reply.status ?? 200, { "content-type": "text/plain", ...reply.headers });
      return void res.end(reply.text);
    }
    send(res, reply.status ?? 200, reply.body ?? completion("ok [1]", body.model), reply.headers);
  }

  private validate(req: IncomingMessage, raw: string): string | undefined {
    if (req.method !== "POST") return `expected POST, got ${req.method}`;
    if (req.url !== "/v1/chat/completions") return `expected /v1/chat/completions, got ${req.url}`;
    if (!req.headers["content-type"]?.startsWith("application/json")) return "expected a JSON content-type";
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return "body is not JSON";
    }
    const { model, messages, max_tokens } = body as Record<string, unknown>;
    if (typeof model !== "string" || !model) return "model missing";
    if (typeof max_tokens !== "number" || !Number.isInteger(max_tokens) || max_tokens <= 0) return "max_tokens missing";
    if (!Array.isArray(messages) || messages.length === 0) return "messages missing";
    for (const message of messages as Array<Record<string, unknown>>) {
      if (!["system", "user", "assistant"].includes(String(message["role"])) || typeof message["content"] !== "string") {
        return "bad message";
      }
    }
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function completion(content: string | null, model: string) {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 },
  };
}

const REQUEST: SynthesisRequest = {
  query: "what did I decide about the database?",
  passages: [
    {
      n: 1,
      conversationId: "conv_backend",
      conversationTitle: "Backend planning",
      date: "2024-03-05T10:20:00.000Z",
      sender: "human",
      text: "Let's go with Postgres for the main store.",
      score: 0.9,
    },
    {
      n: 2,
      conversationId: "conv_backend",
      conversationTitle: "Backend planning",
      date: null,
      sender: "assistant",
      text: "Postgres works well; keep Redis for the cache.",
      score: 0.7,
    },
  ],
  maxTokens: 200,
};

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("expected the promise to reject");
}

describe("OpenAI-compatible synthesizer against a local chat-completions server", () => {
  const server = new FakeChatServer();
  const options = (extra: Partial<OpenAiSynthesizerOptions> = {}): OpenAiSynthesizerOptions => ({
    baseUrl: server.baseUrl,
    model: "test-model",
    timeoutMs: 5_000,
    retries: 2,
    ...extra,
  });

  beforeAll(() => server.start());
  afterEach(() => server.reset());
  afterAll(() => server.stop());

  it("returns the trimmed answer and the model the server reports, sending passages, query and settings", async () => {
    server.replies = [{ body: completion("  You chose Postgres [1], with Redis for caching [2].\n", "test-model-2024-06-01") }];
    const synthesizer = createOpenAiSynthesizer(options());
    expect(synthesizer.id).toBe("openai:test-model");

    const result = await synthesizer.synthesize(REQUEST);
    expect({ ...result, content: brackets(result.content) }).toEqual({
      content: "You chose Postgres [1], with Redis for caching [2].",
      model: "openai:test-model-2024-06-01",
    });

    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.body.model).toBe("test-model");
    expect(sent.body.max_tokens).toBe(200);
    expect(sent.body.temperature).toBe(0.2);
    expect(sent.body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const user = sent.body.messages[1]!.content;
    expect(user).toContain("[1] (Backend planning, 2024-03-05, user): Let's go with Postgres for the main store.");
    expect(user).toContain("[2] (Backend planning, undated, assistant): Postgres works well; keep Redis for the cache.");
    expect(user).toContain("Query: what did I decide about the database?");
    expect(sent.body.messages[0]!.content).toContain("Cite ONLY these passage numbers: 1, 2.");
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("sends the bearer token only when a key is set, and tolerates a trailing slash on the base URL", async () => {
    server.expectedToken = "sk-test-123";
    const withKey = createOpenAiSynthesizer(options({ apiKey: "sk-test-123", baseUrl: `${server.baseUrl}/` }));
    expect(brackets((await withKey.synthesize(REQUEST)).content)).toBe("ok [1]");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test-123");
    expect(server.requests[0]!.url).toBe("/v1/chat/completions");
  });

  it("falls back to the configured model when the server does not name one", async () => {
    const body = completion("Postgres [1].", "x") as Record<string, unknown>;
    delete body["model"];
    server.replies = [{ body }];
    const result = await createOpenAiSynthesizer(options()).synthesize(REQUEST);
    expect(result.model).toBe("openai:test-model");
  });

  it("retries a 429 with Retry-After: 0 and a 503, then succeeds", async () => {
    server.replies = [
      { status: 429, body: { error: { message: "Rate limit reached" } }, headers: { "retry-after": "0" } },
      { status: 503, body: { error: { message: "Model is loading" } } },
      { body: completion("Postgres [1].", "test-model") },
    ];
    const result = await createOpenAiSynthesizer(options({ retries: 2 })).synthesize(REQUEST);
    expect(brackets(result.content)).toBe("Postgres [1].");
    expect(server.requests).toHaveLength(3);
  });

  it("waits for a Retry-After given in seconds before trying again", async () => {
    server.replies = [
      { status: 429, body: { error: { message: "Rate limit reached" } }, headers: { "retry-after": "1" } },
      { body: completion("Postgres [1].", "test-model") },
    ];
    const started = performance.now();
    await createOpenAiSynthesizer(options({ retries: 1 })).synthesize(REQUEST);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(server.requests).toHaveLength(2);
  });

  it("gives up after `retries` retries with an unavailable error naming the endpoint and the status", async () => {
    server.replies = [{ status: 500, body: { error: { message: "upstream exploded" } } }];
    const error = await failure(createOpenAiSynthesizer(options({ retries: 2 })).synthesize(REQUEST));
    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain(server.baseUrl);
    expect(error.message).toContain("500");
    expect(error.message).toContain("upstream exploded");
    expect(error.message).toContain("3 attempts");
    expect(error.suggestion).toMatch(/extractive/);
  });

  it("does not retry a 401 and surfaces the server's message", async () => {
    server.expectedToken = "sk-right";
    const error = await failure(createOpenAiSynthesizer(options({ apiKey: "sk-wrong", retries: 3 })).synthesize(REQUEST));
    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain("401");
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.message).toContain(server.baseUrl);
    expect(error.suggestion).toMatch(/apiKey/);
  });

  it("does not retry another 4xx (unknown model)", async () => {
    server.replies = [{ status: 404, body: { error: { message: "model 'nope' not found, try pulling it first" } } }];
    const error = await failure(createOpenAiSynthesizer(options({ model: "nope" })).synthesize(REQUEST));
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain("404");
    expect(error.message).toContain("model 'nope' not found");
    expect(error.suggestion).toMatch(/llm\.model/);
  });

  it("shows a plain-text error body and reports a non-JSON success as unavailable", async () => {
    server.replies = [{ status: 400, text: "Bad Request: context length exceeded" }];
    const error = await failure(createOpenAiSynthesizer(options()).synthesize(REQUEST));
    expect(error.message).toContain("400: Bad Request: context length exceeded");

    server.reset();
    server.replies = [{ status: 200, text: "<html>proxy login</html>" }];
    const html = await failure(createOpenAiSynthesizer(options()).synthesize(REQUEST));
    expect(html.code).toBe("unavailable");
    expect(html.message).toMatch(/not JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it("reports an answer without content as unavailable, without retrying", async () => {
    server.replies = [{ body: completion("   ", "test-model") }];
    const error = await failure(createOpenAiSynthesizer(options()).synthesize(REQUEST));
    expect(error.code).toBe("unavailable");
    expect(error.message).toMatch(/returned no content/);
    expect(server.requests).toHaveLength(1);

    server.replies = [{ body: { ...completion(null, "test-model"), choices: [] } }];
    const empty = await failure(createOpenAiSynthesizer(options()).synthesize(REQUEST));
    expect(empty.message).toMatch(/returned no content/);
  });

  it("fails fast with unavailable when nothing listens on the port", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const baseUrl = `http://127.0.0.1:${port}/v1`;

    const started = performance.now();
    const error = await failure(createOpenAiSynthesizer(options({ baseUrl, timeoutMs: 10_000, retries: 1 })).synthesize(REQUEST));
    const elapsed = performance.now() - started;

    expect(error.code).toBe("unavailable");
    expect(error.message).toContain(`Cannot reach the LLM endpoint at ${baseUrl}`);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.suggestion).toBe("Check llm.baseUrl / MNEMO_LLM_BASE_URL, or use the extractive synthesizer (synthesizer: extractive)");
    // One retry after a jittered 250–500 ms backoff: far below the 10 s timeout.
    expect(elapsed).toBeLessThan(2_000);
  });

  it("times out per timeoutMs against a server that never answers, and does not ask it again", async () => {
    server.replies = ["hang", "hang"];
    const started = performance.now();
    const error = await failure(createOpenAiSynthesizer(options({ timeoutMs: 300, retries: 1 })).synthesize(REQUEST));
    const elapsed = performance.now() - started;
    expect(error.code).toBe("unavailable");
    expect(error.message).toBe(`The LLM endpoint at ${server.baseUrl} did not answer within 300 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(server.requests).toHaveLength(1);
  });

  it("takes the citations the model wrote as citations, and brackets in its code as code", async () => {
    server.replies = [
      { body: completion("Slice it [1, 2]: `nums[0:2]` gives [1, 2] [2].\n```python\nprint([1, 2][0])\n```", "test-model") },
    ];
    const result = await createOpenAiSynthesizer(options()).synthesize(REQUEST);
    expect(result.content).toBe(
      `Slice it ${cite(1)}${cite(2)}: \`nums[0:2]\` gives ${cite(1)}${cite(2)} ${cite(2)}.\n\`\`\`python\nprint([1, 2][0])\n\`\`\``,
    );
  });
});

describe("buildMessages", () => {
  it("numbers the passages with title, day and speaker, and ends with the query", () => {
    const [system, user] = buildMessages(REQUEST);
    expect(system?.role).toBe("system");
    expect(user?.role).toBe("user");
    expect(user?.content).toBe(
      [
        "Passages:",
        "[1] (Backend planning, 2024-03-05, user): Let's go with Postgres for the main store.",
        "[2] (Backend planning, undated, assistant): Postgres works well; keep Redis for the cache.",
        "",
        "Query: what did I decide about the database?",
      ].join("\n"),
    );
    expect(system?.content).toMatch(/only what the passages say/i);
    expect(system?.content).toMatch(/Do not invent/);
    expect(system?.content).toContain("Cite ONLY these passage numbers: 1, 2.");
    expect(system?.content).toContain("under about 200 tokens");
  });

  it("adds the conversation context to disambiguate the query", () => {
    const [, user] = buildMessages({ ...REQUEST, conversationContext: "migrating the billing service" });
    expect(user?.content).toContain("The user is currently discussing: migrating the billing service");
    expect(user?.content.indexOf("currently discussing")).toBeLessThan(user?.content.indexOf("Query:") ?? 0);
    const [, without] = buildMessages(REQUEST);
    expect(without?.content).not.toContain("currently discussing");
  });

  it("lets the platform hint choose the format", () => {
    const systemFor = (platform?: SynthesisRequest["platform"]) => buildMessages({ ...REQUEST, platform })[0]!.content;
    expect(systemFor("chatgpt")).toContain("Markdown is allowed");
    expect(systemFor("claude")).toContain("Markdown is allowed");
    expect(systemFor("typingmind")).toContain("plain text only, no Markdown");
    expect(systemFor("typingmind")).not.toContain("Markdown is allowed");
    expect(systemFor(undefined)).toContain("plain prose");
    expect(systemFor(undefined)).not.toContain("Markdown is allowed");
  });

  it("is pure: the same request gives the same messages", () => {
    expect(buildMessages(REQUEST)).toEqual(buildMessages(structuredClone(REQUEST)));
  });
});
