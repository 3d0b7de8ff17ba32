import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../../src/shared/errors.js";
import { createLlmReranker, inBatches, parseRatings, ratingMessages } from "../../../src/providers/llm/llm-reranker.js";
import { loadTokenizer } from "../../../src/text/tokens.js";
import { openAppWithChats } from "../../helpers.js";

/**
 * A chat-completions server that rates like a model asked to: every passage `[n] …` in the prompt
 * gets 9 when it holds `favourite`, else 1. `reply` replaces the ratings with a fixed answer.
 */
class RatingServer {
  favourite = "";
  reply: string | undefined;
  readonly prompts: string[] = [];
  private readonly server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const request = JSON.parse(body) as { model: string; messages: { content: string }[] };
      const prompt = request.messages[1]!.content;
      this.prompts.push(prompt);
      const passages = [...prompt.matchAll(/^\[(\d+)\] (.*)$/gm)];
      const ratings = passages.map(([, n, text]) => `${n}: ${this.favourite && text!.includes(this.favourite) ? 9 : 1}`).join("\n");
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ model: request.model, choices: [{ index: 0, message: { role: "assistant", content: this.reply ?? ratings } }] }),
      );
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A base URL nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const server = new RatingServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.favourite = "";
  server.reply = undefined;
  server.prompts.length = 0;
});

describe("parseRatings", () => {
  it("reads the forms models write, one per line or on one line", () => {
    expect([...parseRatings("1: 7\n2: 0\n3: 10", 3)]).toEqual([
      [1, 7],
      [2, 0],
      [3, 10],
    ]);
    expect([...parseRatings("[1] 8\n[2]: 3\n- Passage 3 - 6/10", 3)]).toEqual([
      [1, 8],
      [2, 3],
      [3, 6],
    ]);
    expect([...parseRatings('{"1": 4, "2": 9.5}', 2)]).toEqual([
      [1, 4],
      [2, 9.5],
    ]);
    expect([...parseRatings("1: 7, 2: 2; 3: 5", 3)]).toEqual([
      [1, 7],
      [2, 2],
      [3, 5],
    ]);
  });

  it("ignores numbers outside the passages, ratings outside 0–10, repeats and prose", () => {
    expect([...parseRatings("4: 9\n1: 11\n2: 6\n2: 1\nPassage two is best.", 3)]).toEqual([[2, 6]]);
    expect(parseRatings("I cannot rate these.", 3).size).toBe(0);
    expect(parseRatings("37", 5).size).toBe(0);
  });
});

