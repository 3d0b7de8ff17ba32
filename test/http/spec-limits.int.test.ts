import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import { startServer, type RunningServer } from "../../src/http/listen.js";
import { openTestApp } from "../helpers.js";

/**
 * Limits of the API met exactly and passed by one, over HTTP, where two endpoints take the same
 * text: the same text is measured the same way by each.
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
