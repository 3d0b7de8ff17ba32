import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import { startServer, type RunningServer } from "../../src/http/listen.js";
import { openTestApp, settled } from "../helpers.js";

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

/** An upload of `count` short messages (~3 tokens each), as bytes. */
const upload = (id: string, count: number) =>
  Buffer.from(
    JSON.stringify({
      conversation: {
        id,
        title: "Many tiny messages",
        createdAt: "2024-03-01T09:00:00Z",
        messages: Array.from({ length: count }, (_, i) => ({
          id: `m${i}`,
          role: i % 2 ? "assistant" : "human",
          content: `note ${i}`,
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
  const answer = (await response.body.json()) as {
    error?: string;
    field?: string;
    conversationId?: string;
    conversation?: { status: string };
  };
  return { status: response.statusCode, body: answer };
}

describe("an upload over 100,000 tokens is taken and rejected in the background (spec §3, §4.3)", () => {
  it("answers 200 queued, whatever its size; the index worker rejects it with the reason; one within the limit is ready", async () => {
    // 60,000 tiny messages are ~3 MB, read as they arrive; 150,000 are ~8 MB, ~450,000 tokens.
    const ids: string[] = [];
    for (const count of [60_000, 150_000]) {
      const answer = await send(upload(`c${count}`, count));
      expect([answer.status, answer.body.conversation?.status]).toEqual([200, "queued"]);
      ids.push(answer.body.conversationId!);
    }
    const ok = await send(upload("fine", 2));
    expect(ok.status).toBe(200);
    const service = await app.service();
    await settled(service);
    for (const id of ids) {
      const detail = await service.conversations.get(id);
      expect(detail.status).toBe("rejected");
      expect(detail.statusReason).toMatch(/tokens, over the limit of 100,000 a conversation may have/);
    }
    expect((await service.conversations.get(ok.body.conversationId!)).status).toBe("ready");
  });

  it("still answers 400 naming the field when the body is no upload", async () => {
    const bytes = Buffer.from(upload("robot", 60_000).toString().replace('"role":"human"', '"role":"robot"')); // read as it arrives
    const answer = await send(bytes);
    expect([answer.status, answer.body.field]).toEqual([400, "conversation.messages[0].role"]);
  });
});
