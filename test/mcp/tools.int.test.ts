import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, serveStore, type ServedStore } from "../helpers.js";
import { ToolSchemas, type ToolName } from "../../src/schemas/tools.js";
import { loadTokenizer } from "../../src/text/tokens.js";
import { callTool, httpClient, rest, seed, stdioClient, textOf, timeless, type Connected, type RestAnswer } from "./mcp-helpers.js";

/**
 * Every tool against its REST twin on the same data: `mnemo serve` holds the store; the tools are
 * reached over stdio on that store (`mnemo mcp --store`), over HTTP at /mcp, and over stdio
 * through the server (`mnemo mcp --remote`).
 */
let served: ServedStore;
const clients: Record<string, Connected> = {};
let lisbon: string;

const api = (method: string, url: string, body?: unknown) => rest(served, served.token, method, url, body);

beforeAll(async () => {
  served = await serveStore();
  await seed(served, served.token);
  const [stdio, http, remote] = await Promise.all([
    stdioClient(["mcp", "--store", served.dataDir], isolatedEnv({ MNEMO_EMBEDDER: "bundled" })),
    httpClient(served.url, served.token),
    stdioClient(["mcp"], served.env),
  ]);
  Object.assign(clients, { stdio, http, remote });
  const listed = (await api("GET", "/api/chat-history/chats?title=Lisbon")).body;
  lisbon = listed.items[0].id;
}, 180_000);

afterAll(async () => {
  for (const connected of Object.values(clients)) await connected.close();
  await served?.stop();
});

type Twin = [tool: string, args: Record<string, unknown>, method: string, url: string, body?: unknown];

