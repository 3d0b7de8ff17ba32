import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort, isolatedEnv, openTestApp, ROOT, runCli, serveStore, tempDir, type ServedStore } from "../helpers.js";

const EXPORT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");

/** Requests the server has logged so far ("GET /api/v2/memory 200 3ms"), health checks aside. */
function requests(served: ServedStore): string[] {
  return served
    .log()
    .split("\n")
    .filter((line) => /^(GET|POST|PATCH|DELETE) \/api\//.test(line));
}

/** The one figure that differs between two runs of the same query, whichever path answers it. */
function withoutTimes(text: string): string {
  return text.replace(/"processingTime": ("[^"]*"|\d+)/g, '"processingTime": 0');
}

describe("commands go through the mnemo serve that runs on their store", () => {
  let store: string;
  let served: ServedStore;
  let env: NodeJS.ProcessEnv;
  const mnemo = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { env: { ...env, ...extra } });

  beforeAll(async () => {
    store = path.join(tempDir(), "store");
    env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    for (const text of ["My dog Biscuit is a golden retriever", "I am allergic to peanuts", "We plan a trip to Lisbon in May"]) {
      expect((await mnemo(["remember", text])).code).toBe(0);
    }
    expect((await mnemo(["import", EXPORT])).code).toBe(0);
    served = await serveStore({ store, spawn: true }); // a command finds a server of another process only
  });
  afterAll(async () => served?.stop());

  // Each command twice on the same data: through the server (no flag) and on the store (--local).
  it.each([
    [["memories", "--query", "what pet do I have?"]],
    [["memories"]],
    [["buckets"]],
    [["search", "tram 28"]],
    [["recall", "airport to Alfama", "--max-tokens", "300"]],
    [["chats", "list"]],
    [["--json", "memories", "--query", "peanuts"]],
    [["--json", "search", "tram 28", "-n", "3"]],
    [["--json", "recall", "how do I get from the airport to Alfama?"]],
  ])("mnemo %j prints the same bytes either way", async (args) => {
    const before = requests(served).length;
    const routed = await mnemo(args);
    expect(routed.code, routed.stderr).toBe(0);
    await vi.waitFor(() => expect(requests(served).length).toBeGreaterThan(before), { timeout: 5_000 });
    const through = requests(served).length;
    const local = await mnemo(["--local", ...args]);
    expect(local.code, local.stderr).toBe(0);
    expect(withoutTimes(routed.stdout)).toBe(withoutTimes(local.stdout));
    expect(routed.stdout.length).toBeGreaterThan(20);
    // --local never asked the server.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requests(served).length).toBe(through);
  });

  it("writes go through the server too, and a command that must run here still does", async () => {
    const before = requests(served).length;
    const created = await mnemo(["remember", "The spare key is under the blue pot"]);
    expect(created.code, created.stderr).toBe(0);
    await vi.waitFor(() => expect(requests(served).slice(before).join("\n")).toMatch(/^POST \/api\/memory 200/m));
    const listed = await mnemo(["--local", "--json", "memories", "--query", "spare key"]);
    expect(JSON.parse(listed.stdout).memories[0].id).toBe(created.stdout.trim());
    // `users` administers the store itself (README: the commands that work on this machine's store).
    const users = await mnemo(["users", "list"]);
    expect([users.code, users.stdout]).toEqual([0, expect.stringMatching(/default/)]);
  });

  it("import sends the export file whole to the server, which imports and indexes it", async () => {
    const before = requests(served).length;
    const claude = path.join(ROOT, "fixtures", "exports", "claude-export.zip");
    const imported = await mnemo(["--json", "import", claude]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ failed: 0, files: [expect.objectContaining({ format: "claude" })] });
    expect(requests(served).slice(before).join("\n")).toMatch(/^POST \/api\/chat-history\/imports 200/m);
    const local = await mnemo(["--local", "--json", "chats", "list", "--provider", "claude"]);
    expect(JSON.parse(local.stdout).items.length).toBeGreaterThan(0);
  });

  it("an empty file or a damaged zip among the exports costs only itself, named as an import here names it", async () => {
    const dir = tempDir();
    const empty = path.join(dir, "empty.json");
    const cut = path.join(dir, "cut.zip");
    fs.writeFileSync(empty, "");
    fs.writeFileSync(cut, fs.readFileSync(EXPORT).subarray(0, 3000));
    const grok = path.join(ROOT, "fixtures", "exports", "grok-export.zip");
    const routed = await mnemo(["--json", "import", empty, cut, grok]);
    expect(routed.code, routed.stderr).toBe(1);
    const summary = JSON.parse(routed.stdout);
    expect(summary.files).toEqual([
      expect.objectContaining({ path: empty, error: expect.stringMatching(/the file is empty/) }),
      expect.objectContaining({ path: cut, error: expect.stringMatching(/^cut\.zip: not a readable zip archive/) }),
      expect.objectContaining({ path: grok, format: "grok" }),
    ]);
    expect(summary.new).toBeGreaterThan(0);
    expect(summary.skipped).toEqual([expect.objectContaining({ file: expect.stringMatching(/\.json \(in grok-export\.zip\)$/) })]);
    // What --local says of the same files, word for word (a dry run: the server stored the Grok export).
    const local = JSON.parse((await mnemo(["--local", "--json", "import", "--dry-run", empty, cut, grok])).stdout);
    expect(summary.files.map((file: { error?: string }) => file.error)).toEqual(local.files.map((file: { error?: string }) => file.error));
    expect(summary.skipped).toEqual(local.skipped);
  });

  it("another user, or an explicit embedder, stays on the store", async () => {
    // The server logs its requests in batches a tenth of a second apart: the tests before have theirs logged first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = requests(served).length;
    expect((await mnemo(["users", "add", "bob"])).code).toBe(0);
    const bob = await mnemo(["--user", "bob", "memories"]);
    expect([bob.code, bob.stderr]).toEqual([0, expect.stringMatching(/No memories yet/)]);
    expect((await mnemo(["--embedder", "bundled", "memories"])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Named, should one come: a request logged late belongs to the test before.
    expect(requests(served).slice(before)).toEqual([]);
  });
});

describe("a server that is gone, or refuses the token file", () => {
  let store: string;
  let env: NodeJS.ProcessEnv;
  let expected: string;

  beforeAll(async () => {
    store = path.join(tempDir(), "store");
    env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["remember", "My dog Biscuit is a golden retriever"], { env })).code).toBe(0);
    expected = (await runCli(["memories", "--query", "dog"], { env })).stdout;
  });

  it("falls back to the store when the recorded server does not answer (it stopped after the record was read)", async () => {
    // The state the CLI finds when the server goes between its look at the record and its request:
    // a record of a live process, and nothing listening at the address.
    const port = await freePort();
    fs.writeFileSync(
      path.join(store, "server.json"),
      JSON.stringify({
        pid: process.ppid, // alive, and not the CLI's own (it runs in this process)
        url: `http://127.0.0.1:${port}`,
        startedAt: new Date().toISOString(),
        store: path.join(store, "db"),
      }),
    );
    fs.writeFileSync(path.join(store, "token"), "a".repeat(43));
    const result = await runCli(["memories", "--query", "dog"], { env });
    expect([result.code, result.stdout]).toEqual([0, expected]);
    expect(result.stderr).toMatch(
      new RegExp(`The mnemo server at http://127.0.0.1:${port} stopped answering; this command works on the store directly`),
    );
    fs.rmSync(path.join(store, "server.json"));
  });

  it("falls back when the server refuses the token in the token file", async () => {
    const served = await serveStore({ store, spawn: true }); // a command finds a server of another process only
    try {
      fs.writeFileSync(path.join(store, "token"), "not-the-token");
      const result = await runCli(["memories", "--query", "dog"], { env });
      expect([result.code, result.stdout]).toEqual([0, expected]);
      expect(result.stderr).toMatch(/refused the token in the token file; this command works on the store directly/);
    } finally {
      await served.stop();
    }
  });

  it("ignores the record of a server on another store", async () => {
    fs.writeFileSync(
      path.join(store, "server.json"),
      JSON.stringify({ pid: process.ppid, url: "http://127.0.0.1:9", startedAt: new Date().toISOString(), store: "s3://elsewhere/store" }),
    );
    const result = await runCli(["memories", "--query", "dog"], { env });
    expect([result.code, result.stdout, result.stderr]).toEqual([0, expected, ""]);
  });
});

