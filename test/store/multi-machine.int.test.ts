import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, isolatedEnv } from "../helpers.js";
import { startS3Server, type S3Server } from "../s3-server.js";

const STORE = "s3://mnemo/shared";
/** Long enough for a write that waits for the other machine's lease on a loaded machine. */
const CALL_MS = 90_000;

/** A "machine": its own home and local data dir, the store in the one bucket. */
interface Machine {
  env: NodeJS.ProcessEnv;
  dataDir: string;
}

interface Server {
  url: string;
  /** What the server has written to stderr so far: said when a call to it fails. */
  log(): string;
  stop(): Promise<string>;
}

function machine(s3: S3Server): Machine {
  const env = isolatedEnv({
    MNEMO_STORE: STORE,
    MNEMO_EMBEDDER: "bundled",
    AWS_ENDPOINT: s3.endpoint,
    AWS_ALLOW_HTTP: "true",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "any",
  });
  return { env, dataDir: path.join(env["HOME"]!, ".mnemo") };
}

/** `mnemo serve` in a child process (asynchronous: the S3 server runs in this one). */
async function serve(on: Machine): Promise<Server> {
  const child = spawn(process.execPath, [BIN, "--json", "serve", "--port", "0"], { env: on.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const started = await new Promise<{ url: string }>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve(JSON.parse(stdout) as { url: string });
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo serve exited with ${code}: ${stderr}`)));
  });
  return {
    url: started.url,
    log: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        child.on("close", () => resolve(stdout + stderr));
        child.kill("SIGTERM");
      }),
  };
}

/** A JSON answer, read loosely: the fields each assertion needs. */
// biome-ignore lint/suspicious/noExplicitAny: answers of several routes
type Answer = any;

async function call(
  server: Server,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: Answer }> {
  try {
    const response = await fetch(`${server.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(CALL_MS),
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  } catch (error) {
    throw new Error(`${method} ${route} on ${server.url} failed: ${String(error)}\nits stderr: ${server.log().slice(-4000)}`);
  }
}

function upload(id: string, messages: number) {
  return {
    conversation: {
      id,
      title: `Conversation ${id}`,
      createdAt: "2025-03-01T10:00:00Z",
      messages: Array.from({ length: messages }, (_, i) => ({
        id: `${id}-m${i}`,
        role: i % 2 ? "assistant" : "human",
        content: `Message ${i} of ${id}: the lighthouse keeper logs the tide at ${i} o'clock and mends the lamp.`,
        createdAt: `2025-03-01T10:${String(i).padStart(2, "0")}:00Z`,
      })),
    },
  };
}

describe("two machines serving one store in a bucket at once", () => {
  let s3: S3Server;
  let laptop: Machine;
  let desktop: Machine;
  const servers: Server[] = [];

  beforeAll(async () => {
    s3 = await startS3Server();
    laptop = machine(s3);
    desktop = machine(s3);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await s3?.close();
  });

  it("loses nothing and stores nothing twice: memories, buckets, ingests and the index queue", { timeout: 240_000 }, async () => {
    const a = await serve(laptop);
    servers.push(a);
    // The token is the user's, in the bucket; its file is this machine's: copied, as a user would.
    const tokenFile = fs.readdirSync(laptop.dataDir).find((name) => name === "token")!;
    fs.mkdirSync(desktop.dataDir, { recursive: true });
    fs.copyFileSync(path.join(laptop.dataDir, tokenFile), path.join(desktop.dataDir, tokenFile));
    const token = fs.readFileSync(path.join(laptop.dataDir, tokenFile), "utf8").trim();
    const b = await serve(desktop);
    servers.push(b);

    const shared = ["s1", "s2", "s3"];
    const requests = [a, b].flatMap((server, n) => [
      ...shared.map((id) => call(server, token, "POST", "/api/chat-history/ingest/custom-online", upload(id, 6))),
      ...[1, 2].map((i) => call(server, token, "POST", "/api/chat-history/ingest/custom-online", upload(`only-${n}-${i}`, 4))),
      call(server, token, "POST", "/api/buckets", { name: "Shared" }),
      call(server, token, "POST", "/api/buckets", { name: `Own ${n}` }),
      ...[1, 2, 3].map((i) => call(server, token, "POST", "/api/memory", { text: `Machine ${n} remembers item ${i}` })),
    ]);
    const answers = await Promise.all(requests);
    const failed = answers.filter((answer) => answer.status >= 300 && !(answer.status === 409 && /Shared/.test(answer.body?.error)));
    expect(failed).toEqual([]);
    // One of the two creations of "Shared" won, the other was told it exists.
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(1);

    // Each machine sees the other's writes at once: no cache hides them.
    for (const server of [a, b]) {
      const names = ((await call(server, token, "GET", "/api/buckets")).body as { name: string }[]).map((bucket) => bucket.name);
      expect(names.sort()).toEqual(["General", "Own 0", "Own 1", "Shared"]);
    }

    await waitForQueue(a, token);
    const db = await lancedb.connect(STORE, {
      storageOptions: {
        aws_endpoint: s3.endpoint,
        allow_http: "true",
        region: "us-east-1",
        aws_access_key_id: "S3RVER",
        aws_secret_access_key: "any",
      },
    });
    const rows = async (table: string) => (await db.openTable(table)).query().toArray();

    const conversations = await rows("conversations");
    const expected = [...shared, "only-0-1", "only-0-2", "only-1-1", "only-1-2"];
    expect(conversations.map((row) => row.platformConversationId).sort()).toEqual(expected.sort());
    expect(new Set(conversations.map((row) => row.status))).toEqual(new Set(["ready"]));
    // The same upload twice is one revision with its messages once, not doubled.
    for (const row of conversations) expect(row.messageCount).toBe(row.platformConversationId.startsWith("s") ? 6 : 4);
    const messages = await rows("conversation_messages");
    expect(messages).toHaveLength(conversations.length);
    for (const row of messages) {
      const stored = JSON.parse(row.messagesJson) as { id: string }[];
      expect(new Set(stored.map((message) => message.id)).size).toBe(stored.length);
    }
    // Indexed once: every chunk once, all of the conversation's current revision.
    const chunks = await rows("chunks");
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(chunks.length);
    for (const row of conversations) {
      const own = chunks.filter((chunk) => chunk.conversationId === row.id);
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((chunk) => chunk.id.startsWith(`${row.id}:${row.revision}:`))).toBe(true);
      expect(new Set(own.map((chunk) => chunk.chunkIndex)).size).toBe(own.length);
    }
    expect((await rows("platforms")).map((row) => row.id)).toEqual(["custom"]);

    const buckets = await rows("buckets");
    expect(buckets.map((row) => row.name).sort()).toEqual(["General", "Own 0", "Own 1", "Shared"]);
    expect(new Set(buckets.map((row) => row.id)).size).toBe(4);
    const memories = await rows("memories");
    expect(memories.map((row) => row.text).sort()).toEqual(
      [0, 1].flatMap((n) => [1, 2, 3].map((i) => `Machine ${n} remembers item ${i}`)).sort(),
    );
    db.close();
  });

  it("rotates the token once when both machines are asked at once; the old one stops working on both", { timeout: 200_000 }, async () => {
    const [a, b] = servers as [Server, Server];
    const tokenFile = fs.readdirSync(laptop.dataDir).find((name) => name === "token")!;
    const old = fs.readFileSync(path.join(laptop.dataDir, tokenFile), "utf8").trim();
    const answers = await Promise.all([a, b].map((server) => call(server, old, "POST", "/api/token/rotate")));
    const issued = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.token as string);
    for (const answer of answers.filter((answer) => answer.status !== 200)) expect(answer.status).toBe(409);
    expect(issued.length).toBeGreaterThan(0);
    // Whatever the order, one token is in effect on both machines, and no other.
    const works = async (token: string) =>
      (await Promise.all([a, b].map((server) => call(server, token, "GET", "/api/buckets")))).map((answer) => answer.status);
    let statuses: number[] = [];
    await until(
      // Refused (401) by both machines, slowed once this client has sent one more than 10 wrong tokens in
      // a minute, as this loop does to the machine that stops taking the old one first (its cache of a
      // good token lasts 2 s from when each machine last checked it).
      async () => (statuses = await works(old)).every((status) => status === 401),
      () => `the old token still answered ${statuses.join(", ")}`,
    );
    const inEffect = [];
    for (const token of issued) if ((await works(token)).every((status) => status === 200)) inEffect.push(token);
    expect(inEffect).toHaveLength(1);
  });
});

/** Until no conversation waits for or is in the hands of an index worker. */
async function waitForQueue(server: Server, token: string): Promise<void> {
  await until(
    async () => {
      const { counts } = (await call(server, token, "GET", "/api/chat-history/status")).body as { counts: Record<string, number> };
      return counts["queued"] === 0 && counts["processing"] === 0;
    },
    () => "the index queue drained",
  );
}

async function until(check: () => Promise<boolean>, what: () => string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what()}: not so after ${ms / 1000} s`);
}
