import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { beforeAll, describe, expect, it } from "vitest";
import { withFault } from "../fault-fs.js";
import { writeChatsFile } from "../generated-chats.js";
import { BIN, isolatedEnv, runCli, spawnCli, tempDir } from "../helpers.js";
import { withServer } from "../server-process.js";

/**
 * Faults beyond kill -9: a file system that fails writes and commits at chosen points (test/fault-fs.c,
 * preloaded), under an import, memory writes and maintenance; and a kill -9 in the middle of an
 * import's indexing. Each ends in one clear error, nothing acknowledged is lost, and running the
 * command again finishes the work. Seconds each: every command under a fault is the built CLI or a
 * server in a process of its own (a preload holds from a process's start), and the kill waits for
 * indexing; the commands around them (setting up, checking, running again) are the CLI's program
 * in this process.
 */

const RAW = /LanceError|\/rustc\/|cargo\/registry|panicked at|Caused by/;
const IO_FAULT = /The store at .* could not be written: its file system answered "Input\/output error"/;

/** The built CLI in a child process of its own when a fault is preloaded, as a preload needs; else in this process. */
const run = (args: string[], env: NodeJS.ProcessEnv) => (env["LD_PRELOAD"] ? spawnCli : runCli)(args, { env });

const TRAM = "The tram 28 goes up to Graça";

/**
 * A store that holds one memory, TRAM, as `mnemo remember` left it: made once (a new store and its
 * model loaded, ~1 s of CPU), and copied for each test that starts from it.
 */
let withTram: string;