describe("a server that goes while it answers", () => {
  it("a write the server may have made is not made again; the calls after it go to the store", async () => {
    const { createRemoteService } = await import("../../src/client/remote.js");
    const { routedService } = await import("../../src/cli/server-route.js");
    // A server that takes each request and then dies under it: the connection is cut before any answer.
    const received: string[] = [];
    const dying = http.createServer((request) => {
      received.push(`${request.method} ${request.url}`);
      request.socket.destroy();
    });
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    const app = await openTestApp();
    const notices: string[] = [];
    try {
      const local = await app.service();
      await local.memories.store({ text: "stored before the server went" });
      const { port } = dying.address() as net.AddressInfo;
      const service = routedService(
        createRemoteService(`http://127.0.0.1:${port}`, "token"),
        async () => local,
        (reason) => notices.push(reason),
      );

      await expect(service.memories.store({ text: "may have been stored" })).rejects.toMatchObject({
        code: "unavailable",
        message: expect.stringMatching(/may have carried out memories\.store before it went/),
        details: { fellBack: true },
      });
      expect(received).toEqual(["POST /api/memory"]);
      expect(notices).toEqual(["stopped answering"]);
      // From then on the store answers, and the memory was not stored a second time here.
      const listed = await service.memories.listV2({ includeIds: true, all: true });
      expect(listed.memories.map((memory) => (typeof memory === "string" ? memory : memory.text))).toEqual([
        expect.stringMatching(/stored before the server went$/),
      ]);
      expect(received).toHaveLength(1);
    } finally {
      await app.close();
      await new Promise((resolve) => dying.close(resolve));
    }
  });

  it("a read the server took before it went is answered by the store", async () => {
    const { createRemoteService } = await import("../../src/client/remote.js");
    const { routedService } = await import("../../src/cli/server-route.js");
    const dying = http.createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    const app = await openTestApp();
    try {
      const local = await app.service();
      const { port } = dying.address() as net.AddressInfo;
      const service = routedService(
        createRemoteService(`http://127.0.0.1:${port}`, "token"),
        async () => local,
        () => undefined,
      );
      expect((await service.buckets.list()).map((bucket) => bucket.name)).toEqual(["General"]);
    } finally {
      await app.close();
      await new Promise((resolve) => dying.close(resolve));
    }
  });
});