describe("each tool answers as its REST twin does", () => {
  it("reads: the same structured result (narrowed to the tool's output schema), and a text part that carries the ids", async () => {
    const twins: Twin[] = [
      ["search_memories", { query: "train seats" }, "GET", "/api/v2/memory?query=train%20seats&includeIds=true"],
      [
        "search_memories",
        { query: "piano", count: 1, bucketId: 1 },
        "GET",
        "/api/v2/memory?query=piano&count=1&bucketId=1&includeIds=true",
      ],
      ["get_memories_and_buckets", {}, "GET", "/api/v2/memory?includeIds=true"],
      ["get_memories_and_buckets", { all: true, skip: 1 }, "GET", "/api/v2/memory?all=true&skip=1&includeIds=true"],
      ["list_buckets", {}, "GET", "/api/buckets"],
      [
        "recall_chat_history",
        { query: "is tram 28 worth it in Lisbon" },
        "POST",
        "/api/chat-history/inject",
        { query: "is tram 28 worth it in Lisbon" },
      ],
      [
        "recall_chat_history",
        { queries: [{ query: "sourdough" }, { query: "python KeyError", maxTokens: 200 }] },
        "POST",
        "/api/chat-history/inject",
        { queries: [{ query: "sourdough" }, { query: "python KeyError", maxTokens: 200 }] },
      ],
      ["search_chat_history", { query: "tram 28", limit: 3 }, "POST", "/api/chat-history/search", { query: "tram 28", limit: 3 }],
      ["list_conversations", {}, "GET", "/api/chat-history/chats"],
      [
        "list_conversations",
        { pageSize: 2, page: 2, provider: "chatgpt" },
        "GET",
        "/api/chat-history/chats?pageSize=2&page=2&provider=chatgpt",
      ],
      [
        "get_full_conversation",
        { conversationId: lisbon },
        "GET",
        `/api/chat-history/conversation?conversationId=${lisbon}&maxTokens=4000`,
      ],
      ["chat_history_overview", {}, "GET", "/api/chat-history/overview"],
    ];
    for (const [tool, args, method, url, body] of twins) {
      const twin = await api(method, url, body);
      expect(twin.status, `${method} ${url}`).toBe(200);
      // The long text is the text part's alone: the structured result is the twin's answer without it.
      const expected = timeless(ToolSchemas[tool as ToolName].output.parse(tool === "list_buckets" ? { buckets: twin.body } : twin.body));
      for (const [name, connected] of Object.entries(clients)) {
        const result = await callTool(connected, tool, args);
        expect(result.isError, `${tool} over ${name}: ${textOf(result)}`).toBeFalsy();
        expect(timeless(result.structuredContent), `${tool} over ${name}`).toEqual(expected);
      }
    }
    const overview = (await api("GET", "/api/chat-history/overview")).body;
    expect(overview.platforms.map((p: { platform: string }) => p.platform).sort()).toEqual(["chatgpt", "claude"]);
    expect(textOf(await callTool(clients["stdio"]!, "get_full_conversation", { conversationId: lisbon }))).toMatch(
      new RegExp(`^# Lisbon long weekend in May\\n${lisbon} · `),
    );
    const recall = textOf(await callTool(clients["http"]!, "recall_chat_history", { query: "is tram 28 worth it in Lisbon" }));
    expect(recall).toMatch(
      /\[1\][\s\S]*\n\nSources:\n\[1\] Lisbon long weekend in May · 2024-05-\d\d · (human|assistant) · conversation \S+ · message \S+/,
    );
  });

  it("writes: the same answer as the same write through REST", async () => {
    const [stdio, http] = [clients["stdio"]!, clients["http"]!];
    const stored = await callTool(stdio, "store_memory", { text: "2025-04-01 Book the Porto ferry", bucketId: 2 });
    expect(stored.structuredContent).toEqual({ done: "ok", memoryId: expect.stringMatching(/^mem_/) });
    const viaRest = await api("POST", "/api/memory", { text: "2025-04-02 Book the Lisbon tram pass", bucketId: 2 });
    expect(Object.keys(viaRest.body).sort()).toEqual(Object.keys(stored.structuredContent ?? {}).sort());
    const mine = (stored.structuredContent as { memoryId: string }).memoryId;
    const theirs = viaRest.body.memoryId as string;

    const created = await callTool(http, "create_bucket", { name: "Books" });
    const createdViaRest = await api("POST", "/api/buckets", { name: "Films" });
    const withoutBucket = ({ bucket, ...rest }: Record<string, unknown>) => ({
      ...rest,
      bucket: { ...(bucket as object), id: "?", name: "?" },
    });
    expect(withoutBucket(created.structuredContent ?? {})).toEqual(withoutBucket(createdViaRest.body));

    const edited = await callTool(stdio, "update_or_move_memories", { memoryId: mine, text: "2025-04-01 Book the Porto ferry early" });
    const editedViaRest = await api("POST", "/api/v2/memory/update", { memoryId: theirs, text: "2025-04-02 Book the tram pass early" });
    const shape = (answer: unknown) => {
      const { memory, ...rest } = answer as { memory: Record<string, unknown> };
      return { ...rest, memory: { version: memory["version"], bucketId: memory["bucketId"] } };
    };
    expect(shape(edited.structuredContent)).toEqual(shape(editedViaRest.body));
    expect(shape(edited.structuredContent)).toEqual({ success: true, memory: { version: 2, bucketId: 2 } });

    const moved = await callTool(http, "update_or_move_memories", { memoryIds: [mine], bucketName: "Books" });
    const movedViaRest = await api("POST", "/api/v2/memory/update", { memoryIds: [theirs], bucketName: "Books" });
    expect(moved.structuredContent).toEqual(movedViaRest.body);
    expect(movedViaRest.body).toEqual({ success: true, updated: 1, bucketId: 3 });

    const deleted = await callTool(stdio, "delete_memories", { memoryIds: [mine, "not-an-id"] });
    const deletedViaRest = await api("POST", "/api/memories/bulk-delete", { memoryIds: [theirs, "not-an-id"] });
    expect(deleted.structuredContent).toEqual(deletedViaRest.body);
    expect(deletedViaRest.body).toEqual({
      message: "Memories deleted",
      deletedCount: 1,
      errors: [{ memoryId: "not-an-id", error: "not a memory id" }],
    });
    expect(textOf(deleted)).toBe("Deleted 1 memory. Not deleted:\n- not-an-id: not a memory id");
  });

  it("bad arguments: isError with the message REST answers, and the server goes on", async () => {
    const memory = (await api("GET", "/api/v2/memory?includeIds=true&count=1")).body.memories[0].id as string;
    const bad: [tool: string, args: Record<string, unknown>, twin: () => Promise<RestAnswer>][] = [
      ["store_memory", { text: "" }, () => api("POST", "/api/memory", { text: "" })],
      ["store_memory", { text: "x", bucketId: 99 }, () => api("POST", "/api/memory", { text: "x", bucketId: 99 })],
      ["search_memories", { query: "x", count: 0 }, () => api("GET", "/api/v2/memory?query=x&count=0")],
      ["get_memories_and_buckets", { bucketId: 99 }, () => api("GET", "/api/v2/memory?bucketId=99")],
      ["create_bucket", { name: "Travel" }, () => api("POST", "/api/buckets", { name: "Travel" })],
      ["create_bucket", { name: "x".repeat(101) }, () => api("POST", "/api/buckets", { name: "x".repeat(101) })],
      ["update_or_move_memories", { memoryId: memory }, () => api("POST", "/api/v2/memory/update", { memoryId: memory })],
      [
        "update_or_move_memories",
        { memoryId: memory, memoryIds: [memory], bucketId: 1 },
        () => api("POST", "/api/v2/memory/update", { memoryId: memory, memoryIds: [memory], bucketId: 1 }),
      ],
      [
        "update_or_move_memories",
        { memoryIds: [memory, "mem_01AAAAAAAAAAAAAAAAAAAAAAAA"], bucketId: 1 },
        () => api("POST", "/api/v2/memory/update", { memoryIds: [memory, "mem_01AAAAAAAAAAAAAAAAAAAAAAAA"], bucketId: 1 }),
      ],
      [
        "update_or_move_memories",
        { memoryId: memory, bucketId: 42 },
        () => api("POST", "/api/v2/memory/update", { memoryId: memory, bucketId: 42 }),
      ],
      ["delete_memories", { memoryIds: [] }, () => api("POST", "/api/memories/bulk-delete", { memoryIds: [] })],
      [
        "recall_chat_history",
        { query: "x", queries: [{ query: "y" }] },
        () => api("POST", "/api/chat-history/inject", { query: "x", queries: [{ query: "y" }] }),
      ],
      [
        "recall_chat_history",
        { query: "x", platform: "msn" },
        () => api("POST", "/api/chat-history/inject", { query: "x", platform: "msn" }),
      ],
      [
        "search_chat_history",
        { query: "x", provider: "no such" },
        () => api("POST", "/api/chat-history/search", { query: "x", provider: "no such" }),
      ],
      ["search_chat_history", { query: "   " }, () => api("POST", "/api/chat-history/search", { query: "   " })],
      ["list_conversations", { page: 0 }, () => api("GET", "/api/chat-history/chats?page=0")],
      ["list_conversations", { dateTo: "yesterday" }, () => api("GET", "/api/chat-history/chats?dateTo=yesterday")],
      [
        "get_full_conversation",
        { conversationId: "conv_missing" },
        () => api("GET", "/api/chat-history/conversation?conversationId=conv_missing"),
      ],
    ];
    for (const [tool, args, twin] of bad) {
      const expected = await twin();
      expect(expected.status, `${tool} ${JSON.stringify(args)}`).toBeGreaterThanOrEqual(400);
      for (const [name, connected] of Object.entries(clients)) {
        const result = await callTool(connected, tool, args);
        expect(result.isError, `${tool} over ${name}`).toBe(true);
        expect(textOf(result).split("\n")[0], `${tool} ${JSON.stringify(args)} over ${name}`).toBe(
          expected.body.rejectedIds ? `${expected.body.error}: ${expected.body.rejectedIds.join(", ")}` : expected.body.error,
        );
      }
    }
    // Malformed beyond what a schema expects: still an answer, and the server still answers after.
    for (const args of [{ text: { nested: [1, [2, { deep: null }]] } }, { text: "x".repeat(20_001) }, { text: ["a"], bucketId: "1" }]) {
      expect((await callTool(clients["stdio"]!, "store_memory", args)).isError).toBe(true);
    }
    for (const connected of Object.values(clients)) {
      expect((await callTool(connected, "list_buckets")).isError, "alive after bad calls").toBeFalsy();
      expect(connected.errors).toEqual([]);
    }
  });
});

