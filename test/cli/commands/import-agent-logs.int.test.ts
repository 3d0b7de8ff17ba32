// Coding assistants' sessions on disk (Gemini CLI's ~/.gemini/tmp, VS Code's chatSessions, Continue's
// ~/.continue/sessions, Aider's .aider.chat.history.md in each repository) through the
// CLI's own program: each folder imports a conversation per session, and importing it again, as a
// user does now and then to keep up with the assistant, adds nothing: the ids are the sessions' own.
// Each command opens the store: a second or more each on a loaded machine. The imports pass --no-wait:
// what is stored is tested here, not its indexing.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { chmod, cp, mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { asUserChmodBinds, BIN, isolatedEnv, ROOT, runCli, tempDir } from "../../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");
const FOLDERS = [path.join(EXPORTS, "gemini-cli", "tmp"), path.join(EXPORTS, "vscode-chat", "User", "workspaceStorage")];

describe("mnemo import of Gemini CLI's and VS Code's session folders", () => {
  it("imports a conversation per session under each tool's platform, and again adds nothing", async () => {
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const mnemo = (args: string[]) => runCli(args, { env });
    const first = await mnemo(["--json", "import", "--no-wait", ...FOLDERS]);
    expect(first.code, first.stderr).toBe(0);
    // Gemini CLI's: its two sessions and the two chats saved with /chat save.
    expect(JSON.parse(first.stdout)).toMatchObject({ new: 6, failed: 0 });
    for (const [platform, total] of [
      ["gemini-cli", 4],
      ["vscode-chat", 2],
    ] as const) {
      const list = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", platform])).stdout) as { total: number };
      expect(list.total).toBe(total);
    }
    const again = JSON.parse((await mnemo(["--json", "import", "--no-wait", ...FOLDERS])).stdout);
    expect(again).toMatchObject({ new: 0, unchanged: 6, failed: 0 });
    // A chat saved again under its tag (/chat save tides, a prompt later): the one stored is updated.
    const copy = path.join(tempDir(), "tmp");
    fs.cpSync(FOLDERS[0]!, copy, { recursive: true, preserveTimestamps: true });
    const file = path.join(copy, "7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b", "checkpoint-tides.json");
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { history: object[] };
    saved.history.push(
      { role: "user", parts: [{ text: "And at Roscoff?" }] },
      { role: "model", parts: [{ text: "Half an hour earlier." }] },
    );
    fs.writeFileSync(file, JSON.stringify(saved, null, 2));
    expect(JSON.parse((await mnemo(["--json", "import", "--no-wait", copy])).stdout)).toMatchObject({
      new: 0,
      updated: 1,
      unchanged: 3,
      failed: 0,
    });
    const tides = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", "gemini-cli"])).stdout) as {
      total: number;
      items: { title: string; messageCount: number }[];
    };
    expect([tides.total, tides.items.find((item) => item.title === "tides")?.messageCount]).toEqual([4, 6]);
  });

  it("Continue's sessions folder and a folder of repositories with Aider's hidden histories, likewise", async () => {
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const mnemo = (args: string[]) => runCli(args, { env });
    const folders = [path.join(EXPORTS, "continue", "sessions"), path.join(EXPORTS, "aider")];
    const first = await mnemo(["--json", "import", "--no-wait", ...folders]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ new: 7, failed: 0 });
    for (const [platform, total] of [
      ["continue", 4],
      ["aider", 3],
    ] as const) {
      const list = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", platform])).stdout) as { total: number };
      expect(list.total).toBe(total);
    }
    const again = JSON.parse((await mnemo(["--json", "import", "--no-wait", ...folders])).stdout);
    expect(again).toMatchObject({ new: 0, unchanged: 7, failed: 0 });
  });
});

