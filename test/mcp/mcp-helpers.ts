import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { BIN, ROOT, runCli, type ServedStore } from "../helpers.js";

export interface Connected {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Errors the client met (a line on stdout that was not JSON-RPC would be one). */
  errors: Error[];
  close(): Promise<void>;
}

/** The SDK's own client on `mnemo <args>` (the built binary) over stdio. */
export async function stdioClient(args: string[], env: NodeJS.ProcessEnv): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "mnemo-test", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, errors, close: () => client.close() };
}

/** The SDK's own client on /mcp of a running `mnemo serve`, as the user `token` names. */
export async function httpClient(url: string, token: string): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "mnemo-test", version: "1.0.0" });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => "", errors, close: () => client.close() };
}

export async function callTool(connected: Connected, name: string, args?: Record<string, unknown>): Promise<CallToolResult> {
  return (await connected.client.callTool({ name, arguments: args })) as CallToolResult;
}

export const textOf = (result: CallToolResult) => (result.content[0] as { type: "text"; text: string }).text;

export interface RestAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the server answered
  body: any;
}

/** One REST call to the server as the user `token` names. */
export async function rest(
  served: Pick<ServedStore, "url">,
  token: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<RestAnswer> {
  const response = await fetch(`${served.url}${url}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** Memories, a bucket and two platforms' conversations, processed, for the user `token` names. */
export async function seed(served: ServedStore, token: string): Promise<void> {
  const call = (method: string, url: string, body?: unknown) => rest(served, token, method, url, body);
  for (const text of [
    "2025-01-02 I prefer window seats on long train rides",
    "2025-02-10 My sister Aiko lives in Osaka and teaches piano",
    "2025-03-01 The sourdough starter needs feeding every Monday morning",
  ]) {
    expect((await call("POST", "/api/memory", { text })).status).toBe(200);
  }
  expect((await call("POST", "/api/buckets", { name: "Travel", description: "trips and transport" })).status).toBe(200);
  const env = { ...served.env, MNEMO_TOKEN: token };
  for (const file of ["chatgpt-export.zip", "claude-export.zip"]) {
    const imported = await runCli(["--json", "import", path.join(ROOT, "fixtures", "exports", file)], { env });
    expect(imported.code, imported.stderr).toBe(0);
  }
  for (let i = 0; ; i++) {
    const { counts } = (await call("GET", "/api/chat-history/status")).body;
    if (counts.queued + counts.processing === 0) break;
    if (i > 600) throw new Error("the queue did not empty");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Answers without their timing, which differs from call to call. */
export function timeless<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  const { processingTime: _time, ...rest } = value as Record<string, unknown>;
  return rest as T;
}
