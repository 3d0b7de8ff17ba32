import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli, tempDir } from "../../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");

describe("a command that only reads, where there is no store", () => {
  it("import --dry-run makes none: all it reads is new, and the folder is not made", async () => {
    const store = path.join(tempDir(), "no-store-yet");
    const env = isolatedEnv({ MNEMO_EMBEDDER: "bundled" });
    const file = path.join(EXPORTS, "claude-export.zip");
    const json = await runCli(["--json", "import", "--dry-run", file, "--store", store], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ new: 3, updated: 0, unchanged: 0, dryRun: true, comparedWithStore: true });
    const text = await runCli(["import", "--dry-run", file], { env: { ...env, MNEMO_STORE: store } });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain(`No store at ${store} yet (a dry run makes none): everything it reads would be new.`);
    expect(text.stderr).toMatch(/Would import 3 new conversations/);
    expect(fs.existsSync(store)).toBe(false);
  });

  it("import --dry-run of a backup makes none either: it reads the backup through, and the rest is all new", async () => {
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["remember", "The spare key is under the blue flowerpot"], { env })).code).toBe(0);
    const backup = path.join(tempDir(), "backup.jsonl");
    expect((await runCli(["export", backup], { env })).code).toBe(0);
    const none = path.join(tempDir(), "none");
    const dry = await runCli(["import", "--dry-run", backup, path.join(EXPORTS, "claude-export.zip")], {
      env: { ...env, MNEMO_STORE: none },
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`Checked ${backup}: 1 memory, 1 bucket, 0 conversations, 0 import records for user default`);
    expect(dry.stderr).toContain("Would import 3 new conversations");
    expect(fs.existsSync(none)).toBe(false);
  });

  it("a --store that is a file is bad input: exit 2, as the README's exit codes say", async () => {
    const file = path.join(tempDir(), "notes.txt");
    fs.writeFileSync(file, "mine");
    const result = await runCli(["--store", file, "info"], { env: isolatedEnv({ MNEMO_EMBEDDER: "bundled" }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`✖ ${file} is not a mnemo store: it is a file`);
    expect(fs.readFileSync(file, "utf8")).toBe("mine");
  });

  it("search, recall, chats, memories, buckets, trash, info and export say there is none and how to start one, and make none", async () => {
    const store = path.join(tempDir(), "mistyped");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const commands = [
      ["search", "lisbon"],
      ["recall", "lisbon"],
      ["chats", "list"],
      ["chats", "count"],
      ["chats", "status"],
      ["memories"],
      ["buckets"],
      ["trash"],
      ["info"],
      ["export", path.join(tempDir(), "out.jsonl")],
    ];
    for (const command of commands) {
      const result = await runCli(command, { env });
      expect(result.code, command.join(" ")).toBe(1);
      expect(result.stderr, command.join(" ")).toContain(`No store at ${store}`);
      expect(result.stderr, command.join(" ")).toContain("`mnemo import <export>` or `mnemo remember <text>` starts one there");
    }
    expect(fs.existsSync(store)).toBe(false);
  });
});