describe("ratingMessages and inBatches", () => {
  it("numbers the passages on one line each, after the query", () => {
    const [system, user] = ratingMessages(" snake food ", ["Monty\nate a mouse.", "It  was\tthawed."]);
    expect(system!.content).toContain("`n: rating`");
    expect(user!.content).toBe("Query: snake food\n\nPassages:\n[1] Monty ate a mouse.\n[2] It was thawed.");
  });

  it("fills each request up to ~1,900 passage tokens and 10 passages, whatever size the chunks are", async () => {
    const tokenizer = await loadTokenizer();
    const sizes = (passages: string[]) => inBatches(passages, tokenizer).map((batch) => batch.length);
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 50}`).join(" ");
    expect(sizes(Array.from({ length: 25 }, (_, i) => `filler ${i}`))).toEqual([10, 10, 5]);
    const chunk192 = words(95); // a full chunk of today's size: ~190 tokens
    expect(tokenizer.count(chunk192)).toBeLessThanOrEqual(192);
    expect(sizes(Array(25).fill(chunk192))).toEqual([10, 10, 5]);
    const chunk512 = words(255);
    expect(sizes(Array(7).fill(chunk512))).toEqual([3, 3, 1]);
    // One text longer than a whole request goes alone, cut so that it fits.
    const [[alone], [next]] = inBatches([words(3_000), "short"], tokenizer) as [[string], [string]];
    expect(tokenizer.count(alone)).toBeLessThanOrEqual(1_901);
    expect(alone.endsWith("…")).toBe(true);
    expect(next).toBe("short");
  });
});

describe("the llm reranker against a local chat-completions server", () => {
  const options = () => ({ baseUrl: server.baseUrl, model: "rater", timeoutMs: 2_000, retries: 0 });

  it("scores every passage by its rating out of 10, ten passages to a request", async () => {
    server.favourite = "heat mat";
    const passages = Array.from({ length: 25 }, (_, i) => (i === 17 ? "I bought a new heat mat." : `filler ${i}`));
    const reranker = createLlmReranker(options());
    expect(reranker.id).toBe("llm:rater");
    const scores = await reranker.rerank("snake", passages);
    expect(scores).toHaveLength(25);
    expect(scores[17]).toBe(0.9);
    expect(scores.filter((score) => score === 0.1)).toHaveLength(24);
    expect(server.prompts).toHaveLength(3);
    expect(server.prompts.map((prompt) => prompt.match(/^\[\d+\]/gm)!.length)).toEqual([10, 10, 5]);
  });

  it("counts a passage the model left out as unrelated, and fails when it rated none", async () => {
    server.reply = "2: 8";
    expect(await createLlmReranker(options()).rerank("q", ["a", "b", "c"])).toEqual([0, 0.8, 0]);

    server.reply = "These passages are all about snakes.";
    const error = await failure(createLlmReranker(options()).rerank("q", ["a", "b"]));
    expect(error.code).toBe("unavailable");
    expect(error.message).toBe(`The LLM endpoint at ${server.baseUrl} rated none of the passages: These passages are all about snakes.`);
    expect(error.suggestion).toContain("--no-rerank");
  });

  it("names the endpoint it cannot reach, and how to search without it", async () => {
    const baseUrl = await closedPortUrl();
    const error = await failure(createLlmReranker({ ...options(), baseUrl }).rerank("q", ["a", "b"]));
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain(`Cannot reach the LLM endpoint at ${baseUrl}`);
    expect(error.suggestion).toBe(
      "Check llm.baseUrl / MNEMO_LLM_BASE_URL, or search without reranking (`--no-rerank`, or skipRerank: true), or set reranker: none",
    );
  });
});

describe("search and recall with reranker: llm", () => {
  const chat = (id: string, title: string, turns: string[]) => ({
    platform: "chatgpt",
    conversation: {
      id,
      title,
      createdAt: "2024-02-10T10:00:00Z",
      messages: turns.map((content, i) => ({
        id: `${id}-${i}`,
        role: i % 2 ? ("assistant" as const) : ("human" as const),
        content,
        createdAt: `2024-02-10T10:0${i}:00Z`,
      })),
    },
  });
  const CHATS = [
    chat("snake", "Caring for my ball python", ["My ball python Monty has not eaten in three weeks.", "Check the warm side: 31 to 33 °C."]),
    chat("code", "Python list comprehension help", [
      "How do I flatten a list of lists in Python?",
      "Use [x for row in rows for x in row].",
    ]),
    chat("trip", "Kyoto in autumn", ["We are going to Kyoto in November.", "Tofuku-ji is best for autumn colours."]),
  ];

  const appRerankingWith = (baseUrl: string) =>
    openAppWithChats(CHATS, { reranker: "llm", llm: { baseUrl, model: "rater", timeoutMs: 2_000, retries: 0 } });

  it("orders search results by the model's ratings, ties in the fused order; skipRerank does not ask it", async () => {
    const { app, service } = await appRerankingWith(server.baseUrl);
    server.favourite = "Tofuku-ji";
    // The Kyoto chat is probably unrelated to "python" on the relevance scale: asked for, so that the model can put it first.
    const fused = (await service.search({ query: "python", skipRerank: true, includeUnrelated: true })).results;
    expect(fused[0]!.title).not.toBe("Kyoto in autumn");
    expect(server.prompts).toHaveLength(0);

    const reranked = await service.search({ query: "python", includeUnrelated: true });
    const titles = fused.map((r) => r.title);
    expect(reranked.results.map((r) => r.title)).toEqual(["Kyoto in autumn", ...titles.filter((title) => title !== "Kyoto in autumn")]);
    // The model orders; each hit keeps its score on the one relevance scale.
    const scoreOf = new Map(fused.map((r) => [r.title, r.score]));
    expect(reranked.results.map((r) => r.score)).toEqual(reranked.results.map((r) => scoreOf.get(r.title)));
    expect(server.prompts).toHaveLength(1);
    expect(server.prompts[0]).toContain("Query: python");
    await app.close();
  });

  it("fails a search when the endpoint is down, while recall goes on in the fused order and says so in model", async () => {
    const { app, service } = await appRerankingWith(await closedPortUrl());
    const error = await failure(service.search({ query: "python" }));
    expect(error.code).toBe("unavailable");
    expect(error.suggestion).toContain("--no-rerank");
    expect((await service.search({ query: "python", skipRerank: true })).results.length).toBeGreaterThan(0);

    const recalled = await service.recall({ query: "Kyoto temples", maxTokens: 200 });
    expect(recalled.content).toContain("Tofuku-ji");
    expect(recalled.model).toMatch(
      /^extractive, without reranking \(llm:rater failed: Cannot reach the LLM endpoint at http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
    await app.close();
  });
});