/** A fresh store, or a copy of `from`. */
function storeEnv(from?: string): { env: NodeJS.ProcessEnv; store: string } {
  const store = path.join(tempDir(), "store");
  if (from) fs.cpSync(from, store, { recursive: true });
  return { store, env: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" }) };
}

async function ok(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const result = await run(args, env);
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

function expectClearFault(result: { code: number; stderr: string }): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(IO_FAULT);
  expect(result.stderr).toMatch(/What was stored before stays stored/);
  expect(result.stderr).not.toMatch(RAW);
}

async function memories(env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = JSON.parse(await ok(["--json", "memories", "--all"], env)) as { memories: { text: string }[] };
  return listed.memories.map((memory) => memory.text).sort();
}

async function queue(env: NodeJS.ProcessEnv): Promise<Record<string, number>> {
  return (JSON.parse(await ok(["--json", "chats", "status"], env)) as { counts: Record<string, number> }).counts;
}

/** `mnemo doctor` finds nothing wrong: no rows twice, none lost, no conversation out of the index. */
async function expectHealthy(env: NodeJS.ProcessEnv): Promise<void> {
  const doctor = await run(["--json", "doctor"], env);
  expect(doctor.code, doctor.stderr).toBe(0);
  expect((JSON.parse(doctor.stdout) as { findings: unknown[] }).findings).toEqual([]);
}

/** The rows a table of the store holds, read by LanceDB itself. */
async function rowCount(store: string, table: string): Promise<number> {
  const db = await lancedb.connect(path.join(store, "db"));
  try {
    return await (await db.openTable(table)).countRows();
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  // Compiled before the first test, so that its time is not a test's.
  withFault({}, { path: "/nothing/" });
  const { env, store } = storeEnv();
  await ok(["remember", "--no-date", TRAM], env);
  withTram = store;
});

describe("a file system that fails", () => {
  it("an import whose messages cannot be written stops at once with the fault; what was stored stays; run again, it finishes", async () => {
    const { env } = storeEnv(withTram);
    const file = writeChatsFile(40);
    expectClearFault(await run(["import", file], withFault(env, { path: "/db/conversation_messages.lance/" })));
    expect(await memories(env)).toEqual([TRAM]);
    await ok(["import", file], env);
    expect(await queue(env)).toMatchObject({ ready: 40, queued: 0, failed: 0 });
    await expectHealthy(env);
  }, 180_000);

  it("an import whose chunks cannot be written keeps every conversation it stored, queued, not failed; run again, they are indexed", async () => {
    const { env } = storeEnv(withTram); // the store made first: its making writes the chunks table too
    const file = writeChatsFile(40);
    expectClearFault(await run(["import", file], withFault(env, { path: "/db/chunks.lance/" })));
    expect(await queue(env)).toMatchObject({ ready: 0, queued: 40, failed: 0 });
    const again = await run(["import", file], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/all 40 conversations were already imported/);
    expect(await queue(env)).toMatchObject({ ready: 40, queued: 0, failed: 0 });
    await expectHealthy(env);
  }, 180_000);

  it("an import cut between its messages' and its conversations' commits, run again, stores each conversation once and leaves no messages row behind", async () => {
    const { env, store } = storeEnv(withTram);
    const file = writeChatsFile(40);
    expectClearFault(await run(["import", file], withFault(env, { path: "/db/conversations.lance/" })));
    // Until a write runs again, the messages the cut import committed are there, named.
    expect((await run(["doctor"], env)).stderr).toMatch(/40 messages rows belong to no conversation/);
    await ok(["import", file], env);
    expect(await queue(env)).toMatchObject({ ready: 40, queued: 0, failed: 0 });
    expect(await rowCount(store, "conversation_messages")).toBe(40);
    await expectHealthy(env);
  }, 180_000);

  it("a delete of conversations cut between its commits, run again, leaves none of their rows", async () => {
    const { env, store } = storeEnv();
    await ok(["import", writeChatsFile(3)], env);
    const listed = JSON.parse(await ok(["--json", "chats", "list"], env)) as { items: { id: string }[] };
    const id = listed.items[0]!.id;
    expectClearFault(await run(["--yes", "chats", "delete", id], withFault(env, { path: "/db/conversation_messages.lance/" })));
    // The conversation is gone already, so this one says so, and it deletes what the cut one left.
    expect((await run(["--yes", "chats", "delete", id], env)).stderr).toMatch(/Not found/);
    expect(await rowCount(store, "conversation_messages")).toBe(2);
    expect(await queue(env)).toMatchObject({ ready: 2 });
    await expectHealthy(env);
  }, 180_000);

  it("a remember whose journal cannot be written, or synced, fails with the fault and acknowledges nothing; run again, it stores the memory once", async () => {
    const { env } = storeEnv(withTram);
    for (const ops of [["write"], ["fsync"]] as const) {
      const text = `My dentist is Dr Silva (${ops[0]})`;
      expectClearFault(await run(["remember", "--no-date", text], withFault(env, { path: "/journal/", ops: [...ops] })));
      expect(await memories(env), `after a failed ${ops[0]}`).not.toContain(text);
      await ok(["remember", "--no-date", text], env);
    }
    expect(await memories(env)).toEqual(["My dentist is Dr Silva (fsync)", "My dentist is Dr Silva (write)", TRAM]);
    await expectHealthy(env);
  }, 180_000);

  it("memories absorbed from the journal into a store whose tables cannot be written stay in the journal, listed; the next absorb stores each once", async () => {
    const { env } = storeEnv(withTram);
    // Acknowledged once journaled: the absorb as the command ends fails after the versions' commit, before the memories'.
    await ok(["remember", "--no-date", "My dentist is Dr Silva"], withFault(env, { path: "/db/memories.lance/" }));
    await ok(["remember", "--no-date", "Sourdough wants 75% water"], withFault(env, { path: "/db/memory_history.lance/" }));
    expect(await memories(env)).toEqual(["My dentist is Dr Silva", "Sourdough wants 75% water", TRAM]);
    await ok(["maintain"], env);
    expect(await memories(env)).toEqual(["My dentist is Dr Silva", "Sourdough wants 75% water", TRAM]);
    await expectHealthy(env);
  }, 180_000);

  it("a journal record whose bytes changed on disk is named by doctor, and --repair moves its line to recovered/ instead of dropping it unsaid", async () => {
    const { env, store } = storeEnv(withTram);
    // Kept in the journal: the tables cannot take it as the command ends.
    await ok(["remember", "--no-date", "My dentist is Dr Silva"], withFault(env, { path: "/db/" }));
    const journal = path.join(store, "journal");
    const [segment] = fs.readdirSync(journal).filter((name) => name.endsWith(".log"));
    const bytes = fs.readFileSync(path.join(journal, segment!));
    bytes[bytes.indexOf("Dr Silva")]! ^= 0x20;
    fs.writeFileSync(path.join(journal, segment!), bytes);
    expect(await memories(env)).toEqual([TRAM]);
    const doctor = await run(["doctor"], env);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toMatch(/journal: 1 memory writes in the journal cannot be read \(their bytes changed on disk\)/);
    const repair = await run(["doctor", "--repair"], env);
    expect(repair.code, repair.stderr).toBe(0);
    const moved = /1 memory write the journal could not read: their lines moved to (\S+)/.exec(repair.stderr)?.[1];
    expect(moved, repair.stderr).toContain(path.join(store, "recovered"));
    expect(fs.readFileSync(path.join(moved!, segment!), "utf8")).toContain("My dentist is dr Silva");
    await expectHealthy(env);
  }, 180_000);

  it("memory writes to a server whose journal fails answer 503 with the fault, and to one whose tables fail 200 (journaled); every memory acknowledged stays, once", async () => {
    const { env } = storeEnv(withTram);
    await ok(["token", "--rotate"], env);
    for (const [where, status] of [
      ["/journal/", 503],
      ["/db/", 200],
    ] as const) {
      const arm = path.join(tempDir(), "armed");
      const log = await withServer(withFault(env, { path: where, ops: ["write", "link", "fsync"], arm }), async (send) => {
        expect((await send("/api/memory", { text: `Before the fault in ${where}` })).status).toBe(200);
        fs.writeFileSync(arm, "");
        const during = await send("/api/memory", { text: `During the fault in ${where}` });
        expect(during.status, JSON.stringify(during.body)).toBe(status);
        if (status === 503) expect(during.body.error).toMatch(IO_FAULT);
        const listed = await send("/api/v2/memory?all=true");
        expect(listed.status).toBe(200);
        expect(JSON.stringify(listed.body)).toContain(`Before the fault in ${where}`);
        fs.rmSync(arm);
        expect((await send("/api/memory", { text: `After the fault in ${where}` })).status).toBe(200);
      });
      expect(log).not.toMatch(RAW);
    }
    expect(await memories(env)).toEqual([
      "After the fault in /db/",
      "After the fault in /journal/",
      "Before the fault in /db/",
      "Before the fault in /journal/",
      "During the fault in /db/",
      TRAM,
    ]);
    await expectHealthy(env);
  }, 180_000);

  it("memory writes to a server whose database cannot be written are acknowledged from the journal, listed at once, and stored once it can be", async () => {
    const { env } = storeEnv(withTram);
    await ok(["token", "--rotate"], env);
    const arm = path.join(tempDir(), "armed");
    const log = await withServer(withFault(env, { path: "/db/", arm }), async (send) => {
      fs.writeFileSync(arm, "");
      expect((await send("/api/memory", { text: "Written while the database fails" })).status).toBe(200);
      const listed = await send("/api/v2/memory?all=true");
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body)).toContain("Written while the database fails");
      fs.rmSync(arm);
    });
    expect(log).not.toMatch(RAW);
    expect(await memories(env)).toEqual([TRAM, "Written while the database fails"]);
    await expectHealthy(env);
  }, 180_000);

  it("maintenance that cannot write its compacted files stops with the fault and leaves the store as it was; run again, it finishes", async () => {
    const { env } = storeEnv(withTram);
    for (const text of ["My dentist is Dr Silva", "Sourdough wants 75% water"]) await ok(["remember", "--no-date", text], env);
    await ok(["import", writeChatsFile(20)], env);
    const before = await memories(env);
    for (const after of [0, 5]) expectClearFault(await run(["maintain"], withFault(env, { path: "/db/", after })));
    expect(await memories(env)).toEqual(before);
    expect(await queue(env)).toMatchObject({ ready: 20 });
    await ok(["maintain"], env);
    await expectHealthy(env);
  }, 180_000);
});

