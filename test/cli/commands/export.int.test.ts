import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli, serveStore, tempDir } from "../../helpers.js";

const CHATGPT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");

function storeEnv(): NodeJS.ProcessEnv {
  return isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
}

/**
 * A store the ChatGPT export was imported into with `mnemo import` (and indexed), made once: five
 * tests export a store that holds it, and each imported and embedded it anew (~1 s of CPU apiece).
 */
let withChatGpt: string;

beforeAll(async () => {
  const env = storeEnv();
  const imported = await runCli(["import", CHATGPT], { env });
  expect(imported.code, imported.stderr).toBe(0);
  withChatGpt = env["MNEMO_STORE"]!;
});

/** A store of its own holding the ChatGPT import: a copy of `withChatGpt`, and the env that points the CLI at it. */
function storeWithChatGpt(): NodeJS.ProcessEnv {
  const env = storeEnv();
  fs.cpSync(withChatGpt, env["MNEMO_STORE"]!, { recursive: true });
  return env;
}

/** What a user sees of their store: memories, buckets and conversations with their flags. */
async function contents(env: NodeJS.ProcessEnv): Promise<unknown> {
  const json = async (args: string[]) => {
    const result = await runCli(["--json", ...args], { env });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  return { memories: await json(["memories", "--all"]), buckets: await json(["buckets"]), chats: await json(["chats", "list"]) };
}

describe("mnemo export and mnemo import of its file", () => {
  it("round-trips a store through a .jsonl.gz file, refuses to overwrite, and writes JSONL to stdout with -", async () => {
    const env = storeWithChatGpt();
    expect((await runCli(["remember", "The tram 28 goes up to Graça"], { env })).code).toBe(0);
    expect((await runCli(["buckets", "create", "Travel"], { env })).code).toBe(0);
    const file = path.join(tempDir(), "backup.jsonl.gz");

    const exported = await runCli(["export", file], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/✔ Exported 1 user, 1 memory, 2 buckets, \d+ conversations to .*backup\.jsonl\.gz \(\d+ KB\)/);
    expect(exported.stderr).not.toMatch(/Exporting/); // no progress bar when stderr is not a terminal
    const lines = gunzipSync(fs.readFileSync(file)).toString("utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: "mnemo-export", version: 1, scope: "user", vectors: true });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "end" });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const again = await runCli(["export", file], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/file: .*backup\.jsonl\.gz exists/);
    expect(again.stderr).toMatch(/--yes to replace it/);
    // A folder that is not there, or a folder for a file: said before the store is read, with the fix, not as an errno.
    const nowhere = path.join(tempDir(), "no-such-folder", "backup.jsonl.gz");
    expect(await runCli(["export", nowhere], { env })).toMatchObject({
      code: 2,
      stderr: `✖ file: cannot write ${nowhere}: there is no folder ${path.dirname(nowhere)}\n  → Create the folder first, or pass a file in one that exists.\n`,
    });
    const folder = tempDir();
    expect(await runCli(["export", folder], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^✖ file: .* is a folder\n/),
    });
    expect(fs.readdirSync(folder)).toEqual([]);

    const stdout = await runCli(["export", "-", "--no-vectors"], { env });
    expect(stdout.code, stdout.stderr).toBe(0);
    const plain = stdout.stdout.trim().split("\n");
    expect(plain).toHaveLength(lines.length);
    expect(stdout.stdout).not.toMatch(/"vector"/);

    const restoredEnv = storeEnv();
    const restored = await runCli(["import", file], { env: restoredEnv });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toMatch(
      /✔ Restored .*backup\.jsonl\.gz into user default \(new\): 1 memory, 2 buckets, \d+ conversations, 1 import record/,
    );
    expect(await contents(restoredEnv)).toEqual(await contents(env));

    const twice = await runCli(["--json", "import", file], { env: restoredEnv });
    expect(twice.code, twice.stderr).toBe(0);
    expect(JSON.parse(twice.stdout).restored[0].added).toEqual({ bucket: 0, memory: 0, platform: 0, conversation: 0 });
  });

  it("says when the trash holds what the file leaves out, and not when it is empty", async () => {
    const env = storeEnv();
    const kept = JSON.parse((await runCli(["--json", "remember", "--no-date", "Keep the receipts until April"], { env })).stdout).memoryId;
    const binned = JSON.parse((await runCli(["--json", "remember", "--no-date", "An old note"], { env })).stdout).memoryId;
    const before = await runCli(["export", path.join(tempDir(), "before.jsonl")], { env });
    expect(before.code, before.stderr).toBe(0);
    expect(before.stderr).not.toMatch(/trash/);
    expect((await runCli(["memories", "delete", "--trash", binned], { env })).code).toBe(0);
    const file = path.join(tempDir(), "after.jsonl");
    const after = await runCli(["export", file], { env });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/The trash's entry is not in the file: `mnemo trash` shows it, `mnemo trash restore <id>` puts back/);
    const held = fs.readFileSync(file, "utf8");
    expect(held).toContain(kept);
    expect(held).not.toContain(binned);
  });

  it("exports every user with --all-users, and a cut-short file restores what it holds with exit 1", async () => {
    const env = storeEnv();
    expect((await runCli(["remember", "default's memory"], { env })).code).toBe(0);
    expect((await runCli(["users", "add", "alice"], { env })).code).toBe(0);
    expect((await runCli(["--user", "alice", "remember", "alice's memory"], { env })).code).toBe(0);
    const file = path.join(tempDir(), "all.jsonl");
    const exported = await runCli(["export", "--all-users", file], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/Exported 2 users, 2 memories/);

    const target = storeEnv();
    expect((await runCli(["import", file], { env: target })).code).toBe(0);
    const alice = await runCli(["--json", "--user", "alice", "memories"], { env: target });
    expect(JSON.parse(alice.stdout).memories).toMatchObject([{ text: expect.stringMatching(/alice's memory$/) }]);

    const cut = path.join(tempDir(), "cut.jsonl");
    fs.writeFileSync(cut, fs.readFileSync(file, "utf8").split("\n").slice(0, 4).join("\n"));
    const short = await runCli(["import", cut], { env: storeEnv() });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/cut short/);

    // Saved again by a Windows editor: a byte order mark before the header and CRLF line ends.
    const edited = path.join(tempDir(), "edited.jsonl");
    fs.writeFileSync(edited, `\uFEFF${fs.readFileSync(file, "utf8").replaceAll("\n", "\r\n")}`);
    const fromEdited = storeEnv();
    const restoredEdited = await runCli(["import", edited], { env: fromEdited });
    expect(restoredEdited.code, restoredEdited.stderr).toBe(0);
    expect(restoredEdited.stderr).toMatch(/Restored .* 2 memories/);
    const aliceEdited = await runCli(["--json", "--user", "alice", "memories"], { env: fromEdited });
    expect(JSON.parse(aliceEdited.stdout).memories).toMatchObject([{ text: expect.stringMatching(/alice's memory$/) }]);
  });

  it("a store whose chunks table is damaged: the export refuses, naming it, and says --no-vectors backs up the rest", async () => {
    const env = storeWithChatGpt();
    const data = path.join(env["MNEMO_STORE"]!, "db", "chunks.lance", "data");
    for (const file of fs.readdirSync(data)) fs.truncateSync(path.join(data, file), 100);
    const file = path.join(tempDir(), "backup.jsonl");

    const refused = await runCli(["export", file], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/"chunks" table is damaged/);
    expect(refused.stderr).toMatch(/`mnemo export --no-vectors` leaves the search index out/);
    const without = await runCli(["export", "--no-vectors", file], { env });
    expect(without.code, without.stderr).toBe(0);
    expect(without.stderr).toMatch(/Exported 1 user, 0 memories, 1 bucket, \d+ conversations/);
  });

  it("restoring a user's export with --user into another user of the same store says what it could not copy", async () => {
    const env = storeWithChatGpt();
    expect((await runCli(["remember", "default's memory"], { env })).code).toBe(0);
    const file = path.join(tempDir(), "default.jsonl");
    expect((await runCli(["export", file], { env })).code).toBe(0);
    expect((await runCli(["users", "add", "carol"], { env })).code).toBe(0);

    const copied = await runCli(["--user", "carol", "import", file], { env });
    // The ids are the store's own and held by default: not stored again, and not passed off as carol's.
    expect(copied.code).toBe(1);
    expect(copied.stderr).toMatch(/1 memory of the file is another user's in this store \(ids are store-wide\): not restored into carol/);
    expect(copied.stderr).toMatch(/\d+ conversations of the file are another user's in this store/);
    const defaults = await runCli(["--json", "memories"], { env });
    expect(JSON.parse(defaults.stdout).memories).toMatchObject([{ text: expect.stringMatching(/default's memory$/) }]);
  });

  it("a .jsonl.gz export cut or with a byte changed is still restored: every memory before the break, exit 1, saying where it stopped", async () => {
    const env = storeWithChatGpt();
    const texts = ["The tram 28 goes up to Graça", "My dentist is Dr Silva", "Sourdough wants 75% water"];
    for (const text of texts) expect((await runCli(["remember", "--no-date", text], { env })).code).toBe(0);
    const file = path.join(tempDir(), "backup.jsonl.gz");
    expect((await runCli(["export", file], { env })).code).toBe(0);
    const bytes = fs.readFileSync(file);
    // Past the memories (the first lines), inside the conversations: a small export is one gzip
    // block, whose damage once made the file unrecognised ("not a supported chat export").
    for (const at of [0.5, 0.75].map((share) => Math.floor(bytes.length * share))) {
      const flipped = Buffer.from(bytes);
      flipped[at]! ^= 0xff;
      for (const [name, damaged] of [
        ["cut", bytes.subarray(0, at)],
        ["flipped", flipped],
      ] as const) {
        const copy = path.join(tempDir(), `${name}.jsonl.gz`);
        fs.writeFileSync(copy, damaged);
        const target = storeEnv();
        const restored = await runCli(["import", copy], { env: target });
        expect(restored.code, `${name} at ${at}: ${restored.stderr}`).toBe(1);
        expect(restored.stderr).toMatch(/Restored .* into user default \(new\): 3 memories, 1 bucket, \d conversations?/);
        expect(restored.stderr).toMatch(
          /stops being readable after line \d+ .*: what could be read before line \d+ is restored, nothing after it|gzip checksum does not match .*: every record was read and is restored, but a value in one of them may differ/,
        );
        const memories = JSON.parse((await runCli(["--json", "memories", "--all"], { env: target })).stdout).memories as { text: string }[];
        expect(memories.map((memory) => memory.text).sort()).toEqual([...texts].sort());
      }
    }
  }, 120_000); // a dozen runs of the CLI

  it("a record whose vector a damaged file changed is restored without it, and its vectors made again", async () => {
    const env = storeWithChatGpt();
    expect((await runCli(["remember", "--no-date", "The tram 28 goes up to Graça"], { env })).code).toBe(0);
    const file = path.join(tempDir(), "backup.jsonl");
    expect((await runCli(["export", file], { env })).code).toBe(0);
    // A byte that base64 does not have, in a memory's vector and in a conversation's first chunk's:
    // each line is still JSON of the right shape (Buffer.from drops the byte: 511.75 values).
    const damage = (vector: string) => `${vector.slice(0, 100)}!${vector.slice(101)}`;
    const lines = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const memory = lines.find((record) => record.type === "memory");
    const conversation = lines.find((record) => record.type === "conversation" && record.chunks?.length > 0);
    memory.vector = damage(memory.vector);
    conversation.chunks[0].vector = damage(conversation.chunks[0].vector);
    fs.writeFileSync(file, `${lines.map((record) => JSON.stringify(record)).join("\n")}\n`);

    const target = storeEnv();
    const restored = await runCli(["import", file], { env: target });
    expect(restored.code, restored.stderr).toBe(1);
    expect(restored.stderr).toMatch(/line \d+ \(memory\): vector: not the embedder's values .* the memory is restored and embedded again/);
    expect(restored.stderr).toMatch(
      /line \d+ \(conversation\): a chunk's vector .* the conversation is restored and chunked and embedded again/,
    );
    const found = JSON.parse((await runCli(["--json", "memories", "--query", "which tram goes up to Graça"], { env: target })).stdout);
    expect(found.memories[0].text).toBe("The tram 28 goes up to Graça");
    expect(await contents(target)).toEqual(await contents(env));
  });

  it("exports through a server (GET /api/export); restoring is refused through one, with what to do", async () => {
    const server = await serveStore();
    try {
      expect((await runCli(["remember", "a memory on the server"], { env: server.env })).code).toBe(0);
      const file = path.join(tempDir(), "remote.jsonl.gz");
      const exported = await runCli(["export", file], { env: server.env });
      expect(exported.code, exported.stderr).toBe(0);
      expect(gunzipSync(fs.readFileSync(file)).toString("utf8")).toContain("a memory on the server");
      const refused = await runCli(["import", file], { env: server.env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--remote: restoring a mnemo export works on the store of this machine/);
    } finally {
      await server.stop();
    }
  });
});
