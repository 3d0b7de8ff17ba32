import { request } from "undici";
import { describe, expect, it } from "vitest";
import { serveStore, type ServedStore } from "../helpers.js";

/**
 * The soak's correctness check, short (test/bench/soak.mjs runs it for a minute under load): a
 * server killed with kill -9 while writes arrive, started again on the same store, holds every
 * write it acknowledged exactly once, and the upload it acknowledged, indexed.
 */

async function post(served: ServedStore, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(`${served.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

async function get<T>(served: ServedStore, path: string): Promise<T> {
  const res = await request(`${served.url}${path}`, { headers: { authorization: `Bearer ${served.token}` } });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as T;
}

describe("kill -9 under load", () => {
  it("keeps every acknowledged write exactly once, and the acknowledged upload once and indexed", async () => {
    const first = await serveStore({ spawn: true });
    const upload = await post(first, "/api/chat-history/ingest/custom-online", {
      conversation: {
        id: "before-the-crash",
        title: "Before the crash",
        createdAt: "2024-03-01T09:00:00Z",
        messages: [
          { id: "m1", role: "human", content: "Which tram goes up to the castle?" },
          { id: "m2", role: "assistant", content: "Tram 28, through Alfama." },
        ],
      },
    });
    expect(upload.status).toBe(200);

    const acknowledged = new Set<string>();
    let serving = true;
    let next = 0;
    const writers = Array.from({ length: 8 }, async () => {
      while (serving) {
        const text = `crash-test write ${next++}`;
        const answer = await post(first, "/api/memory", { text }).catch(() => undefined);
        if (!answer) return; // the server is gone
        expect(answer.status).toBe(200);
        acknowledged.add(text);
      }
    });
    while (acknowledged.size < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    await first.kill();
    serving = false;
    await Promise.all(writers);

    const second = await serveStore({ store: first.dataDir });
    try {
      const stored = await get<string[]>(second, "/api/memory?all=true&v=1");
      const counts = new Map<string, number>();
      for (const text of stored) counts.set(text, (counts.get(text) ?? 0) + 1);
      for (const text of acknowledged) expect(counts.get(text), text).toBe(1);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect((await post(second, "/api/memory", { text: "after the restart" })).status).toBe(200);

      let status = "";
      for (let i = 0; i < 300 && status !== "ready"; i++) {
        status = (await get<{ status: string }>(second, `/api/chat-history/conversation?conversationId=${upload.json["conversationId"]}`))
          .status;
        if (status !== "ready") await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe("ready");
      expect((await get<{ count: number }>(second, "/api/chat-history/count")).count).toBe(1);
    } finally {
      await second.stop();
    }
  });
});
