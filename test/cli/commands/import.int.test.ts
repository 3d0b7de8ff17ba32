import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expandingZip } from "../../expanding-zip.js";
import { BIN, isolatedEnv, openTestApp, ROOT, runCli, serveStore, tempDir } from "../../helpers.js";
import { RECORDS, serialise } from "../../importers/generated-export.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");

interface Summary {
  new: number;
  updated: number;
  unchanged: number;
  rejected: number;
  failed: number;
  comparedWithStore: boolean;
  importIds: string[];
  files: { path: string; format: string | null; conversations: number; error?: string }[];
  problems: { reason: string }[];
  repaired: { file: string; record: number; fields: string[]; count: number; text: string }[];
}

/**
 * An empty store as a first command leaves it (its tables made, ~0.5 s), made once and copied for
 * each test that needs a store of its own.
 */
let empty: string;

beforeAll(async () => {
  empty = path.join(tempDir(), "store");
  await (await openTestApp({ store: empty })).close();
});

/** A store of its own, empty: a copy of `empty`, and the env that points the CLI at it. */
function ownStore(): { store: string; env: NodeJS.ProcessEnv } {
  const store = path.join(tempDir(), "store");
  fs.cpSync(empty, store, { recursive: true });
  return { store, env: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" }) };
}

describe("mnemo import", () => {
  const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });

  it("imports ChatGPT, Claude and Gemini exports, waits for indexing, and re-runs without duplicates", async () => {
    const files = ["chatgpt-export.zip", "claude-export.zip", "gemini-takeout.zip"].map((f) => path.join(EXPORTS, f));
    const first = await runCli(["--json", "import", ...files], { env });
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as Summary;
    expect(summary.files.map((f) => f.format)).toEqual(["chatgpt", "claude", "gemini"]);
    expect(summary).toMatchObject({ updated: 0, unchanged: 0, rejected: 0, failed: 0 });
    expect(summary.new).toBeGreaterThanOrEqual(10);
    expect(summary.importIds).toHaveLength(3); // one import record per platform

    const status = JSON.parse((await runCli(["--json", "chats", "status"], { env })).stdout);
    expect(status.counts).toMatchObject({ queued: 0, processing: 0, ready: summary.new });

    const again = JSON.parse((await runCli(["--json", "import", ...files], { env })).stdout) as Summary;
    expect(again).toMatchObject({ new: 0, updated: 0, unchanged: summary.new });
    const count = JSON.parse((await runCli(["--json", "chats", "count"], { env })).stdout);
    expect(count.count).toBe(summary.new);
  });

  it("lists, shows, pins, excludes and deletes conversations", async () => {
    const list = JSON.parse((await runCli(["--json", "chats", "list", "--provider", "chatgpt"], { env })).stdout);
    const lisbon = list.items.find((item: { title: string }) => item.title.includes("Lisbon"));
    expect(lisbon).toBeDefined();
    expect((await runCli(["chats", "list", "--page", "99"], { env })).stderr).toBe("No conversations on page 99: there is 1 page.\n");
    expect((await runCli(["chats", "list", "--title", "Kanji"], { env })).stderr).toBe("page 1 of 1 · 1 conversation\n");
    const total = JSON.parse((await runCli(["--json", "chats", "count"], { env })).stdout).count;
    expect((await runCli(["chats", "list", "--page", "99", "--page-size", "1"], { env })).stderr).toBe(
      `No conversations on page 99: there are ${total} pages.\n`,
    );
    const shown = await runCli(["chats", "show", lisbon.id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Lisbon");
    expect((await runCli(["chats", "pin", lisbon.id], { env })).code).toBe(0);
    const partly = await runCli(["--json", "chats", "pin", lisbon.id, "conv_nope"], { env });
    expect(partly.code).toBe(1); // --json too: a script must not take a partial result for success
    expect(JSON.parse(partly.stdout).updated).toEqual([lisbon.id]);
    // No success mark unless every id was done; the ones not found are named.
    const unpinned = await runCli(["chats", "unpin", "conv_nope"], { env });
    expect([unpinned.code, unpinned.stderr]).toEqual([1, "! Unpinned 0 of 1. Not found: conv_nope\n"]);
    const deleted = await runCli(["--yes", "chats", "delete", "conv_nope", "conv_gone"], { env });
    expect([deleted.code, deleted.stderr]).toEqual([1, "! Deleted 0 of 2. Not found: conv_nope, conv_gone\n"]);
    expect((await runCli(["chats", "pin", lisbon.id], { env })).stderr).toBe("✔ Pinned 1 of 1\n");
    const pinned = JSON.parse((await runCli(["--json", "chats", "list", "--pinned"], { env })).stdout);
    expect(pinned.items.map((i: { id: string }) => i.id)).toEqual([lisbon.id]);
    const before = JSON.parse((await runCli(["--json", "chats", "count"], { env })).stdout).count;
    expect((await runCli(["chats", "exclude", lisbon.id], { env })).code).toBe(0);
    expect(JSON.parse((await runCli(["--json", "chats", "count"], { env })).stdout).count).toBe(before - 1);
    expect((await runCli(["chats", "include", lisbon.id], { env })).code).toBe(0);
    expect((await runCli(["chats", "delete", lisbon.id], { env })).code).toBe(2);
    expect((await runCli(["--yes", "chats", "delete", lisbon.id], { env })).code).toBe(0);
    const missing = await runCli(["chats", "show", lisbon.id], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found/);
  });

  it("a truncated file: what came before the cut is imported, the record cut short is named with its position", async () => {
    const own = ownStore().env;
    const good = path.join(EXPORTS, "upload", "array.json");
    const bad = path.join(EXPORTS, "malformed", "chatgpt-truncated.json");
    // Indexing is not this test's subject: --no-wait leaves it to the queue.
    const result = await runCli(["--json", "import", "--no-wait", good, bad], { env: own });
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary.files[1]).toEqual({ path: bad, format: "chatgpt", formats: ["chatgpt"], conversations: 3 });
    expect(summary.failed).toBe(1);
    expect(summary.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/chatgpt-truncated\.json, record 3: invalid JSON at byte 21355 .*the file looks truncated/),
    ]);
    expect(JSON.parse((await runCli(["--json", "chats", "count"], { env: own })).stdout).count).toBe(summary.new);
  });

  it("one title cut mid-emoji among 60 is repaired and said so, and a damaged record costs itself alone", async () => {
    // The export that imported 0 (one bad title), and one that stopped at the damage and named the wrong record.
    const own = ownStore().env;
    const records = RECORDS.chatgpt.slice(0, 60).map((value, i) => (i === 41 ? { ...value, title: "Plans for Lisbon \ud83d" } : value));
    const { bytes, spans } = serialise(records);
    const damaged = Buffer.concat([bytes.subarray(0, spans[17]!.start + 5), bytes.subarray(spans[17]!.start + 9)]);
    const file = path.join(tempDir(), "conversations.json");
    fs.writeFileSync(file, damaged);
    const result = await runCli(["--json", "import", "--no-wait", file], { env: own });
    expect(result.code).toBe(1); // one record could not be read
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary).toMatchObject({ new: 59, failed: 1 });
    expect(summary.files[0]!.error).toBeUndefined();
    expect(summary.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/conversations\.json, record 18: invalid JSON at byte \d+/),
    ]);
    expect(summary.repaired).toEqual([{ file, record: 42, fields: ["title"], count: 1, text: "Plans for Lisbon \uFFFD" }]);
    const list = JSON.parse((await runCli(["--json", "chats", "list", "--title", "Plans for Lisbon"], { env: own })).stdout);
    expect(list.items.map((item: { title: string }) => item.title)).toEqual(["Plans for Lisbon \uFFFD"]);
    const human = await runCli(["import", "--dry-run", file], { env: own });
    expect(human.stderr).toContain("Repaired and imported: 1 record held text that is not valid Unicode");
    expect(human.stderr).toContain(`${file}, record 42: title ("Plans for Lisbon \uFFFD")`);
    expect(human.stderr).toMatch(/conversations\.json, record 18: invalid JSON at byte \d+/);
  });

  it("a bad NDJSON line is skipped and reported with its line number; the lines after it are imported", async () => {
    const own = ownStore().env;
    const result = await runCli(["--json", "import", "--no-wait", path.join(EXPORTS, "malformed", "upload-bad-line.ndjson")], { env: own });
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as Summary;
    expect(summary).toMatchObject({ new: 2, failed: 1 });
    expect(summary.files[0]!.error).toBeUndefined();
    expect(summary.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/upload-bad-line\.ndjson, record 2: invalid JSON at byte 674 \(line 2, column 52\)/),
    ]);
    const list = JSON.parse((await runCli(["--json", "chats", "list"], { env: own })).stdout);
    expect(list.items.map((item: { title: string }) => item.title).sort()).toEqual([
      "Fado in Lisbon without tourist traps",
      "Stand-up 13 Jan: search latency",
    ]);
  });

  it("prints its import id (on stdout too when stdout is not a terminal), which lists and shows carry; its summary counts one conversation in the singular", async () => {
    const own = ownStore().env;
    const file = path.join(EXPORTS, "upload", "single.json");
    const human = await runCli(["import", "--no-wait", file], { env: own });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toMatch(/^✔ Imported 1 new conversation$/m);
    expect(human.stdout).toMatch(/^imp_\w+\n$/);
    const importId = human.stdout.trim();
    expect(human.stderr).toContain(`Import id ${importId}: \`mnemo chats list --import-id ${importId}\``);
    const json = JSON.parse((await runCli(["--json", "import", "--no-wait", file], { env: own })).stdout) as Summary;
    expect(json.importIds).toEqual([importId]);
    const list = JSON.parse((await runCli(["--json", "chats", "list", "--import-id", importId], { env: own })).stdout);
    expect(list.items).toHaveLength(1);
    expect(list.items[0].importId).toBe(importId);
    expect((await runCli(["chats", "show", list.items[0].id], { env: own })).stdout).toContain(`import ${importId}`);
  });

  it("says what it left out and why, in its summary and in --json; a page that is not an export says what to pass", async () => {
    // Dry runs and a refused page: the store of the tests above, which they leave as it was.
    const claude = path.join(EXPORTS, "claude-2026-export.zip");
    const json = JSON.parse((await runCli(["--json", "import", "--dry-run", claude], { env })).stdout) as Summary & {
      skipped: { file: string; reason: string; count: number }[];
    };
    expect(json.skipped).toEqual([
      { file: "conversations.json (in claude-2026-export.zip)", reason: "conversations without any message text", count: 2 },
    ]);
    const human = await runCli(["import", "--dry-run", path.join(EXPORTS, "chatgpt-2026-export.zip")], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain("Not imported, on purpose:");
    expect(human.stderr).toMatch(/ 1 × shards it lists that the export lacks \(conversations-002\.json\) \(in export_manifest\.json/);
    expect(human.stderr).toMatch(/ 1 × conversations without any message text \(an empty New chat\)/);
    const page = await runCli(["import", path.join(EXPORTS, "chatgpt", "chat.html")], { env });
    expect(page.code).toBe(1);
    expect(page.stderr).toMatch(/chat\.html: this is ChatGPT's chat\.html, a page for reading the export, not its data/);
    expect(page.stderr).toMatch(/Use conversations\.json .* or the zip as downloaded/);
  });

  it("left out for one reason in many files (a projects folder's subagent sessions), says it in one line naming a few files", async () => {
    // A dry run on the store of the tests above, which it leaves as it was.
    const projects = path.join(tempDir(), "projects");
    fs.cpSync(path.join(EXPORTS, "claude-code", "projects"), projects, { recursive: true });
    const agents = path.join(projects, "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13", "subagents");
    for (const n of [1, 2, 3, 4, 5]) fs.copyFileSync(path.join(agents, "agent-a1b2c3.jsonl"), path.join(agents, `agent-copy${n}.jsonl`));
    const human = await runCli(["import", "--dry-run", projects], { env });
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stderr.split("\n").filter((line) => line.includes("sub-agents' sessions"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ {2}6 × sub-agents' sessions .* \(in 6 files: [^,]+agent-[^,]+\.jsonl, [^,]+, [^,]+ and 3 more \(--json lists them all\)\)$/,
    );
  });

  it("an import of nothing readable says so, without a success line", async () => {
    // It stores nothing: the store of the tests above.
    const result = await runCli(["import", path.join(EXPORTS, "malformed", "not-an-export.json"), path.join(tempDir(), "missing.json")], {
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^✖ Nothing imported: 2 exports could not be read\./);
    expect(result.stderr).not.toMatch(/✔/);
  });

  it("a bad --platform is a usage error naming the flag and its form, before any file is read or store opened", async () => {
    const store = path.join(tempDir(), "store");
    const own = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const result = await runCli(["import", "--platform", "bad id!", path.join(EXPORTS, "claude-export.zip")], { env: own });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^✖ --platform: must be 1 to 100 letters, digits, hyphens, underscores or dots/);
    expect(result.stderr).not.toMatch(/could not be read/);
    expect(fs.existsSync(store)).toBe(false);
  });

  it("a failure inside the import's thread reaches the CLI as its typed error, exit code and suggestion", async () => {
    const result = await runCli(
      ["--json", "--remote", "http://127.0.0.1:9", "--token", "x", "import", path.join(EXPORTS, "claude-export.zip")],
      { env },
    );
    expect(result.code).toBe(1);
    const error = JSON.parse(result.stderr.trim().split("\n").pop()!) as { code: string; error: string; suggestion: string };
    expect(error.code).toBe("unavailable");
    expect(error.suggestion).toMatch(/mnemo serve/);
    expect(error.error).toMatch(/127\.0\.0\.1:9/);
  });

  it("an import that runs out of memory stops with a clear error and the way to raise its limit", async () => {
    const own = ownStore().env;
    const file = path.join(EXPORTS, "chatgpt-export.zip");
    const starved = await runCli(["--json", "import", file], { env: { ...own, MNEMO_IMPORT_HEAP_MB: "16" } });
    expect(starved.code).toBe(1);
    const error = JSON.parse(starved.stderr.trim().split("\n").pop()!) as { error: string; suggestion: string };
    expect(error.error).toMatch(/ran out of memory \(its limit is 16 MB\)/);
    expect(error.suggestion).toMatch(/MNEMO_IMPORT_HEAP_MB=32/);
    const bad = await runCli(["import", file], { env: { ...own, MNEMO_IMPORT_HEAP_MB: "lots" } });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/MNEMO_IMPORT_HEAP_MB must be a whole number/);
    const summary = JSON.parse((await runCli(["--json", "import", "--no-wait", file], { env: own })).stdout) as Summary;
    expect(summary.failed).toBe(0);
    expect(JSON.parse((await runCli(["--json", "chats", "count"], { env: own })).stdout).count).toBe(summary.new + summary.unchanged);
  });

  // A 100 MB record written and zipped, then read to the limit: ~45 s on 2 cores at load 12.
  it("a file whose reading passes the heap limit fails alone, named with the way to raise it; the files before and after it are stored", async () => {
    const { env: own } = ownStore();
    // One 100 MB record, which the import's thread parsing it under a 64 MB limit aborted the whole process on (nodejs/node#47224).
    const hostile = expandingZip(480);
    const [chatgpt, claude] = ["chatgpt-export.zip", "claude-export.zip"].map((file) => path.join(EXPORTS, file));
    const run = await runCli(["--json", "import", "--no-wait", chatgpt!, hostile, claude!], {
      env: { ...own, MNEMO_IMPORT_HEAP_MB: "64" },
    });
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as Summary & { problems: { file: string; reason: string; suggestion?: string }[] };
    expect(summary.files.map((file) => [file.format, file.error])).toEqual([
      ["chatgpt", undefined],
      ["claude", "Reading hostile.zip needed more memory than the 64 MB an import may take"],
      ["claude", undefined],
    ]);
    expect(summary.problems).toContainEqual(
      expect.objectContaining({ file: hostile, suggestion: expect.stringMatching(/MNEMO_IMPORT_HEAP_MB=128 mnemo import/) }),
    );
    expect(summary.files[2]!.conversations).toBeGreaterThan(0);
    const count = JSON.parse((await runCli(["--json", "chats", "count"], { env: own })).stdout).count;
    expect(count).toBe(summary.new);
  }, 120_000);

  it("--dry-run stores nothing; --no-wait leaves indexing to the queue", async () => {
    const own = ownStore().env;
    const file = path.join(EXPORTS, "claude-export.zip");
    const dry = JSON.parse((await runCli(["--json", "import", "--dry-run", file], { env: own })).stdout) as Summary;
    expect(dry).toMatchObject({ new: 3, updated: 0, unchanged: 0, comparedWithStore: true });
    expect(JSON.parse((await runCli(["--json", "chats", "count"], { env: own })).stdout).count).toBe(0);
    const queued = await runCli(["import", "--no-wait", file], { env: own });
    expect(queued.stderr).toMatch(/`mnemo chats status --wait` indexes them now/);
    const waited = JSON.parse((await runCli(["--json", "chats", "status", "--wait"], { env: own })).stdout);
    expect(waited.counts).toMatchObject({ queued: 0, processing: 0, ready: dry.new });
    // Compared with the store, as a real import would be.
    const again = await runCli(["import", "--dry-run", file], { env: own });
    expect(again.stderr).toMatch(/^✔ Nothing new: all 3 conversations are already imported$/m);
  });

  it("a Claude export folder whose files were saved again as UTF-16 (PowerShell's Out-File) imports as the original does", async () => {
    const dir = path.join(tempDir(), "claude-utf16");
    fs.mkdirSync(dir);
    for (const name of ["conversations.json", "users.json", "projects.json"]) {
      const text = fs.readFileSync(path.join(EXPORTS, "claude", name), "utf8");
      fs.writeFileSync(path.join(dir, name), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
    }
    const own = ownStore().env;
    const original = JSON.parse(
      (await runCli(["--json", "import", "--dry-run", path.join(EXPORTS, "claude")], { env: own })).stdout,
    ) as Summary;
    const saved = JSON.parse((await runCli(["--json", "import", "--dry-run", dir], { env: own })).stdout) as Summary;
    expect(saved.files.map((file) => file.format)).toEqual(["claude"]);
    expect(saved).toMatchObject({ new: original.new, rejected: 0, failed: 0 });
    expect(original.new).toBe(3);
  });

  it("--remote sends a database with what its -wal holds applied (OpenCode's while it runs, as a watch beside the service sends it)", async () => {
    const served = await serveStore();
    try {
      const file = path.join(EXPORTS, "opencode-db", "wal", "opencode.db");
      const dry = await runCli(["--json", "import", "--dry-run", file], { env: served.env });
      expect(dry.code, dry.stderr).toBe(0);
      // The file alone holds one session: the WAL renames it and adds a second.
      expect(JSON.parse(dry.stdout)).toMatchObject({ new: 2, comparedWithStore: true, dryRun: true });
    } finally {
      await served.stop();
    }
  });

  it("--remote sends each export whole to the server's upload endpoint, which imports it as mnemo import does", async () => {
    const served = await serveStore();
    try {
      const file = path.join(EXPORTS, "claude-export.zip");
      // A dry run goes through the same endpoint, so the server compares with its store.
      const dry = JSON.parse((await runCli(["--json", "import", "--dry-run", file], { env: served.env })).stdout) as Summary;
      expect(dry).toMatchObject({ new: 3, updated: 0, unchanged: 0, comparedWithStore: true, dryRun: true });
      expect(dry.files).toEqual([{ path: file, format: "claude", formats: ["claude"], conversations: 3 }]);
      const imported = await runCli(["--json", "import", file], { env: served.env });
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ new: 3, failed: 0, comparedWithStore: true });
      const status = JSON.parse((await runCli(["--json", "chats", "status"], { env: served.env })).stdout);
      expect(status.counts).toMatchObject({ queued: 0, processing: 0, ready: 3 });
      const human = await runCli(["import", file], { env: served.env });
      // Run again, it says nothing was imported, not "Imported 3 conversations: 0 new".
      expect(human.stderr).toMatch(/^✔ Nothing new: all 3 conversations were already imported$/m);
      // A folder is not one file: its conversations still go one request each.
      const folder = await runCli(["--json", "import", path.join(EXPORTS, "claude")], { env: served.env });
      expect(JSON.parse(folder.stdout)).toMatchObject({ new: 0, unchanged: 3 });
      const jobs = await fetch(`${served.url}/api/chat-history/imports`, { headers: { authorization: `Bearer ${served.token}` } });
      const listed = ((await jobs.json()) as { jobs: { state: string; summary: { outcome: { conversations: string } } }[] }).jobs;
      expect(listed.map((job) => job.state)).toEqual(["done", "done", "done"]);
      // Its words for the web app, newest first: the same sentences mnemo import prints.
      expect(listed.map((job) => job.summary.outcome.conversations)).toEqual([
        "Nothing new: all 3 conversations were already imported",
        "Imported 3 new conversations",
        "Would import 3 new conversations",
      ]);
      // The upload endpoint's summary says what it repaired, as mnemo import does.
      const cut = path.join(tempDir(), "cut-title.json");
      fs.writeFileSync(cut, serialise([{ ...RECORDS.chatgpt[0]!, title: "Cut \ud83d" }]).bytes);
      const repaired = JSON.parse((await runCli(["--json", "import", "--no-wait", cut], { env: served.env })).stdout) as Summary;
      expect(repaired).toMatchObject({ new: 1, failed: 0, repaired: [{ file: cut, record: 1, fields: ["title"], text: "Cut \uFFFD" }] });
    } finally {
      await served.stop();
    }
  });
});

