import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli, serveStore, type ServedStore } from "../helpers.js";
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { callTool, httpClient, rest, textOf, type Connected } from "./mcp-helpers.js";

/** /mcp of `mnemo serve`: the same token, Host guard and per-user isolation as the REST API. */
let served: ServedStore;
let bobToken: string;
let alice: Connected;
let bob: Connected;
let aliceMemory: string;
let aliceChat: string;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function post(
  headers: Record<string, string>,
  body: unknown = INITIALIZE,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${served.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body instanceof Buffer ? body : JSON.stringify(body));
  });
}

beforeAll(async () => {
  served = await serveStore();
  const added = await runCli(["--json", "users", "add", "bob"], { env: isolatedEnv({ MNEMO_STORE: served.dataDir }) });
  expect(added.code, added.stderr).toBe(0);
  bobToken = JSON.parse(added.stdout).token;
  aliceMemory = (await rest(served, served.token, "POST", "/api/memory", { text: "2025-01-02 Alice prefers window seats" })).body.memoryId;
  await rest(served, bobToken, "POST", "/api/memory", { text: "2025-01-03 Bob prefers aisle seats" });
  const imported = await runCli(["--json", "import", path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip")], { env: served.env });
  expect(imported.code, imported.stderr).toBe(0);
  aliceChat = (await rest(served, served.token, "GET", "/api/chat-history/chats?pageSize=1")).body.items[0].id;
  [alice, bob] = await Promise.all([httpClient(served.url, served.token), httpClient(served.url, bobToken)]);
}, 180_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await served?.stop();
});

describe("/mcp", () => {
  it("answers only a good bearer token, and only on a Host it owns", async () => {
    const ok = await post({ authorization: `Bearer ${served.token}` });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({
      result: { serverInfo: { name: "mnemo" }, capabilities: { tools: {}, resources: {}, prompts: {} } },
    });
    expect(await post({})).toMatchObject({ status: 401, body: expect.stringMatching(/Missing API token/) });
    expect(await post({ authorization: "Bearer nope" })).toMatchObject({ status: 401, body: expect.stringMatching(/Invalid API token/) });
    await expect(httpClient(served.url, "nope")).rejects.toThrow(/Invalid API token/);
    const rebinding = await post({ authorization: `Bearer ${served.token}`, host: "attacker.example" });
    expect(rebinding).toMatchObject({ status: 403, body: expect.stringMatching(/host attacker\.example is not allowed/) });
  });

  it("answers a request whose _meta the SDK's schema refuses with its id and -32602 naming the field (it was -32700 with no id)", async () => {
    const call = { name: "search_chat_history", arguments: { query: "x" } };
    const answer = await post(
      { authorization: `Bearer ${served.token}` },
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { ...call, _meta: "x" } },
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32602, message: 'params._meta: must be an object, not "x"' },
    });
    const token = await post(
      { authorization: `Bearer ${served.token}` },
      { jsonrpc: "2.0", id: "t", method: "tools/call", params: { ...call, _meta: { progressToken: {} } } },
    );
    expect(JSON.parse(token.body)).toMatchObject({
      id: "t",
      error: { code: -32602, message: expect.stringMatching(/^params\._meta\.progressToken: /) },
    });
  });

  it("answers each member of a batch, a malformed one with its id (or null) beside the others' results, where the SDK answered the whole batch -32700 with no id", async () => {
    const auth = { authorization: `Bearer ${served.token}` };
    const batch = [
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "list_buckets", arguments: {}, _meta: "x" } },
      { jsonrpc: "2.0", id: 6, method: "ping" },
      1,
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ];
    const answer = await post(auth, batch);
    expect(answer.status).toBe(200);
    const answers = JSON.parse(answer.body) as { id: unknown }[];
    expect(answers.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
      { jsonrpc: "2.0", id: 5, error: { code: -32602, message: 'params._meta: must be an object, not "x"' } },
      { jsonrpc: "2.0", id: 6, result: {} },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "message: must be an object, not 1" } },
    ]);
    // Nothing but malformed members: their answers alone. An empty batch is one error (JSON-RPC 2.0 §6).
    expect(JSON.parse((await post(auth, [1])).body)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "message: must be an object, not 1" } },
    ]);
    expect(await post(auth, [])).toMatchObject({ status: 400, body: expect.stringContaining('"code":-32600') });
  });

  it("checks the Accept and Content-Type headers before the body, as the SDK does: a body's answer came first", async () => {
    const auth = { authorization: `Bearer ${served.token}` };
    const malformed = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "list_buckets", _meta: "x" } };
    for (const body of [malformed, Buffer.from("{not json"), [malformed]]) {
      const wrongAccept = await post({ ...auth, accept: "application/json" }, body);
      expect([wrongAccept.status, JSON.parse(wrongAccept.body).error.code]).toEqual([406, -32000]);
      const wrongType = await post({ ...auth, "content-type": "text/plain" }, body);
      expect([wrongType.status, JSON.parse(wrongType.body).error.code]).toEqual([415, -32000]);
    }
    const notJson = await post(auth, Buffer.from("{not json"));
    expect([notJson.status, JSON.parse(notJson.body)]).toEqual([
      400,
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not a JSON-RPC message" } },
    ]);
  });

  it("has no server-sent stream or session to open or end", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${served.url}/mcp`, { method, headers: { authorization: `Bearer ${served.token}` } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    }
  });

  it("shows each user their own data only, tools and resources alike", async () => {
    const aliceSees = await callTool(alice, "search_memories", { query: "seats" });
    const bobSees = await callTool(bob, "search_memories", { query: "seats" });
    const texts = (result: typeof aliceSees) => (result.structuredContent as { memories: { text: string }[] }).memories.map((m) => m.text);
    expect(texts(aliceSees)).toEqual(["2025-01-02 Alice prefers window seats"]);
    expect(texts(bobSees)).toEqual(["2025-01-03 Bob prefers aisle seats"]);

    expect((await callTool(bob, "list_conversations")).structuredContent).toMatchObject({ total: 0, items: [] });
    expect((await callTool(bob, "chat_history_overview")).structuredContent).toMatchObject({ conversations: 0, platforms: [] });
    expect((await callTool(alice, "chat_history_overview")).structuredContent).toMatchObject({ conversations: 4 });
    expect(textOf(await callTool(bob, "get_full_conversation", { conversationId: aliceChat }))).toMatch(/^conversation \S+ not found/);
    expect((await callTool(bob, "search_chat_history", { query: "tram 28" })).structuredContent).toMatchObject({ results: [] });

    const move = await callTool(bob, "update_or_move_memories", { memoryIds: [aliceMemory], bucketName: "Stolen" });
    expect(textOf(move)).toMatch(/^Some memory IDs could not be resolved: mem_/);
    expect((await callTool(bob, "update_or_move_memories", { memoryId: aliceMemory, text: "mine now" })).isError).toBe(true);
    expect((await callTool(bob, "delete_memories", { memoryIds: [aliceMemory] })).structuredContent).toMatchObject({ deletedCount: 0 });
    expect(texts(await callTool(alice, "search_memories", { query: "seats" }))).toEqual(["2025-01-02 Alice prefers window seats"]);

    const bobResources = (await bob.client.listResources()).resources.map((r) => r.uri);
    expect(bobResources).toEqual(["mnemo://buckets", "mnemo://buckets/1"]);
    await expect(bob.client.readResource({ uri: `mnemo://conversations/${aliceChat}` })).rejects.toThrow(/not found/);
    const aliceResources = (await alice.client.listResources()).resources.map((r) => r.uri);
    expect(aliceResources).toContain(`mnemo://conversations/${aliceChat}`);
  });

  it("keeps users apart with their calls interleaved", async () => {
    const rounds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => callTool(i % 2 ? bob : alice, "get_memories_and_buckets", { count: 5 })),
    );
    rounds.forEach((result, i) => {
      const [memory] = (result.structuredContent as { memories: { text: string }[] }).memories;
      expect(memory?.text).toMatch(i % 2 ? /Bob/ : /Alice/);
    });
  });

  it("answers 401 with a Bearer challenge whose metadata says: a bearer token in the header, no authorization server to get one from", async () => {
    const missing = await post({});
    expect(missing.headers["www-authenticate"]).toBe(
      `Bearer realm="mnemo", resource_metadata="${served.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    const wrong = await post({ authorization: "Bearer nope" });
    expect(wrong.headers["www-authenticate"]).toMatch(
      /^Bearer realm="mnemo", resource_metadata="[^"]+\/mcp", error="invalid_token", error_description="/,
    );
    const api = await fetch(`${served.url}/api/buckets`);
    expect(api.headers.get("www-authenticate")).toBe(
      `Bearer realm="mnemo", resource_metadata="${served.url}/.well-known/oauth-protected-resource"`,
    );

    // What an MCP client does with it, through the SDK's own discovery: the metadata, and in it no authorization server.
    const params = extractWWWAuthenticateParams(await fetch(`${served.url}/mcp`, { method: "POST", body: "{}" }));
    expect(params.resourceMetadataUrl?.href).toBe(`${served.url}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await discoverOAuthProtectedResourceMetadata(new URL("/mcp", served.url), {
      resourceMetadataUrl: params.resourceMetadataUrl!,
    });
    expect(metadata).toEqual({
      resource: `${served.url}/mcp`,
      resource_name: "mnemo (MCP)",
      bearer_methods_supported: ["header"],
      resource_documentation: `${served.url}/openapi.json`,
    });
    expect(metadata.authorization_servers).toBeUndefined();
    const root = await (await fetch(`${served.url}/.well-known/oauth-protected-resource`)).json();
    expect(root).toMatchObject({ resource: served.url, bearer_methods_supported: ["header"] });
    // There is no authorization server here to find.
    expect((await fetch(`${served.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    // And the SDK's client, given no token, stops at the 401 instead of going anywhere else.
    await expect(httpClient(served.url, "")).rejects.toThrow(/401|Unauthorized|Missing API token/);
  });

  it("lives on when a client goes away in the middle of a call", async () => {
    const call = (signal?: AbortSignal) =>
      fetch(`${served.url}/mcp`, {
        method: "POST",
        signal,
        headers: {
          authorization: `Bearer ${served.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "recall_chat_history", arguments: { query: "tram 28 Lisbon" } },
        }),
      });
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const pending = call(controller.signal).catch((error: Error) => error);
      setTimeout(() => controller.abort(), 5 * i);
      await pending;
    }
    const answer = await call();
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    expect(await (await fetch(`${served.url}/healthz`)).json()).toEqual({ ok: true });
  });

  it("lists resources a page at a time, with a cursor to the next until none is left", async () => {
    const added = await runCli(["--json", "users", "add", "carol"], { env: isolatedEnv({ MNEMO_STORE: served.dataDir }) });
    const carolToken = JSON.parse(added.stdout).token as string;
    // Uploaded together, they are stored together (group commit): one at a time took ~1 s each on a busy machine.
    const uploads = Array.from({ length: 55 }, (_, i) => ({
      platform: "notes",
      conversation: {
        id: `n${i}`,
        title: `Note ${i}`,
        createdAt: `2025-01-01T00:00:${String(i).padStart(2, "0")}Z`,
        messages: [{ id: "m1", role: "human", content: `note number ${i}` }],
      },
    }));
    const answers = await Promise.all(
      uploads.map((upload) => rest(served, carolToken, "POST", "/api/chat-history/ingest/custom-online", upload)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(uploads.map(() => 200));
    const carol = await httpClient(served.url, carolToken);
    try {
      const first = await carol.client.listResources();
      const conversations = (page: typeof first) => page.resources.filter((r) => r.uri.startsWith("mnemo://conversations/"));
      expect(first.resources.slice(0, 2).map((r) => r.uri)).toEqual(["mnemo://buckets", "mnemo://buckets/1"]);
      expect(conversations(first)).toHaveLength(50);
      expect(first.nextCursor).toBe("conversations:2");
      const second = await carol.client.listResources({ cursor: first.nextCursor! });
      expect(second.resources.every((r) => r.uri.startsWith("mnemo://conversations/"))).toBe(true);
      expect(conversations(second)).toHaveLength(5);
      expect(second.nextCursor).toBeUndefined();
      const all = new Set([...conversations(first), ...conversations(second)].map((r) => r.name));
      expect(all.size).toBe(55);
    } finally {
      await carol.close();
    }
  });
});
