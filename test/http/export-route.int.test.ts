import { gunzipSync } from "node:zlib";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import { startServer, type RunningServer } from "../../src/http/listen.js";
import { openTestApp } from "../helpers.js";

let app: App;
let server: RunningServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  app = await openTestApp();
  await app.users.add("alice");
  await app.users.add("bob");
  alice = await app.users.rotateToken("alice");
  bob = await app.users.rotateToken("bob");
  await (await app.service("alice")).memories.store({ text: "alice's own memory" });
  await (await app.service("bob")).memories.store({ text: "bob's own memory" });
  server = await startServer(app, { host: "127.0.0.1", port: 0, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await app.close();
});

async function get(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const response = await request(`${server.url}${path}`, { headers });
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

describe("GET /api/export", () => {
  it("streams the token's user's export as JSON Lines, and nobody else's", async () => {
    const { status, headers, body } = await get("/api/export", { authorization: `Bearer ${alice}` });
    expect(status).toBe(200);
    expect(headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    expect(headers["content-disposition"]).toMatch(/^attachment; filename="mnemo-export-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    const lines = body
      .toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ format: "mnemo-export", version: 1, scope: "user", vectors: true });
    expect(lines[1]).toMatchObject({ type: "user", name: "alice" });
    expect(lines.filter((line) => line.type === "memory").map((line) => line.text)).toEqual(["alice's own memory"]);
    expect(lines.at(-1)).toEqual({ type: "end", records: { user: 1, bucket: 1, memory: 1 } });
    expect(body.toString()).not.toContain("bob");
  });

  it("compresses with Accept-Encoding: gzip, leaves vectors out with vectors=false, and checks its query", async () => {
    const zipped = await get("/api/export?vectors=false", { authorization: `Bearer ${bob}`, "accept-encoding": "gzip" });
    expect(zipped.status).toBe(200);
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    const text = gunzipSync(zipped.body).toString("utf8");
    expect(text).toContain("bob's own memory");
    expect(text).not.toContain('"vector"');
    expect(JSON.parse(text.split("\n")[0]!)).toMatchObject({ vectors: false });
    const bad = await get("/api/export?vectors=maybe", { authorization: `Bearer ${bob}` });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString())).toMatchObject({ field: "vectors" });
    expect((await get("/api/export", {})).status).toBe(401);
  });

  it("is documented in /openapi.json as a stream of JSON lines", async () => {
    const doc = JSON.parse((await get("/openapi.json", {})).body.toString());
    const operation = doc.paths["/api/export"].get;
    expect(operation.tags).toEqual(["mnemo additions"]);
    expect(Object.keys(operation.responses["200"].content)).toEqual(["application/x-ndjson"]);
    expect(operation.parameters).toEqual([expect.objectContaining({ name: "vectors", in: "query" })]);
    expect(operation.responses["503"].description).toMatch(/damaged/);
  });
});