describe("answers sized for a model's context", () => {
  const words = "allotment tomatoes compost watering seedlings greenhouse frost mulch harvest beans".split(" ");
  const long = {
    platform: "custom",
    conversation: {
      id: "allotment-diary",
      title: "Allotment diary",
      createdAt: "2024-03-01T08:00:00Z",
      messages: Array.from({ length: 300 }, (_, i) => ({
        id: `day-${i}`,
        role: i % 2 ? "assistant" : "human",
        content: Array.from(
          { length: 6 },
          (_, k) => `Day ${i}: the ${words[(i + k) % 10]} and the ${words[(i * 3 + k) % 10]} needed work again.`,
        ).join(" "),
      })),
    },
  };
  let diary: string;
  const tokens = async (text: string) => (await loadTokenizer()).count(text);

  beforeAll(async () => {
    expect((await api("POST", "/api/chat-history/ingest/custom-online", long)).status).toBe(200);
    for (let i = 0; ; i++) {
      const { counts } = (await api("GET", "/api/chat-history/status")).body;
      if (counts.queued + counts.processing === 0) break;
      if (i > 1200) throw new Error("the queue did not empty");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    diary = (await api("GET", "/api/chat-history/chats?title=Allotment")).body.items[0].id;
  }, 180_000);

  it("get_full_conversation pages through a long conversation, each page under ~5,000 tokens, saying where the next begins", async () => {
    const whole = (await api("GET", `/api/chat-history/conversation?conversationId=${diary}`)).body;
    expect(await tokens(whole.messages.map((m: { text: string }) => m.text).join("\n"))).toBeGreaterThan(20_000);
    const seen: string[] = [];
    let offset = 0;
    for (let page = 0; page < 20; page++) {
      const result = await callTool(clients["stdio"]!, "get_full_conversation", { conversationId: diary, ...(offset ? { offset } : {}) });
      const text = textOf(result);
      expect(await tokens(text)).toBeLessThan(5_000);
      const structured = result.structuredContent as { messages: { id: string; text?: string }[]; nextOffset?: number; total: number };
      expect(structured.total).toBe(300);
      expect(structured.messages.every((m) => m.text === undefined)).toBe(true);
      seen.push(...structured.messages.map((m) => m.id));
      if (structured.nextOffset === undefined) {
        expect(text).toMatch(new RegExp(`Messages ${offset + 1}–300 of 300: the end of the conversation\\.$`));
        break;
      }
      expect(text).toMatch(
        new RegExp(
          `Messages ${offset + 1}–${structured.nextOffset} of 300\\. The rest: get_full_conversation with offset ${structured.nextOffset}\\.$`,
        ),
      );
      offset = structured.nextOffset;
    }
    expect(seen).toEqual(long.conversation.messages.map((m) => m.id));
    // A page asked of REST alone: offset and limit.
    const page = (await api("GET", `/api/chat-history/conversation?conversationId=${diary}&offset=298&limit=5`)).body;
    expect(page.messages.map((m: { message_index: number }) => m.message_index)).toEqual([298, 299]);
    expect(page.nextOffset).toBeUndefined();
  });

  it("search_chat_history and recall_chat_history stay under ~2,000 tokens of text by default, saying it once", async () => {
    const search = await callTool(clients["http"]!, "search_chat_history", { query: "allotment tomatoes compost" });
    expect(await tokens(textOf(search))).toBeLessThan(2_000);
    const structured = search.structuredContent as { results: Record<string, unknown>[] };
    expect(structured.results.length).toBeGreaterThan(0);
    for (const hit of structured.results) expect(Object.keys(hit)).not.toContain("text");
    const recall = await callTool(clients["http"]!, "recall_chat_history", { query: "what did I do about the tomatoes and compost?" });
    expect(await tokens(textOf(recall))).toBeLessThan(2_000);
    expect(Object.keys(recall.structuredContent ?? {})).not.toContain("content");
    expect((recall.structuredContent as { sources: unknown[] }).sources.length).toBeGreaterThan(0);
  });

  it("say plainly that nothing is stored about a question, on both tools", async () => {
    for (const query of ["zxqv blorptangle frobnicate", "what did my cardiologist say about the stent?"]) {
      const search = await callTool(clients["stdio"]!, "search_chat_history", { query });
      expect(textOf(search)).toMatch(/^Nothing found: no passage in the chat history is about /);
      expect((search.structuredContent as { results: unknown[] }).results).toEqual([]);
      const recall = await callTool(clients["remote"]!, "recall_chat_history", { query });
      expect(textOf(recall)).toBe("Nothing in your chat history is about this.");
      expect(recall.structuredContent).toMatchObject({ sources: [], model: "none" });
      // The REST twins, as a plugin reads them.
      const rest = (await api("POST", "/api/chat-history/search", { query })).body;
      expect(rest).toMatchObject({ results: [], totalResults: 0, unrelatedResults: expect.any(Number) });
      expect(rest.unrelatedResults).toBeGreaterThan(0);
      expect((await api("POST", "/api/chat-history/inject", { query })).body).toMatchObject({
        content: "Nothing in your chat history is about this.",
        sources: [],
      });
    }
  });
});

describe("resources and the prompt", () => {
  it("lists buckets and recent conversations, and reads them as the tools do", async () => {
    const { client } = clients["http"]!;
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(["mnemo://buckets", "mnemo://buckets/1", "mnemo://buckets/2", `mnemo://conversations/${lisbon}`]),
    );
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      "mnemo://buckets/{bucketId}",
      "mnemo://conversations/{conversationId}",
    ]);
    const conversation = await client.readResource({ uri: `mnemo://conversations/${lisbon}` });
    expect(conversation.contents[0]).toMatchObject({
      mimeType: "text/markdown",
      text: expect.stringMatching(/^# Lisbon long weekend in May/),
    });
    const read = async (uri: string) => (await client.readResource({ uri })).contents.map((c) => ("text" in c ? c.text : ""))[0];
    expect(await read("mnemo://buckets/1")).toMatch(/^1\. mem_\S+ · bucket 1 "General" · [\d-]+\n {3}2025-/);
    expect(await read("mnemo://buckets/3")).toBe("No memories in this bucket.");
    await expect(client.readResource({ uri: "mnemo://conversations/conv_missing" })).rejects.toThrow(/conversation conv_missing not found/);
    await expect(client.readResource({ uri: "mnemo://buckets/zero" })).rejects.toThrow(/bucketId: must be a number, not "zero"/);
  });

  it("primes a conversation with the memories on a topic", async () => {
    const prompt = await clients["stdio"]!.client.getPrompt({ name: "memories_about", arguments: { topic: "my sister" } });
    expect(prompt.messages[0]?.content).toMatchObject({
      type: "text",
      text: expect.stringMatching(/We are going to talk about my sister\.[\s\S]*Aiko lives in Osaka/),
    });
  });
});
