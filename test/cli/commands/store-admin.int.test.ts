import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { lockHolder as runningHolder } from "../../../src/store/process-lock.js";
import * as lancedb from "@lancedb/lancedb";
import { BIN, isolatedEnv, openTestApp, runCli, tempDir } from "../../helpers.js";

const PROCESS_LOCK = new URL("../../../dist/store/process-lock.js", import.meta.url).href;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A process that takes one of the store's locks (`maintenance`, `reindex`…) and holds it until killed. */
async function lockHolder(lockPath: string): Promise<ChildProcess> {
  const script = `const { takeProcessLock } = await import(${JSON.stringify(PROCESS_LOCK)});
await takeProcessLock(${JSON.stringify(lockPath)}, { stale: 60_000, update: 10_000 });
console.log("locked");
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  await once(child.stdout!, "data");
  return child;
}

/** A store that holds one memory, closed: each test gets a copy of it. */
let template: string;
beforeAll(async () => {
  template = path.join(tempDir(), "store");
  const first = await runCli(["remember", "the first memory"], { env: isolatedEnv({ MNEMO_STORE: template, MNEMO_EMBEDDER: "bundled" }) });
  expect(first.code, first.stderr).toBe(0);
});

function newStore(): { dataDir: string; env: NodeJS.ProcessEnv } {
  const dataDir = path.join(tempDir(), "store");
  fs.cpSync(template, dataDir, { recursive: true });
  return { dataDir, env: isolatedEnv({ MNEMO_STORE: dataDir, MNEMO_EMBEDDER: "bundled" }) };
}

describe("maintain, reindex and serve on one store", () => {
  it("maintain, while another process maintains the store, says which one and exits 0", async () => {
    const { dataDir, env } = newStore();
    const other = await lockHolder(path.join(dataDir, "maintenance"));
    const busy = await runCli(["maintain"], { env });
    expect(busy.code, busy.stderr).toBe(0);
    expect(busy.stderr).toMatch(new RegExp(`Another process \\(pid ${other.pid}\\) is maintaining the store right now`));
  });

  it("maintain leaves another process's journalled memories to it: it does not absorb (and embed) them", async () => {
    const { dataDir, env } = newStore();
    const server = await openTestApp({ store: dataDir });
    try {
      await (await server.service()).memories.store({ text: "Journalled by the server, absorbed by it later", ifSimilar: "store" });
      const maintained = await runCli(["maintain"], { env });
      expect(maintained.code, maintained.stderr).toBe(0);
      const db = await lancedb.connect(path.join(dataDir, "db"));
      const memories = await db.openTable("memories");
      expect(await memories.countRows()).toBe(1); // the first memory only: the server's is still its own to absorb
      memories.close();
      db.close();
    } finally {
      await server.close();
    }
  });

  it("serve refuses to start while a reindex runs, and says to wait for it", async () => {
    const { dataDir, env } = newStore();
    const reindex = await lockHolder(path.join(dataDir, "reindex"));
    const serve = await runCli(["serve", "--port", "0"], { env });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(new RegExp(`mnemo reindex\` \\(pid ${reindex.pid}\\) is re-embedding this store`));
    expect(serve.stderr).toMatch(/Wait for the reindex to finish, then start the server/);
    expect(fs.existsSync(path.join(dataDir, "server.json"))).toBe(false);
  });

  it("serve stopped with Ctrl-C as it starts says so and leaves no server.json with its dead pid", async () => {
    // A process of its own: the signal is the subject. Sent the moment server.json appears, before the
    // server waits for signals (its watchers, the first purge of the trash, are still being set up).
    const { dataDir, env } = newStore();
    const child = spawn(process.execPath, [BIN, "--json", "serve", "--port", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
    children.push(child);
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const watcher = fs.watch(dataDir, (_event, name) => {
      if (name !== "server.json") return;
      watcher.close();
      child.kill("SIGINT");
    });
    const [code, signal] = await once(child, "close");
    watcher.close();
    expect({ code, signal }).toEqual({ code: null, signal: "SIGINT" });
    expect(stderr).toContain("! Stopped while the server was starting.");
    expect(fs.existsSync(path.join(dataDir, "server.json")), "the record of a server that is gone").toBe(false);
  });

  it("reindex refuses to run beside another reindex", async () => {
    const { dataDir, env } = newStore();
    const other = await lockHolder(path.join(dataDir, "reindex"));
    const second = await runCli(["reindex"], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`Another \`mnemo reindex\` \\(pid ${other.pid}\\) is re-embedding this store`));
  });

  it("reindex, stopped by a signal, says the store keeps its previous vectors and ends by that signal", async () => {
    const { dataDir, env } = newStore();
    const reindex = spawn(process.execPath, [BIN, "reindex"], { env, stdio: ["ignore", "pipe", "pipe"] });
    children.push(reindex);
    let stderr = "";
    reindex.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // The reindex itself holds the lock (not a maintenance process, which takes it for a moment).
    while (runningHolder(path.join(dataDir, "reindex")) !== reindex.pid) await sleep(10);
    reindex.kill("SIGTERM");
    const [code, signal] = (await once(reindex, "close")) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: null, signal: "SIGTERM" });
    expect(stderr).toMatch(/Reindex stopped; the store still uses its previous vectors/);
    // Released on the way out, or (when the signal came in the moment between making the lock and
    // registering it) left with a holder that no longer runs, which the next command takes over.
    expect(runningHolder(path.join(dataDir, "reindex"))).toBeUndefined();
  });
});
