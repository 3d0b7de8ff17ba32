import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { titledChats } from "../generated-chats.js";
import { isolatedEnv, openTestApp, settled, spawnCli, tempDir } from "../helpers.js";
import { request } from "undici";
import { callTool, stdioClient, textOf } from "../mcp/mcp-helpers.js";
import { withServer } from "../server-process.js";

/**
 * A store's files damaged as a disk or a careless copy damages them: cut short, zeroed, a version
 * file (manifest) zeroed, an index's files zeroed. Each command names the damaged table and points
 * at `mnemo doctor`, never with LanceDB's Rust text or a backtrace, even with RUST_BACKTRACE=1 set.
 */

let pristine: string;

beforeAll(async () => {
  pristine = path.join(tempDir(), "store");
  const app = await openTestApp({ store: pristine });
  await app.indexer.start();
  const me = await app.service();
  await me.memories.store({ text: "The tram 28 goes up to Graça" });
  await me.memories.store({ text: "My dentist is Dr Silva" });
  await me.conversations.uploadMany(titledChats(["Lisbon", "Snakes", "Bread"]));
  await settled(me);
  await app.users.rotateToken("default"); // the token file a server's clients read
  await app.close();
});

/** A copy of the pristine store, with `damage` done to the files of one table. */
function damagedCopy(
  table: string,
  damage: "truncate" | "zero" | "zero-manifest" | "truncate-manifest" | "unknown-type" | "zero-index",
): NodeJS.ProcessEnv {
  const store = path.join(tempDir(), "store");
  fs.cpSync(pristine, store, { recursive: true });
  const dir = path.join(store, "db", `${table}.lance`);
  const files = (sub: string) =>
    fs.existsSync(path.join(dir, sub))
      ? (fs.readdirSync(path.join(dir, sub), { recursive: true }) as string[]).map((f) => path.join(dir, sub, f))
      : [];
  const targets = {
    truncate: files("data"),
    zero: files("data"),
    "zero-manifest": files("_versions").filter((f) => f.endsWith(".manifest")),
    "truncate-manifest": files("_versions").filter((f) => f.endsWith(".manifest")),
    // The newest: v2 names count down.
    "unknown-type": files("_versions")
      .filter((f) => f.endsWith(".manifest"))
      .sort()
      .slice(0, 1),
    "zero-index": files("_indices"),
  }[damage].filter((f) => fs.statSync(f).isFile());
  expect(targets.length, `${table} has files to damage`).toBeGreaterThan(0);
  for (const file of targets) {
    if (damage === "truncate" || damage === "truncate-manifest") fs.truncateSync(file, 100);
    else if (damage === "unknown-type") {
      const bytes = fs.readFileSync(file);
      expect(bytes.indexOf("bool")).toBeGreaterThan(0);
      bytes.write("boo|", bytes.indexOf("bool"));
      fs.writeFileSync(file, bytes);
    } else fs.writeFileSync(file, Buffer.alloc(fs.statSync(file).size));
  }
  return isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled", RUST_BACKTRACE: "1" });
}

const RAW = /\/rustc\/|stack backtrace|LanceError|cargo\/registry/;

function expectExplained(result: { code: number; stderr: string }, table: string): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toContain(`The store's "${table}" table is damaged`);
  expect(result.stderr).toContain("Run `mnemo doctor`");
  expect(result.stderr).not.toMatch(RAW);
}

