import http from "node:http";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import { startServer, type RunningServer } from "../../src/http/listen.js";
import { openTestApp } from "../helpers.js";

let app: App;
let server: RunningServer;
let token: string;

beforeAll(async () => {
  app = await openTestApp();
  token = await app.users.rotateToken("default");
  server = await startServer(app, { host: "127.0.0.1", port: 0, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await app.close();
});

/** An upload of `count` short messages (~3 tokens each, or none), as bytes. */
const upload = (id: string, count: number, empty = false) =>
  Buffer.from(
    JSON.stringify({
      conversation: {
        id,
        title: "Many tiny messages",
        createdAt: "2024-03-01T09:00:00Z",
        messages: Array.from({ length: count }, (_, i) => ({
          id: `m${i}`,
          role: i % 2 ? "assistant" : "human",
          content: empty ? "" : `note ${i}`,
        })),
      },
    }),
  );

async function send(body: Buffer, headers: Record<string, string> = {}) {
  const response = await request(`${server.url}/api/chat-history/ingest/custom-online`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.statusCode, body: (await response.body.json()) as { error?: string; field?: string } };
}

describe("an upload over 100,000 tokens is refused as it arrives", () => {
  it("answers 400 naming conversation.messages while the client has sent only part of the body, and stores nothing", async () => {
    const bytes = upload("huge", 150_000); // ~8 MB, ~450,000 tokens; 100,000 are in its first ~2 MB
    const part = bytes.subarray(0, 4 * 1024 * 1024);
    // Half the body, then nothing: a server that needs all of it before answering never answers.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/api/chat-history/ingest/custom-online`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": String(bytes.length) },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: text });
        });
      });
      req.on("error", reject);
      req.write(part);
    });
    expect(status).toBe(400);
    expect(JSON.parse(body).field).toBe("conversation.messages");
    expect(await app.context.store.count("conversations", "true")).toBe(0);
  });

  it("refuses one sent with its length the same, small or large, and takes one within the limit", async () => {
    for (const count of [60_000, 150_000]) {
      const answer = await send(upload(`c${count}`, count));
      expect([answer.status, answer.body.field]).toEqual([400, "conversation.messages"]);
    }
    const ok = await send(upload("fine", 20_000, true)); // over 1 MB, so read as it arrives; nothing to embed

    expect(ok.status).toBe(200);
    expect((await send(upload("fine-again", 2))).status).toBe(200);
    expect(await app.context.store.count("conversations", "true")).toBe(2);
  });
});
