import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diagnose } from "../../../src/core/operations/doctor.js";
import { repairStore } from "../../../src/core/operations/doctor-repair.js";
import { isolatedEnv, openTestApp, runCli, settled, tempDir } from "../../helpers.js";

const chat = (id: string, title: string) => ({
  conversation: {
    id,
    title,
    createdAt: "2024-05-01T10:00:00Z",
    messages: [
      { id: "m1", role: "human", content: `What do you know about ${title}?`, createdAt: "2024-05-01T10:00:00Z" },
      { id: "m2", role: "assistant", content: `${title} is worth a long conversation.`, createdAt: "2024-05-01T10:01:00Z" },
    ],
  },
});

describe("mnemo doctor", () => {
  it("finds orphans, duplicates, a missing bucket, bad vectors and unindexed conversations, and --repair fixes each", async () => {
    const app = await openTestApp();
    const { store } = app.context;
    const me = await app.service();
    await app.indexer.start();
    const { memoryId } = await me.memories.store({ text: "The tram 28 goes up to Graça" });
    await me.memories.store({ text: "My dentist is Dr Silva" });
    await me.conversations.uploadMany([chat("c1", "Lisbon"), chat("c2", "Sourdough")]);
    await settled(me);
    await app.indexer.stop();
    const [tram] = await store.select("memories", `id = '${memoryId}'`);
    const conversations = await store.select("conversations", "true");
    const lisbon = conversations.find((row) => row.title === "Lisbon")!;
    const [chunk] = await store.select("chunks", `conversationId = '${lisbon.id}'`);
    await store.write(async () => {
      await store.add("memories", [{ ...tram!, id: "mem_stray", bucketId: 7 }]); // in a bucket that does not exist
      await store.add("memories", [tram!]); // stored twice
      // LanceDB refuses NaN on write; a zero vector is what a broken embedder or a zeroed page leaves.
      await store.add("memories", [{ ...tram!, id: "mem_zero", vector: new Float32Array(512) }]);
      await store.add("chunks", [{ ...chunk!, id: "conv_gone:1:0", conversationId: "conv_gone" }]); // of no conversation
      await store.delete("chunks", `conversationId = '${lisbon.id}'`); // a ready conversation out of the index
      await store.add("messages", [
        { id: `${lisbon.id}:0`, userId: lisbon.userId, conversationId: lisbon.id, revision: 0, messagesJson: "[]" },
      ]);
    });
    const config = app.config;
    await app.close();

    const found = await diagnose(config);
    const said = found.findings.map((finding) => `${finding.table}: ${finding.what}`);
    expect(said).toEqual(
      expect.arrayContaining([
        "memories: 1 memories have a vector that is not finite, is all zero or has another dimension",
        "memories: 1 rows are stored twice (the same id)",
        "chunks: 1 conversations are gone, their messages too, but their chunks hold their text",
        "conversation_messages: 1 messages rows are of a conversation's earlier revision (its current one is stored)",
        "chunks: 1 conversations are not in the search index (no chunks)",
        "memories: 1 memories are in a bucket that does not exist",
      ]),
    );
    expect(found.findings.every((finding) => finding.severity === "repairable")).toBe(true);

    const repaired = await repairStore(config, found);
    expect(repaired.after.findings).toEqual([]);
    expect(repaired.actions.join("\n")).toMatch(/missing buckets made again/);
    const reopened = await openTestApp({ store: config.paths.dataDir });
    try {
      const service = await reopened.service();
      expect((await service.search({ query: "Lisbon", skipRerank: true })).results[0]?.title).toBe("Lisbon");
      expect((await service.buckets.list()).map((bucket) => bucket.name)).toContain("Recovered 7");
      const [zero] = await reopened.context.store.select("memories", "id = 'mem_zero'");
      expect([...zero!.vector].some((value) => value !== 0)).toBe(true);
      expect(await reopened.context.store.count("memories", `id = '${memoryId}'`)).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it("a lost conversations table: --repair rebuilds the conversations from their messages, and an export's restore puts back the originals", async () => {
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const upload = path.join(tempDir(), "chats.json");
    fs.writeFileSync(upload, JSON.stringify([chat("c1", "Lisbon"), chat("c2", "Sourdough"), chat("c3", "Snakes")]));
    expect((await runCli(["import", upload], { env })).code).toBe(0);
    expect((await runCli(["chats", "pin", ...(await ids(env)).slice(0, 1)], { env })).code).toBe(0);
    const before = await listed(env);
    const backup = path.join(tempDir(), "backup.jsonl.gz");
    expect((await runCli(["export", backup], { env })).code).toBe(0);

    const data = path.join(store, "db", "conversations.lance", "data");
    for (const file of fs.readdirSync(data)) fs.truncateSync(path.join(data, file), 100);
    const repair = await runCli(["doctor", "--repair"], { env });
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stderr).toMatch(/conversations: kept the 0 rows that could be read of 3/);
    expect(repair.stderr).toMatch(/3 conversations rebuilt from their messages \(platform "recovered"\)/);
    const rebuilt = await listed(env);
    expect(rebuilt.map((item) => item.platform)).toEqual(["recovered", "recovered", "recovered"]);
    expect(rebuilt.map((item) => item.title).sort()).toEqual([
      "What do you know about Lisbon?",
      "What do you know about Snakes?",
      "What do you know about Sourdough?",
    ]);
    const search = await runCli(["--json", "search", "Sourdough"], { env });
    expect(JSON.parse(search.stdout).results.length).toBeGreaterThan(0);

    // Into another user of the store: the rebuilt conversations are default's, not to be taken from them.
    expect((await runCli(["users", "add", "carol"], { env })).code).toBe(0);
    expect((await runCli(["--user", "carol", "import", backup], { env })).code).toBe(1);
    expect(await listed(env)).toEqual(rebuilt);

    const restored = await runCli(["import", backup], { env });
    expect(restored.code, restored.stderr).toBe(0);
    expect(await listed(env)).toEqual(before);
    expect((await runCli(["doctor"], { env })).code).toBe(0);
  });
});

describe("mnemo doctor --repair keeps what can be read", () => {
  it("a lost messages table: every conversation stays, its messages rebuilt from its chunks; the plan comes first, --dry-run changes nothing, a restore puts the originals back", async () => {
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const upload = path.join(tempDir(), "chats.json");
    fs.writeFileSync(upload, JSON.stringify([chat("c1", "Lisbon"), chat("c2", "Sourdough"), chat("c3", "Snakes")]));
    expect((await runCli(["import", upload], { env })).code).toBe(0);
    const before = await listed(env);
    const texts = await messageTexts(env, before);
    const backup = path.join(tempDir(), "backup.jsonl.gz");
    expect((await runCli(["export", backup], { env })).code).toBe(0);
    const data = path.join(store, "db", "conversation_messages.lance", "data");
    for (const file of fs.readdirSync(data)) fs.truncateSync(path.join(data, file), 100);

    const untouched = filesOf(path.join(store, "db"));
    const dry = await runCli(["doctor", "--repair", "--dry-run"], { env });
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(
      /mnemo doctor --repair would, in this order:\n {2}• conversation_messages: made again from the 0 of its 3 rows/,
    );
    expect(dry.stderr).toMatch(/• 3 conversations' messages rebuilt from their chunks' text/);
    expect(filesOf(path.join(store, "db"))).toEqual(untouched);

    const repair = await runCli(["doctor", "--repair"], { env });
    expect(repair.code, repair.stderr).toBe(0);
    const plan = repair.stderr.indexOf("mnemo doctor --repair will, in this order:");
    expect(plan).toBeGreaterThanOrEqual(0);
    expect(repair.stderr.indexOf("✔ 3 conversations' messages rebuilt from their chunks' text")).toBeGreaterThan(plan);
    expect(repair.stderr).toMatch(/its damaged files are in .*recovered\/.*conversation_messages\.lance/);
    expect(await listed(env)).toEqual(before);
    expect(await messageTexts(env, before)).toEqual(texts);

    expect((await runCli(["import", backup], { env })).code).toBe(0);
    expect(await listed(env)).toEqual(before);
    expect((await runCli(["doctor"], { env })).code).toBe(0);
  }, 180_000); // a dozen runs of the CLI, three of them checks in a child process

  it("a users table that lost its rows: the next command refuses to start an empty default user; --repair makes the users again with their names and tokens", async () => {
    const app = await openTestApp();
    const me = await app.service();
    await me.memories.store({ text: "The tram 28 goes up to Graça" });
    await app.users.add("alice");
    const token = await app.users.rotateToken("alice");
    await app.users.rotateToken("default");
    const config = app.config;
    await app.close();
    let reopened = await openTestApp({ store: config.paths.dataDir }); // the data dir records the users as a store opens
    await reopened.context.store.write(() => reopened.context.store.delete("users", "true"));
    await expect(reopened.service()).rejects.toThrow(/The store's "users" table is damaged: it does not hold 2 users whose data is stored/);
    await reopened.close();

    const diagnosis = await diagnose(config);
    expect(diagnosis.findings.map((finding) => finding.what)).toContain("1 rows belong to 2 users the users table does not hold");
    const repaired = await repairStore(config, diagnosis);
    expect(repaired.actions).toContain("2 users made again from their rows' ids: default, alice");
    expect(repaired.after.findings).toEqual([]);
    reopened = await openTestApp({ store: config.paths.dataDir });
    try {
      const memories = (await (await reopened.service()).memories.listV2({ all: true })).memories as string[];
      expect(memories.join()).toContain("Graça");
      expect((await reopened.authenticate(token))?.user.name).toBe("alice");
      const defaultToken = fs.readFileSync(config.paths.tokenFile, "utf8").trim();
      expect((await reopened.authenticate(defaultToken))?.user.name).toBe("default");
    } finally {
      await reopened.close();
    }
  });
});

/** Every file under `dir` with its size and modification time. */
function filesOf(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((file) => path.join(dir, file))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => `${file} ${fs.statSync(file).size} ${fs.statSync(file).mtimeMs}`)
    .sort();
}

/** Each conversation's messages' text, as `mnemo chats show` gives them. */
async function messageTexts(env: NodeJS.ProcessEnv, conversations: { id: string }[]): Promise<string[]> {
  const texts: string[] = [];
  for (const { id } of conversations) {
    const shown = await runCli(["--json", "chats", "show", id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    texts.push((JSON.parse(shown.stdout) as { messages: { text: string }[] }).messages.map((message) => message.text).join("\n"));
  }
  return texts;
}

async function listed(env: NodeJS.ProcessEnv): Promise<{ id: string; title: string; platform: string; pinned: boolean }[]> {
  const result = await runCli(["--json", "chats", "list"], { env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).items;
}

async function ids(env: NodeJS.ProcessEnv): Promise<string[]> {
  return (await listed(env)).map((item) => item.id);
}