describe("mnemo import --apps and mnemo watch --apps", () => {
  it("import the folders the apps keep in the home folder; one that holds no chat is said, not failed; none is an error", async () => {
    const home = tempDir();
    await cp(path.join(EXPORTS, "claude-code", "projects"), path.join(home, ".claude", "projects"), { recursive: true });
    await cp(path.join(EXPORTS, "continue", "sessions"), path.join(home, ".continue", "sessions"), { recursive: true });
    await mkdir(path.join(home, ".codex", "sessions"), { recursive: true }); // Codex installed, never used
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const mnemo = (args: string[]) => runCli(args, { env });
    const imported = await mnemo(["import", "--no-wait", "--apps"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      "Found on this machine:\n  Claude Code (~/.claude/projects)\n  Codex (~/.codex/sessions)\n  Continue (~/.continue/sessions)",
    );
    expect(imported.stderr).toContain("Nothing to import in ~/.codex/sessions: it holds no chat mnemo reads.");
    expect(imported.stderr).not.toContain("not a supported chat export");
    // What was left out, named as the user types it.
    expect(imported.stderr).toContain(
      "(in ~/.claude/projects/-home-ana-src-tideapp/5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13/subagents/agent-a1b2c3.jsonl)",
    );
    for (const platform of ["claude-code", "continue"]) {
      const list = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", platform])).stdout) as { total: number };
      expect(list.total).toBeGreaterThan(0);
    }

    const bare = isolatedEnv({ HOME: tempDir(), MNEMO_STORE: path.join(tempDir(), "store") });
    for (const command of [
      ["import", "--apps"],
      ["watch", "--apps"],
    ]) {
      const none = await runCli(command, { env: bare });
      expect(none.code).not.toBe(0);
      expect(none.stderr).toMatch(/--apps.*found no chat app's folder on this machine \(looked for .*Claude Code/);
      // What to give instead: a watch takes folders, not an export's file or zip.
      expect(none.stderr).toContain(
        command[0] === "watch" ? "Name the folder to watch instead" : "Pass an export file, zip or folder instead",
      );
    }
    const nothing = await runCli(["import"], { env: bare });
    expect(nothing.code).not.toBe(0);
    expect(nothing.stderr).toMatch(/paths.*name what to import[\s\S]*--apps/);
  });

  it("an app's folder moved by the variable the app reads (CODEX_HOME) is found there, and its default place not looked in", async () => {
    const home = tempDir();
    const codexHome = tempDir();
    await cp(path.join(EXPORTS, "codex", "sessions"), path.join(codexHome, "sessions"), { recursive: true });
    await mkdir(path.join(home, ".codex", "sessions"), { recursive: true }); // where Codex no longer writes
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ HOME: home, CODEX_HOME: codexHome, MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const dryRun = await runCli(["--json", "import", "--apps", "--dry-run"], { env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const summary = JSON.parse(dryRun.stdout) as { new: number; failed: number };
    expect([summary.new > 0, summary.failed]).toEqual([true, 0]);
    expect(dryRun.stderr).toContain(`Found on this machine:\n  Codex (${path.join(codexHome, "sessions")})`);
    expect(dryRun.stderr).not.toContain("~/.codex/sessions");
    const help = await runCli(["import", "--help"], { env });
    // The apps' lines, after the formats' (where Codex is named too).
    const apps = help.stdout.slice(help.stdout.indexOf("--apps imports"));
    expect(/^ {2}Codex +(.*)$/m.exec(apps)?.[1]).toBe(`${path.join(codexHome, "sessions")} ($CODEX_HOME)`);
  });

  it("a file or folder it may not read costs only what it holds, and is said with why; an app's folder it may not read is no empty one", async () => {
    const home = tempDir();
    const store = tempDir();
    const conversations = path.join(home, ".lmstudio", "conversations");
    await cp(path.join(EXPORTS, "lmstudio", "conversations"), conversations, { recursive: true });
    await cp(path.join(EXPORTS, "continue", "sessions"), path.join(home, ".continue", "sessions"), { recursive: true });
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(store, "store"), MNEMO_EMBEDDER: "bundled" });
    const locked = [
      path.join(conversations, "Work"),
      path.join(conversations, "1731000000000.conversation.json"),
      path.join(home, ".continue", "sessions"),
    ];
    const result = await asUserChmodBinds(["--json", "import", "--apps", "--dry-run"], env, [home, store], locked);
    expect(result.code, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout) as {
      new: number;
      failed: number;
      unreadableFiles: number;
      problems: { reason: string; suggestion?: string }[];
    };
    // Files and folders inside LM Studio's, not conversations: none failed (Continue's own folder is an export not read).
    expect(summary).toMatchObject({ failed: 0, unreadableFiles: 2 });
    for (const file of locked) {
      expect(summary.problems).toContainEqual({
        file: expect.any(String),
        reason: `cannot read ${file}: you may not read it`,
        suggestion: expect.stringContaining("chmod -R u+rX"),
      });
    }
    expect(result.stderr).not.toContain("Nothing to import in ~/.continue/sessions");
    // The one chat it may read is read: LM Studio's borrow checker chat, at the folder's top.
    expect(summary.new).toBe(1);
    const text = await asUserChmodBinds(["import", "--apps", "--dry-run"], env, [home, store], locked);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(
      /^. Would import 1 new conversation \(1 of 2 exports could not be read; 2 files or folders inside could not be read\)$/m,
    );
    expect(text.stderr).not.toMatch(/failed/);
  });

  it("watch --apps says it watches each app's sessions, not that the sessions a folder holds are left alone", async () => {
    const home = tempDir();
    await cp(path.join(EXPORTS, "continue", "sessions"), path.join(home, ".continue", "sessions"), { recursive: true });
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    // Until Ctrl-C: a child process of its own, stopped once its log says what it watches.
    const child = spawn(process.execPath, [BIN, "watch", "--apps"], { env, stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await vi.waitFor(() => expect(log).toMatch(/^Watching .*\.continue\/sessions for /m), { timeout: 30_000 });
      expect(log).toContain(`Watching ${path.join(home, ".continue", "sessions")} for Continue's sessions, imported as they go on`);
      expect(log).not.toContain("left alone");
    } finally {
      child.kill("SIGINT");
      await exited;
    }
  });

  it("watch --apps watches an app's one database file (Zed's threads.db) and imports it", async () => {
    const home = tempDir();
    const threads = path.join(home, ".local", "share", "zed", "threads");
    await cp(path.join(EXPORTS, "zed", "threads"), threads, { recursive: true });
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    // Until Ctrl-C: a child process of its own, stopped once the database, held still for half a second, is imported.
    const child = spawn(process.execPath, [BIN, "watch", "--apps", "--session-settle", "0.5"], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const file = path.join(threads, "threads.db");
    try {
      await vi.waitFor(() => expect(log).toMatch(/From .*threads\.db \(zed\): Imported \d+ new conversations$/m), { timeout: 60_000 });
      expect(log).toContain(`Watching the chats of these apps:\n  Zed (~/.local/share/zed/threads/threads.db)`);
      expect(log).toContain(`Watching ${file} for Zed's chats, imported as they change`);
    } finally {
      child.kill("SIGINT");
      await exited;
    }
  });

  it("watch --apps says which app's folder it may not read, where it had watched it in silence", async () => {
    const home = tempDir();
    const store = tempDir();
    const sessions = path.join(home, ".continue", "sessions");
    await cp(path.join(EXPORTS, "continue", "sessions"), sessions, { recursive: true });
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(store, "store"), MNEMO_EMBEDDER: "bundled" });
    const root = process.getuid?.() === 0;
    // Root reads every folder: as root, the watch runs as nobody, its folders made nobody's.
    if (root) for (const folder of [home, store]) spawnSync("chown", ["-R", "65534:65534", folder]);
    await chmod(sessions, 0o000);
    const cli = [process.execPath, BIN, "watch", "--apps"];
    const [command, ...args] = root ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...cli] : cli;
    const child = spawn(command!, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await vi.waitFor(() => expect(log).toContain(`Cannot watch ${sessions}: you may not read it`), { timeout: 30_000 });
    } finally {
      child.kill("SIGINT");
      await exited;
      await chmod(sessions, 0o755);
    }
  });

  it("a link in an app's folder to a file kept elsewhere is read as the file", async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    const conversations = path.join(home, ".lmstudio", "conversations");
    await mkdir(conversations, { recursive: true });
    const kept = path.join(elsewhere, "1730000000000.conversation.json");
    await cp(path.join(EXPORTS, "lmstudio", "conversations", "1730000000000.conversation.json"), kept);
    await symlink(kept, path.join(conversations, "borrow-checker.conversation.json"));
    // Read once: a second link to it, and a link to a file the folder holds.
    await symlink(kept, path.join(conversations, "again.conversation.json"));
    await cp(path.join(EXPORTS, "lmstudio", "conversations", "Work"), path.join(conversations, "Work"), { recursive: true });
    await symlink(path.join(conversations, "Work", "1730500000000.conversation.json"), path.join(conversations, "lease.conversation.json"));
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const dryRun = await runCli(["--json", "import", "--apps", "--dry-run"], { env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ new: 2 });
    expect(fs.existsSync(store), "a dry run makes no store").toBe(false);
  });

  it("a link in an app's folder to a folder kept elsewhere is read as the folder; one that leads back, around or nowhere is said, not followed", async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    const conversations = path.join(home, ".lmstudio", "conversations");
    await mkdir(conversations, { recursive: true });
    await cp(
      path.join(EXPORTS, "lmstudio", "conversations", "1730000000000.conversation.json"),
      path.join(conversations, "a.conversation.json"),
    );
    await cp(path.join(EXPORTS, "lmstudio", "conversations", "Work"), path.join(elsewhere, "Work"), { recursive: true });
    await symlink(path.join(elsewhere, "Work"), path.join(conversations, "Work"));
    await symlink(path.join(elsewhere, "Work"), path.join(conversations, "Work again")); // read once
    await symlink(path.join(elsewhere, "Work"), path.join(elsewhere, "Work", "itself")); // a loop inside what a link leads to
    await symlink(conversations, path.join(conversations, "loop"));
    await symlink(path.join(home, ".lmstudio"), path.join(conversations, "up"));
    await symlink(path.join(elsewhere, "deleted"), path.join(conversations, "gone"));
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const dryRun = await runCli(["--json", "import", "--apps", "--dry-run"], { env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const summary = JSON.parse(dryRun.stdout) as { new: number; skipped: { file: string; reason: string; count: number }[] };
    expect(summary.new).toBe(2);
    const back = "links to what the folder holds or to a folder around it, not followed (read once where it is)";
    expect(summary.skipped).toEqual(
      expect.arrayContaining([
        { file: path.join(conversations, "loop"), reason: back, count: 1 },
        { file: path.join(conversations, "up"), reason: back, count: 1 },
        { file: path.join(conversations, "gone"), reason: "links that lead nowhere (what they named is gone)", count: 1 },
      ]),
    );
    const human = await runCli(["import", "--apps", "--dry-run"], { env });
    expect(human.stderr).toContain(`1 × links that lead nowhere (what they named is gone) (in ~/.lmstudio/conversations/gone)`);
  });

  it("a folder holding several apps' chats side by side names each format in --json, not only the first", async () => {
    const mix = path.join(tempDir(), "mix");
    await cp(path.join(EXPORTS, "continue", "sessions"), path.join(mix, "continue"), { recursive: true });
    await cp(path.join(EXPORTS, "lmstudio", "conversations"), path.join(mix, "lmstudio"), { recursive: true });
    const env = isolatedEnv({ HOME: tempDir(), MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const dryRun = await runCli(["--json", "import", "--dry-run", mix], { env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const { files } = JSON.parse(dryRun.stdout) as { files: { format: string; formats: string[] }[] };
    expect(files).toEqual([expect.objectContaining({ path: mix, format: "continue", formats: ["continue", "lmstudio"] })]);
  });

  it("with paths given, an app's folder among them or around them is read once, its conversations counted once", async () => {
    const home = tempDir();
    const projects = path.join(home, ".claude", "projects");
    await cp(path.join(EXPORTS, "claude-code", "projects"), projects, { recursive: true });
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    for (const given of [projects, path.join(projects, "-home-ana-bread"), path.join(home, ".claude")]) {
      const dryRun = await runCli(["--json", "import", "--apps", "--dry-run", given], { env });
      expect(dryRun.code, dryRun.stderr).toBe(0);
      const summary = JSON.parse(dryRun.stdout) as { new: number; unchanged: number; files: unknown[] };
      expect({ given, new: summary.new, unchanged: summary.unchanged, files: summary.files.length }).toEqual({
        given,
        new: 2,
        unchanged: 0,
        files: 1,
      });
    }
  });
});