describe("kill -9", () => {
  it("in the middle of an import's indexing: the import run again indexes the rest, each conversation once", async () => {
    const { env, store } = storeEnv();
    // ~150 tokens each: the first index batch (~24k tokens) holds ~160, so the kill comes while the
    // rest are embedded, seconds of work; not more, as the import run again embeds them all.
    const count = 300;
    const file = writeChatsFile(count, 12);
    const child = spawn(process.execPath, [BIN, "import", file], { env, stdio: "ignore" });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await untilIndexing(path.join(store, "db"));
    child.kill("SIGKILL");
    await exited;
    const counts = await queue(env);
    expect(counts.ready!, "killed while indexing").toBeGreaterThan(0);
    expect(counts.ready!, "killed while indexing").toBeLessThan(count);
    await ok(["import", file], env);
    expect(await queue(env)).toMatchObject({ ready: count, queued: 0, processing: 0, failed: 0 });
    await expectHealthy(env);
  }, 180_000);
});

/** Waits until some conversations are indexed and others are still waiting for it. */
async function untilIndexing(database: string): Promise<void> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const db = await lancedb.connect(database).catch(() => undefined);
    if (!db) continue;
    try {
      const conversations = await db.openTable("conversations");
      const indexed = await conversations.countRows("status = 'ready'");
      const waiting = await conversations.countRows("status IN ('queued', 'processing')");
      conversations.close();
      if (indexed > 0 && waiting > 0) return;
    } catch {
      // not made yet
    } finally {
      db.close();
    }
  }
}