describe("conversation quota", () => {
  it("a quota taken out of config.json lets `chats status --wait` index what it blocked, nothing deleted", async () => {
    const { store, env } = ownStore();
    fs.writeFileSync(path.join(store, "config.json"), JSON.stringify({ conversationQuota: 1 }));
    const imported = await runCli(["--json", "import", path.join(EXPORTS, "claude-export.zip")], { env });
    expect(imported.code, imported.stderr).toBe(0);
    const blocked = JSON.parse((await runCli(["--json", "chats", "status"], { env })).stdout);
    expect(blocked.counts).toMatchObject({ ready: 1, quotaBlocked: 2 });
    fs.writeFileSync(path.join(store, "config.json"), "{}");
    const waited = JSON.parse((await runCli(["--json", "chats", "status", "--wait"], { env })).stdout);
    expect(waited.counts).toMatchObject({ ready: 3, quotaBlocked: 0 });
  });
});

describe("crash recovery", () => {
  it("an import killed mid-way, run again, leaves every conversation once and all ready", async () => {
    const { store, env } = ownStore();
    // One batch of what the import stores at once (200) and part of a second, which the kill comes
    // before; not more, and two short messages each, as the second run indexes every one.
    const total = 250;
    const file = bulkFile(total);

    const child = spawn(process.execPath, [BIN, "import", file], { env, stdio: "ignore" });
    const watcher = await openTestApp({ store });
    const conversations = () => watcher.context.store.count("conversations", "true");
    while ((await conversations()) < 100) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("close", resolve));
    const ready = await watcher.context.store.count("conversations", "status = 'ready'");
    expect(ready, "the import was killed before it finished").toBeLessThan(total);
    await watcher.close();

    const rerun = await runCli(["--json", "import", file], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const app = await openTestApp({ store });
    const rows = await app.context.store.select("conversations", "true", { columns: ["platformConversationId", "status"] });
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.platformConversationId)).size).toBe(total);
    expect(rows.every((r) => r.status === "ready")).toBe(true);
    const chunkOwners = await app.context.store.select("chunks", "true", { columns: ["id", "conversationId"] });
    expect(new Set(chunkOwners.map((c) => c.conversationId)).size).toBe(total);
    expect(new Set(chunkOwners.map((c) => c.id)).size, "no chunk is stored twice").toBe(chunkOwners.length);
    await app.close();
  }, 180_000);

  it("info writes its counts as the rest of the CLI does (1,350), and doctor says why a local store's images table is empty", async () => {
    const { env } = ownStore();
    const stored = await runCli(["import", "--no-wait", bulkFile(30)], { env });
    expect(stored.code, stored.stderr).toBe(0);
    const info = await runCli(["info"], { env });
    expect(info.stdout).toMatch(/^Messages: +60 \(1,\d{3} tokens\)$/m);
    const doctor = await runCli(["doctor"], { env });
    expect(doctor.stdout).toMatch(/images +0 rows.*\(this store keeps image memories' pictures as files in its images folder\)/);
  });

  it("an import run again says that it indexed what an earlier one stored and left to index", async () => {
    const { env } = ownStore();
    const file = bulkFile(3);
    const stored = await runCli(["import", "--no-wait", file], { env });
    expect(stored.code, stored.stderr).toBe(0);

    const again = await runCli(["import", file], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Also indexing 3 conversations an earlier import stored and left to index.");
    expect(again.stderr).toContain("✔ Nothing new: all 3 conversations were already imported");
    expect(again.stderr).toContain("✔ Indexed 3 conversations an earlier import had stored and left to index");
    const json = await runCli(["--json", "import", file], { env });
    expect(JSON.parse(json.stdout).indexedFromBefore, "nothing was left this time").toBeUndefined();
  });

  it("an import stopped with Ctrl-C says that what it stored stays and that running it again imports the rest", async () => {
    const { store, env } = ownStore();
    const file = bulkFile(250);
    const child = spawn(process.execPath, [BIN, "import", file], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("close", (...end) => resolve(end)));
    const watcher = await openTestApp({ store });
    const conversations = () => watcher.context.store.count("conversations", "true");
    while ((await conversations()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill("SIGINT");
    const [code, signal] = await closed;
    expect({ code, signal }).toEqual({ code: null, signal: "SIGINT" });
    expect(stderr).toMatch(/^! Import stopped\. What it stored stays stored: run the same command again to import the rest/m);
    expect(await conversations()).toBeGreaterThan(0);
    await watcher.close();
  }, 60_000);
});

/** `total` conversations of two short messages each, in one NDJSON file. */
function bulkFile(total: number): string {
  const file = path.join(tempDir(), "many.ndjson");
  const lines = Array.from({ length: total }, (_, c) =>
    JSON.stringify({
      platform: "bulk",
      conversation: {
        id: `bulk-${c}`,
        title: `Bulk conversation ${c}`,
        createdAt: "2024-01-01T00:00:00Z",
        messages: Array.from({ length: 2 }, (_, m) => ({
          id: `m${m}`,
          role: m % 2 ? "assistant" : "human",
          content: `Message ${m} of conversation ${c} talks about topic ${(c * 7 + m) % 13} in some detail, with enough words to embed.`,
        })),
      },
    }),
  );
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}
