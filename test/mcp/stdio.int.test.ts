import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { TOOLS } from "../../src/mcp/tools.js";
import { BIN, isolatedEnv, runCli, tempDir } from "../helpers.js";

/** The native libraries a process has loaded, from /proc/<pid>/maps. */
function loadedLibraries(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/maps`, "utf8");
}

describe("mnemo mcp over stdio", () => {
  it("answers initialize and lists without opening the store or loading LanceDB or a model", async () => {
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_EMBEDDER: "bundled" }) as Record<string, string>;
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--store", store], env, stderr: "pipe" });
    const client = new Client({ name: "mnemo-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "mnemo" });
      expect(client.getInstructions()).toMatch(/memories/);
      expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["memories_about"]);
      expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(2);
      expect(fs.existsSync(store)).toBe(false);
      expect(loadedLibraries(transport.pid!)).not.toMatch(/lancedb|onnxruntime/);

      const first = await client.callTool({ name: "store_memory", arguments: { text: "2025-05-01 The first memory opens the store" } });
      expect(first.isError).toBeFalsy();
      expect(fs.existsSync(path.join(store, "db"))).toBe(true);
      expect(loadedLibraries(transport.pid!)).toMatch(/lancedb/);
    } finally {
      await client.close();
    }
  });

  it("writes nothing but JSON-RPC on stdout, logs to stderr, and exits when stdin ends", async () => {
    const { child, out, exited, answers, send } = rawMcp(path.join(tempDir(), "store"));
    send(INITIALIZE);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 6, method: "resources/read" }); // before a tool call has loaded the schemas
    send("this is not JSON");
    send({ jsonrpc: "2.0", id: {}, method: "tools/list" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "store_memory", arguments: { text: 7 } } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "store_memory", arguments: { text: "2025-05-01 Raw call" } } });
    // Calls run side by side: the search goes once the memory is stored.
    await answers(4);
    send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "search_memories", arguments: { query: "raw" } } });
    send({ jsonrpc: "2.0", id: 5, method: "no/such/method" });
    await answers(6);
    child.stdin.end();
    expect(await exited).toBe(0);

    const lines = out.stdout.split("\n").filter(Boolean);
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: never; error?: { code: number } });
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(byId.get(2)).toMatchObject({ result: { isError: true, content: [{ text: "text: must be a string, not 7" }] } });
    expect(byId.get(3)).toMatchObject({ result: { structuredContent: { done: "ok" } } });
    expect(byId.get(4)).toMatchObject({ result: { structuredContent: { memories: [{ text: "2025-05-01 Raw call" }] } } });
    expect(byId.get(5)).toMatchObject({ error: { code: -32601 } });
    expect(byId.get(6)).toMatchObject({ error: { code: -32602, message: "params: is required" } }); // in plain words, not zod's

    // The line that was not JSON: in the log, and sent to the client as a warning.
    expect(messages).toContainEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "warning", logger: "mnemo", data: expect.stringMatching(/^protocol error: /) },
    });
    expect(out.stderr).toMatch(/mnemo mcp: protocol error/);
    // JSON that is not JSON-RPC: said in a line, where the SDK's schema error was 40 lines of JSON, and the client got "[".
    expect(messages).toContainEqual(
      expect.objectContaining({
        params: expect.objectContaining({ data: expect.stringMatching(/^protocol error: a message that is JSON but not JSON-RPC: /) }),
      }),
    );
    expect(out.stderr.split("\n").filter((line) => line && !line.startsWith("mnemo mcp: "))).toEqual([]);
  });

  it("answers a message over 10 MB with an error saying the limit, and reads on (the SDK's transport closed, and the process ended)", async () => {
    const { child, out, exited, answers, send } = rawMcp(path.join(tempDir(), "store"));
    send(INITIALIZE);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const huge = "a".repeat(11 * 1024 * 1024);
    // The SDK's client writes the id last; a client of its own may write it first.
    send(`{"method":"tools/call","params":{"name":"store_memory","arguments":{"text":"${huge}"}},"jsonrpc":"2.0","id":2}`);
    send(`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"store_memory","arguments":{"text":"${huge}"}}}`);
    send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "store_memory", arguments: { text: "2025-05-01 After the flood" } },
    });
    await answers(4);
    child.stdin.end();
    expect(await exited).toBe(0);
    const messages = out.stdout
      .split("\n")
      .filter((line) => line.includes('"id":'))
      .map((line) => JSON.parse(line) as { id: unknown });
    const tooLong = {
      code: -32600,
      message: expect.stringMatching(
        /^The message is 11,534,4\d\d bytes: mnemo mcp reads at most 10,485,760 bytes a message\. Send less text/,
      ),
    };
    expect(messages.find((m) => m.id === 2)).toMatchObject({ error: tooLong });
    expect(messages.find((m) => m.id === "three")).toMatchObject({ error: tooLong });
    expect(messages.find((m) => m.id === 4)).toMatchObject({ result: { structuredContent: { done: "ok" } } });
    expect(out.stderr).not.toMatch(/Error:| {4}at /);
  });

  it("answers a request whose _meta or shape the SDK's schema refuses, with its id, and reads on (the client was sent nothing)", async () => {
    const { child, out, exited, answers, send } = rawMcp(path.join(tempDir(), "store"));
    send(INITIALIZE);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const call = { name: "search_chat_history", arguments: { query: "x" } };
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { ...call, _meta: "x" } });
    send({ jsonrpc: "2.0", id: "three", method: "tools/call", params: { ...call, _meta: { progressToken: {} } } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/list", extra: true });
    send({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    await answers(5);
    child.stdin.end();
    expect(await exited).toBe(0);
    const byId = new Map(
      out.stdout
        .split("\n")
        .filter((line) => line.includes('"id":'))
        .map((line) => JSON.parse(line) as { id: unknown })
        .map((m) => [m.id, m]),
    );
    expect(byId.get(2)).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32602, message: 'params._meta: must be an object, not "x"' } });
    expect(byId.get("three")).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^params\._meta\.progressToken: must be a string or a number/) },
    });
    expect(byId.get(4)).toMatchObject({ error: { code: -32600, message: 'message: unknown field "extra"' } });
    expect(byId.get(5)).toMatchObject({ result: { tools: expect.any(Array) } });
    expect(out.stderr).toMatch(/mnemo mcp: protocol error: params\._meta: /);
  });

  it("refuses a store it cannot use with an isError naming the fix, and stays up", async () => {
    const file = path.join(tempDir(), "not-a-folder");
    fs.writeFileSync(file, "x");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--store", file],
      env: isolatedEnv({ MNEMO_EMBEDDER: "bundled" }) as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "mnemo-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "list_buckets", arguments: {} });
      expect(result).toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/is not a mnemo store: it is a file\nFix: Pass --store/) }],
      });
      expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    } finally {
      await client.close();
    }
  });

  it("ends cleanly when the client stops reading mid-call: the call it made finishes, the store is closed, exit 0, no stack", async () => {
    const store = path.join(tempDir(), "store");
    const { child, out, exited, answers, send } = rawMcp(store);
    send(INITIALIZE);
    await answers(1);
    // The client closes its end of stdout and goes on writing: the answers to these have nowhere to go.
    child.stdout.destroy();
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "store_memory", arguments: { text: "2025-05-01 Said to no one" } },
    });
    send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(await exited).toBe(0);
    expect(out.stderr).toMatch(/mnemo mcp: the client stopped reading \(EPIPE\): closing/);
    expect(out.stderr).not.toMatch(/Error:| {4}at /);
    // The store was closed as it is when stdin ends: a command opens it and finds the memory.
    const found = await runCli(["--json", "memories", "--query", "said to no one"], {
      env: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" }),
    });
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout).memories).toMatchObject([{ text: "2025-05-01 Said to no one" }]);
  });

  it("declares logging and sends the client its lines at the level it sets", async () => {
    const client = await connect(["mcp", "--store", path.join(tempDir(), "store")]);
    const received: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void received.push(notification.params));
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      await client.callTool({ name: "list_buckets", arguments: {} });
      await client.setLoggingLevel("debug");
      await client.callTool({ name: "list_buckets", arguments: {} });
      await client.callTool({ name: "store_memory", arguments: { text: "" } });
      await client.setLoggingLevel("warning");
      await client.callTool({ name: "list_buckets", arguments: {} });
      expect(received.map(({ level, data }) => `${level} ${String(data).replace(/\d+ ms/, "N ms")}`)).toEqual([
        "debug list_buckets: answered in N ms",
        "debug store_memory: refused in N ms",
      ]);
    } finally {
      await client.close();
    }
  });
});

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    env: isolatedEnv({ MNEMO_EMBEDDER: "bundled" }) as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: "mnemo-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** `mnemo mcp --store` spoken to line by line, as a client with no SDK would. */
function rawMcp(store: string) {
  const child = spawn(process.execPath, [BIN, "mcp", "--store", store], {
    env: isolatedEnv({ MNEMO_EMBEDDER: "bundled" }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  /** Waits for `count` answers, not notifications (a log line the client is sent has no id). */
  const answers = async (count: number) => {
    for (let i = 0; out.stdout.split("\n").filter((line) => line.includes('"id":')).length < count; i++) {
      if (i > 600) throw new Error(`no answers: ${out.stdout}\n${out.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const send = (message: object | string) => child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  return { child, out, exited, answers, send };
}
