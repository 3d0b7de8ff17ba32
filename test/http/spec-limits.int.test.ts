import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import { startServer, type RunningServer } from "../../src/http/listen.js";
import { openTestApp } from "../helpers.js";

/**
 * The API's edges as an outside client meets them, over HTTP: a limit met exactly and passed by
 * one, measured alike by every endpoint that takes the same text, and text that can be spelt in
 * more than one Unicode form.
 */

let app: App;
let server: RunningServer;
let token: string;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the server answered
  body: any;
}

async function send(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
  const response = await request(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.statusCode, body: await response.body.json() };
}

beforeAll(async () => {
  app = await openTestApp();
  token = await app.users.rotateToken("default");
  server = await startServer(app, { host: "127.0.0.1", port: 0, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await app.close();
});

describe("a memory's text limit", () => {
  it("is counted on the trimmed text by an edit, as by a store: spaces around 20,000 characters do not push them over", async () => {
    const padded = `   ${"a".repeat(20_000)}   `;
    const stored = await send("POST", "/api/memory", { text: padded });
    expect(stored.status).toBe(200);
    const edited = await send("POST", "/api/v2/memory/update", { memoryId: stored.body.memoryId, text: ` ${"b".repeat(20_000)} ` });
    expect([edited.status, edited.body.memory?.text.length, edited.body.error]).toEqual([200, 20_000, undefined]);
    const over = await send("POST", "/api/v2/memory/update", { memoryId: stored.body.memoryId, text: "c".repeat(20_001) });
    expect([over.status, over.body.error]).toEqual([400, "text: must be at most 20000 characters"]);
    const spaces = await send("POST", "/api/v2/memory/update", { memoryId: stored.body.memoryId, text: "   " });
    expect([spaces.status, spaces.body.error]).toEqual([400, "text: must not be empty"]);
  });
});

describe("the conversation list's title filter", () => {
  it("is a partial match whichever way an accent is spelt, composed (é) or as e and a combining accent", async () => {
    const upload = (id: string, title: string) =>
      send("POST", "/api/chat-history/ingest/custom-online", {
        platform: "accents",
        conversation: { id, title, createdAt: "2025-01-01T00:00:00Z", messages: [{ id: "m1", role: "human", content: "hi" }] },
      });
    const composed = await upload("composed", "Café in Paris");
    const decomposed = await upload("decomposed", "Cre\u0300me bru\u0302le\u0301e recipe");
    expect([composed.status, decomposed.status]).toEqual([200, 200]);
    const found = async (title: string) =>
      (await send("GET", `/api/chat-history/chats?provider=accents&title=${encodeURIComponent(title)}`)).body.items.map(
        (item: { id: string }) => item.id,
      );
    expect(await found("cafe\u0301")).toEqual([composed.body.conversationId]);
    expect(await found("café")).toEqual([composed.body.conversationId]);
    expect(await found("crème brûlée")).toEqual([decomposed.body.conversationId]);
    expect(await found("CRE\u0300ME")).toEqual([decomposed.body.conversationId]);
  });
});