describe("a damaged store explains itself", () => {
  it("a data file cut short: the conversations table is named, memories still work", async () => {
    const env = damagedCopy("conversations", "truncate");
    const list = await spawnCli(["chats", "list"], { env });
    expectExplained(list, "conversations");
    expect(list.stderr).toMatch(/a file of it is cut short\. It holds conversations/);
    const memories = await spawnCli(["memories"], { env });
    expect(memories.code, memories.stderr).toBe(0);
    expect(memories.stdout).toContain("Graça");
  });

  it("a zeroed data file: the memories table is named", async () => {
    const env = damagedCopy("memories", "zero");
    const result = await spawnCli(["memories", "--query", "tram"], { env });
    expectExplained(result, "memories");
    expect(result.stderr).toMatch(/zeroed or overwritten/);
  });

  it("a zeroed version file (manifest): the buckets table is named", async () => {
    const env = damagedCopy("buckets", "zero-manifest");
    const result = await spawnCli(["buckets"], { env });
    expectExplained(result, "buckets");
    expect(result.stderr).toMatch(/version file \(manifest\)/);
  });

  it("a zeroed meta manifest is damage, not a new store: what the other tables hold reads, nothing is stored or recreated over the data", async () => {
    const env = damagedCopy("meta", "zero-manifest");
    const read = await spawnCli(["memories"], { env });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain("Graça");
    expect(read.stderr).toMatch(
      /The store's "meta" table is damaged: .*what the other tables hold can be read, nothing can be stored\. Run `mnemo doctor`/,
    );
    expectExplained(await spawnCli(["remember", "a new memory"], { env }), "meta");
    expectExplained(await spawnCli(["remember", "a new memory"], { env }), "meta"); // still refused: no new meta was written
  });

  it("a meta manifest cut short: every command names it in plain words, serve starts and answers reads, and --repair writes it again from the data dir's record", async () => {
    const env = damagedCopy("meta", "truncate-manifest");
    for (const args of [["memories"], ["chats", "list"], ["search", "Lisbon"], ["info"]]) {
      const result = await spawnCli(args, { env });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toMatch(/The store's "meta" table is damaged: a file of it is cut short/);
      expect(result.stderr).not.toMatch(RAW);
    }
    const log = await withServer(env, async (send) => {
      expect((await send("/api/v2/memory")).status).toBe(200);
      expect((await send("/api/chat-history/chats")).status).toBe(200);
      const write = await send("/api/memory", { text: "Stored while the meta table is damaged" });
      expect(write.status).toBe(503);
      expect(write.body.error).toMatch(/^The store's "meta" table is damaged/);
    });
    expect(log).not.toMatch(RAW);
    const repair = await spawnCli(["doctor", "--repair"], { env });
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stderr).toMatch(/meta: written again for bundled \(512 dimensions\)/);
    expect((await spawnCli(["remember", "a new memory"], { env })).code).toBe(0);
  });

  it("a version file that makes LanceDB panic: named every time, its panic printed by the first command only", async () => {
    // "bool" become "boo|" in the conversations' newest manifest: LanceDB panics on the unknown type.
    const env = damagedCopy("conversations", "unknown-type");
    const first = await spawnCli(["chats", "list"], { env });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/The store's "conversations" table is damaged: .*Run `mnemo doctor`/s);
    for (const args of [["chats", "list"], ["search", "Lisbon"], ["info"]]) {
      const again = await spawnCli(args, { env });
      expect(again.code, args.join(" ")).toBe(1);
      expect(again.stderr).toMatch(/The store's "conversations" table is damaged/);
      expect(again.stderr, args.join(" ")).not.toMatch(/panicked|cargo\/registry/);
    }
    const memories = await spawnCli(["memories"], { env });
    expect(memories.code, memories.stderr).toBe(0);
  });

  it("a zeroed index: the chunks table is named, and `mnemo doctor --repair` makes search work again", async () => {
    const env = damagedCopy("chunks", "zero-index");
    const search = await spawnCli(["search", "Lisbon"], { env });
    expectExplained(search, "chunks");
    expect(search.stderr).toMatch(/an index of it is damaged/);
    const doctor = await spawnCli(["doctor"], { env });
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toMatch(/chunks: one of its indexes is damaged/);
    expect(doctor.stderr).toMatch(/→ `mnemo doctor --repair` builds it again from the rows/);
    const repair = await spawnCli(["doctor", "--repair"], { env });
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stderr).toMatch(/chunks: its indexes dropped and built again/);
    expect(repair.stderr).toMatch(/Nothing is wrong with the store/);
    const again = await spawnCli(["search", "Lisbon"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Lisbon");
  });

  it("serve starts on a store whose conversations table is damaged: memories answer 200, conversations 503 with the way out, in the API and the web app", async () => {
    const env = damagedCopy("conversations", "truncate");
    const log = await withServer(env, async (send, url) => {
      expect((await send("/api/v2/memory")).status).toBe(200);
      const chats = await send("/api/chat-history/chats");
      expect(chats.status).toBe(503);
      expect(chats.body.error).toMatch(/^The store's "conversations" table is damaged: a file of it is cut short/);
      expect(chats.body.suggestion).toMatch(/mnemo doctor/);
      // A browser signed in through a one-time link, as `mnemo ui` opens it.
      const { path: link } = (await send("/auth/code", {})).body as { path?: string };
      const signedIn = await request(`${url}${link}`);
      await signedIn.body.dump();
      const cookie = String(signedIn.headers["set-cookie"] ?? "").split(";")[0]!;
      const page = (path: string) => request(`${url}${path}`, { headers: { cookie } });
      expect((await page("/memories")).statusCode).toBe(200);
      const conversations = await page("/conversations");
      expect(conversations.statusCode).toBe(503);
      const html = await conversations.body.text();
      expect(html).toContain("The store&#39;s &quot;conversations&quot; table is damaged");
      expect(html).toMatch(/mnemo doctor/);
      expect(html).not.toMatch(RAW);
    });
    expect(log).not.toMatch(RAW);
  });

  it("mcp on a store whose conversations table is damaged: the conversation tools answer an error naming it and the way out, the memory tools work", async () => {
    const connected = await stdioClient(["mcp"], damagedCopy("conversations", "truncate"));
    try {
      const memories = await callTool(connected, "get_memories_and_buckets", {});
      expect(memories.isError, textOf(memories)).toBeFalsy();
      expect(textOf(memories)).toContain("The tram 28 goes up to Graça");
      const chats = await callTool(connected, "list_conversations", {});
      expect(chats.isError).toBe(true);
      expect(textOf(chats)).toMatch(/The store's "conversations" table is damaged: a file of it is cut short[\s\S]*mnemo doctor/);
      expect(textOf(chats)).not.toMatch(RAW);
    } finally {
      await connected.close();
    }
    expect(connected.stderr()).not.toMatch(RAW);
  });

  it("doctor names every damaged table without LanceDB's panics, and says how to recover", async () => {
    const KEEPS = /→ `mnemo doctor --repair` keeps the rows that can still be read, rebuilds what it can of the rest from the other tables/;
    // A file overwritten in place is one whose checksum changed (store/checksums.ts): its rows, as they read, are set aside.
    const SETS_ASIDE =
      /→ `mnemo doctor --repair` moves the rows of the changed files, as they read, to a file in <data dir>\/recovered\/, keeps the others, rebuilds what the other tables hold of the moved ones/;
    for (const [table, damage, words, fix] of [
      ["conversations", "truncate", /a file of it is cut short \(\d+ of 3 rows read\)/, KEEPS],
      ["memories", "zero", /zeroed or overwritten/, SETS_ASIDE],
      ["conversation_messages", "zero-manifest", /version file \(manifest\) does not describe its columns/, KEEPS],
    ] as const) {
      const doctor = await spawnCli(["doctor"], { env: damagedCopy(table, damage) });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(new RegExp(`✖ ${table}\\s`));
      expect(doctor.stderr).toMatch(new RegExp(`✖ ${table}: `));
      expect(doctor.stderr).toMatch(words);
      expect(doctor.stderr).toMatch(fix);
      expect(doctor.stderr).toMatch(/and keeps a copy of the damaged files; then `mnemo import <your latest export>`/);
      expect(doctor.stderr).not.toMatch(/panicked|stack backtrace|\/rustc\//);
    }
  });
});
