import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BIN, isolatedEnv, ROOT, runCli, runHere, serveStore, tempDir, type ServedStore } from "../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");
const CHATGPT = path.join(EXPORTS, "chatgpt-export.zip");
const CLAUDE = path.join(EXPORTS, "claude-export.zip");

/**
 * A file is imported once it has held for this long (`--settle`, 3 s by default): the tests wait for
 * each import. 0.2 s, the tests' `--session-settle` too: the watcher then looks every 0.2 s (it looks at
 * most every `--settle`), where 0.5 s cost ~35 s over the file; 0.1 is the least it takes.
 */
const SETTLE_SECONDS = 0.2;

interface Watching {
  /** Its stderr so far. */
  log(): string;
  /** Stops it as Ctrl-C does, once; its exit code. */
  stop(): Promise<number | null>;
}

/**
 * `mnemo watch --settle 0.2 <args>` runs until Ctrl-C, its stderr (the log) kept as it comes: in this
 * process (runHere, stopped as Ctrl-C stops it), or with `spawn` in a process of its own sent SIGINT,
 * for two processes on one store and Ctrl-C itself; a process costs ~2 s of CPU more to start.
 */
async function startWatch(args: string[], env: NodeJS.ProcessEnv, options: { spawn?: boolean } = {}): Promise<Watching> {
  const command = ["watch", "--settle", String(SETTLE_SECONDS), ...args];
  if (!options.spawn) {
    const here = await runHere(command, env);
    return { log: here.log, stop: here.stop };
  }
  const child = spawn(process.execPath, [BIN, ...command], { env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  return { log: () => log, stop: () => interrupt(child) };
}

/** What a store's watch.json holds: nothing before a watcher first writes it. */
function watchState(store: string): { folders: Record<string, unknown>; sessions: Record<string, string>; imports: { format: string }[] } {
  const file = path.join(store, "watch.json");
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : { folders: {}, sessions: {}, imports: [] };
}

/** A file as the watcher keeps it imported in watch.json: its size and time now. */
function signatureOf(file: string): string {
  const { size, mtimeMs } = fs.statSync(file);
  return `${size}:${Math.round(mtimeMs)}`;
}

/** Each file kept in watch.json as imported as it stands now. */
function expectKept(store: string, files: string[]): void {
  for (const file of files) expect(watchState(store).sessions[file]).toBe(signatureOf(file));
}

async function interrupt(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGINT");
  return exited;
}

/** A download as a browser may write it in place: the first half, a pause shorter than the settling, then the rest. */
async function download(source: string, target: string): Promise<void> {
  const bytes = fs.readFileSync(source);
  fs.writeFileSync(target, bytes.subarray(0, Math.floor(bytes.length / 2)));
  await new Promise((resolve) => setTimeout(resolve, (SETTLE_SECONDS * 1000) / 2));
  fs.appendFileSync(target, bytes.subarray(Math.floor(bytes.length / 2)));
}

/** The session goes on: a prompt after its last record, as Claude Code appends it. */
function appendPrompt(file: string, content: string): void {
  const last = JSON.parse(fs.readFileSync(file, "utf8").trim().split("\n").at(-1)!) as {
    uuid: string;
    sessionId: string;
    timestamp: string;
  };
  const prompt = {
    parentUuid: last.uuid,
    isSidechain: false,
    type: "user",
    sessionId: last.sessionId,
    uuid: `${last.uuid.slice(0, -4)}9999`,
    timestamp: new Date(Date.parse(last.timestamp) + 60_000).toISOString(),
    message: { role: "user", content },
  };
  fs.appendFileSync(file, `${JSON.stringify(prompt)}\n`);
}

async function conversationCount(env: NodeJS.ProcessEnv): Promise<number> {
  const counted = await runCli(["--json", "chats", "count"], { env });
  return (JSON.parse(counted.stdout) as { count: number }).count;
}

it("refuses a settling time that is not a number of seconds from 0.1 to an hour", async () => {
  for (const settle of ["0", "-1", "soon", "3601"]) {
    const result = await runCli(["watch", "--settle", settle, tempDir("mnemo-downloads-")], { env: isolatedEnv() });
    expect(result.code, settle).toBe(2);
    expect(result.stderr).toContain(`--settle: must be a number of seconds from 0.1 to 3600, not "${settle}"`);
  }
});

describe.each(["embedded", "through the server on the store"] as const)("mnemo watch (%s)", (mode) => {
  let folder: string;
  let env: NodeJS.ProcessEnv;
  let served: ServedStore | undefined;
  let watch: Watching;

  beforeAll(async () => {
    folder = tempDir("mnemo-downloads-");
    const store = path.join(tempDir(), "store");
    env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["remember", "a store to watch into"], { env })).code).toBe(0);
    if (mode !== "embedded") served = await serveStore({ store });
    // Already there when watching begins: left alone.
    fs.copyFileSync(CHATGPT, path.join(folder, "old-chatgpt-export.zip"));
    watch = await startWatch([folder], env);
    await vi.waitFor(
      () => expect(watch.log()).toMatch(/Watching .* for chat exports \(the 1 zip and JSON files it held at first are left alone\)/),
      {
        timeout: 30_000,
      },
    );
  });
  afterAll(async () => {
    if (watch) expect(await watch.stop()).toBe(0);
    await served?.stop();
  });

  it("imports a new export once it has finished downloading, and says so in its log", async () => {
    await download(CHATGPT, path.join(folder, "chatgpt-export.zip"));
    await vi.waitFor(() => expect(watch.log()).toMatch(/From .*chatgpt-export\.zip \(chatgpt\): Imported 4 new conversations$/m), {
      timeout: 60_000,
      interval: 250,
    });
    expect(watch.log()).not.toMatch(/old-chatgpt-export/);
    expect(await conversationCount(env)).toBe(4);
  });

  it("the same content again, under another name, is not imported twice", async () => {
    fs.copyFileSync(CHATGPT, path.join(folder, "chatgpt-export (1).zip"));
    await vi.waitFor(
      () => expect(watch.log()).toMatch(/chatgpt-export \(1\)\.zip is .*chatgpt-export\.zip again, imported on .*: left alone/),
      {
        timeout: 60_000,
      },
    );
    expect(watch.log().match(/From .*: (Imported|Nothing new)/g)).toHaveLength(1);
  });

  it("leaves files that are not exports alone, silently, and imports the next export", async () => {
    fs.writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "not-an-export", version: "1.0.0" }));
    fs.writeFileSync(path.join(folder, "photos.zip"), Buffer.from("PK\u0003\u0004 not a whole archive"));
    fs.writeFileSync(path.join(folder, "notes.txt"), "hello");
    fs.copyFileSync(CLAUDE, path.join(folder, "claude-export.zip"));
    await vi.waitFor(() => expect(watch.log()).toMatch(/From .*claude-export\.zip \(claude\): Imported \d+ new conversations/), {
      timeout: 60_000,
    });
    expect(watch.log()).not.toMatch(/package\.json|photos\.zip|notes\.txt/);
    expect(await conversationCount(env)).toBeGreaterThan(4);
  });

  it("imports the other apps' exports as well (an Open WebUI download)", async () => {
    fs.copyFileSync(
      path.join(EXPORTS, "open-webui", "chat-export-1738400000000.json"),
      path.join(folder, "chat-export-1738400000000.json"),
    );
    await vi.waitFor(
      () => expect(watch.log()).toMatch(/From .*chat-export-1738400000000\.json \(open-webui\): Imported 4 new conversations$/m),
      {
        timeout: 60_000,
      },
    );
  });
});

describe("mnemo watch on a coding agent's sessions", () => {
  const SESSION = path.join(EXPORTS, "claude-code", "projects", "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl");

  it("imports the sessions already there, then each again once it has grown and paused; watch.json keeps where it stands", async () => {
    const projects = tempDir("mnemo-claude-projects-");
    const file = path.join(projects, "-home-ana-src-tideapp", path.basename(SESSION));
    fs.mkdirSync(path.dirname(file));
    fs.copyFileSync(SESSION, file);
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const { log, stop } = await startWatch(["--session-settle", "0.2", projects], env);
    try {
      // A session is imported once it has held still for 0.2 s, seen twice: a few seconds each.
      await vi.waitFor(() => expect(log()).toMatch(/From .*5f0c2a1e.*\.jsonl \(claude-code\): Imported 1 new conversation$/m), {
        timeout: 60_000,
        interval: 250,
      });
      const prompt = {
        parentUuid: "11a0e7c2-0022-4d1e-8a10-000000000022",
        isSidechain: false,
        type: "user",
        sessionId: "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13",
        uuid: "11a0e7c2-0030-4d1e-8a10-000000000030",
        timestamp: "2026-03-02T10:00:00.000Z",
        message: { role: "user", content: "Does the fix hold for Roscoff's tide table too?" },
      };
      fs.appendFileSync(file, `${JSON.stringify(prompt)}\n`);
      await vi.waitFor(() => expect(log()).toMatch(/From .*5f0c2a1e.*\.jsonl \(claude-code\): Imported 1 updated conversation$/m), {
        timeout: 60_000,
        interval: 250,
      });
      const listed = JSON.parse((await runCli(["--json", "chats", "list"], { env })).stdout) as { items: { messageCount: number }[] };
      expect(listed.items.map((item) => item.messageCount)).toEqual([6]);
      // Written just after the log says so.
      await vi.waitFor(() => expectKept(store, [file]), { timeout: 10_000 });
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it("sessions imported before watching began are one line at first, not one each; a re-import with nothing new is silent", async () => {
    const projects = tempDir("mnemo-claude-projects-");
    const sources = [
      SESSION,
      path.join(EXPORTS, "claude-code", "projects", "-home-ana-bread", "9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c.jsonl"),
    ];
    const files = sources.map((source) => path.join(projects, path.basename(path.dirname(source)), path.basename(source)));
    for (const [index, file] of files.entries()) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(sources[index]!, file);
    }
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["import", projects], { env })).code).toBe(0);
    const kept = (file: string) => expectKept(store, [file]);
    const { log, stop } = await startWatch(["--session-settle", "0.2", projects], env);
    try {
      // Each is imported once it has held still for 0.2 s, seen twice: a few seconds.
      await vi.waitFor(() => expect(log()).toMatch(new RegExp(`^From ${projects}: 2 session files already up to date$`, "m")), {
        timeout: 60_000,
        interval: 250,
      });
      expect(log()).not.toMatch(/Nothing new/);
      appendPrompt(files[1]!, "Et avec de la farine complète ?");
      await vi.waitFor(() => expect(log()).toMatch(/From .*9c3e7b21.*\.jsonl \(claude-code\): Imported 1 updated conversation$/m), {
        timeout: 60_000,
        interval: 250,
      });
      // Touched, not changed (an editor saving it as it was): imported again, and the log says nothing of it.
      const touched = files[0]!;
      const later = new Date(fs.statSync(touched).mtimeMs + 60_000);
      fs.utimesSync(touched, later, later);
      await vi.waitFor(() => kept(touched), { timeout: 60_000, interval: 250 });
      expect(log().match(/^From .*$/gm)).toEqual([
        expect.stringMatching(/: 2 session files already up to date$/),
        expect.stringMatching(/\(claude-code\): Imported 1 updated conversation$/),
      ]);
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it("GitHub Copilot CLI's sessions: each events.jsonl in its session's folder, named by the workspace.yaml beside it, imported again once a prompt is appended", async () => {
    const sessionState = tempDir("mnemo-copilot-session-state-");
    const id = "a7e4b1c9-2d3f-4a5b-8c6d-9e0f1a2b3c4d";
    const file = path.join(sessionState, id, "events.jsonl");
    fs.mkdirSync(path.dirname(file));
    fs.copyFileSync(path.join(EXPORTS, "copilot-cli", "session-state", id, "events.jsonl"), file);
    fs.writeFileSync(
      path.join(sessionState, id, "workspace.yaml"),
      `id: ${id}\ncwd: /home/rita\nname: Tamanho das pastas\nuser_named: true\n`,
    );
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const { log, stop } = await startWatch(["--session-settle", "0.2", sessionState], env);
    try {
      // Imported once it has held still for 0.2 s, seen twice: a few seconds each.
      const imported = (how: string) => new RegExp(`From .*${id}.events\\.jsonl \\(copilot-cli\\): Imported 1 ${how} conversation$`, "m");
      await vi.waitFor(() => expect(log()).toMatch(imported("new")), { timeout: 60_000, interval: 250 });
      const prompt = {
        type: "user.message",
        data: { content: "E para ver só as subpastas?" },
        id: "000000ff-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
        timestamp: "2026-08-13T18:05:00.000Z",
        parentId: "00000067-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
      };
      fs.appendFileSync(file, `${JSON.stringify(prompt)}\n`);
      await vi.waitFor(() => expect(log()).toMatch(imported("updated")), { timeout: 60_000, interval: 250 });
      const listed = JSON.parse((await runCli(["--json", "chats", "list"], { env })).stdout) as {
        items: { title: string; messageCount: number }[];
      };
      expect(listed.items.map((item) => [item.title, item.messageCount])).toEqual([["Tamanho das pastas", 3]]);
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it("Kimi CLI's session, its wire.jsonl and context.jsonl written at each turn, is imported once per change, not once per file", async () => {
    const sessions = tempDir("mnemo-kimi-sessions-");
    const id = "0d8e5b71-2c4a-4f93-8e16-7a5b3c9d1e20";
    const folder = path.join(sessions, "92a49af72d608970e86aec3cc07aecb9", id);
    fs.cpSync(path.join(EXPORTS, "kimi-cli", "sessions", "92a49af72d608970e86aec3cc07aecb9", id), folder, { recursive: true });
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const { log, stop } = await startWatch(["--session-settle", "0.2", sessions], env);
    const bothKept = () => expectKept(store, [path.join(folder, "wire.jsonl"), path.join(folder, "context.jsonl")]);
    const imports = () => log().match(/^From .*\(kimi-cli\): .*$/gm) ?? [];
    try {
      // Each file is imported once it has held still for 0.2 s, seen twice: a few seconds each.
      await vi.waitFor(bothKept, { timeout: 60_000, interval: 250 });
      expect(imports()).toEqual([expect.stringMatching(/Imported 1 new conversation$/)]);
      const at = Date.now() / 1000;
      const turn = [
        { timestamp: at, message: { type: "TurnBegin", payload: { user_input: [{ type: "text", text: "E as leituras do polvo?" }] } } },
        { timestamp: at + 0.1, message: { type: "StepBegin", payload: { n: 1 } } },
        { timestamp: at + 0.2, message: { type: "ContentPart", payload: { type: "text", text: "Também: tidepool export polvo." } } },
        { timestamp: at + 0.3, message: { type: "TurnEnd", payload: {} } },
      ];
      fs.appendFileSync(path.join(folder, "wire.jsonl"), turn.map((line) => `${JSON.stringify(line)}\n`).join(""));
      fs.appendFileSync(path.join(folder, "context.jsonl"), `${JSON.stringify({ role: "user", content: "E as leituras do polvo?" })}\n`);
      await vi.waitFor(bothKept, { timeout: 60_000, interval: 250 });
      expect(imports()).toEqual([
        expect.stringMatching(/Imported 1 new conversation$/),
        expect.stringMatching(/Imported 1 updated conversation$/),
      ]);
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it("Kiro CLI's session, its <id>.jsonl appended and <id>.json rewritten at each turn, is imported once per change, not once per file", async () => {
    const sessions = tempDir("mnemo-kiro-sessions-");
    const id = "3f9a1c7e-2b4d-4e6f-8a0b-1c2d3e4f5a61";
    for (const name of [`${id}.json`, `${id}.jsonl`])
      fs.copyFileSync(path.join(EXPORTS, "kiro-cli", "sessions", "cli", name), path.join(sessions, name));
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    const { log, stop } = await startWatch(["--session-settle", "0.2", sessions], env);
    const bothKept = () => expectKept(store, [path.join(sessions, `${id}.json`), path.join(sessions, `${id}.jsonl`)]);
    const imports = () => log().match(/^From .*\(kiro-cli\): .*$/gm) ?? [];
    try {
      // Each file is imported once it has held still for 0.2 s, seen twice: a few seconds each.
      await vi.waitFor(bothKept, { timeout: 60_000, interval: 250 });
      expect(imports()).toEqual([expect.stringMatching(/Imported 1 new conversation$/)]);
      const turn = [
        { version: "v1", kind: "Prompt", data: { message_id: "p-6", content: [{ kind: "text", data: "And the lamp's spare bulb?" }] } },
        {
          version: "v1",
          kind: "AssistantMessage",
          data: { message_id: "a-8", content: [{ kind: "text", data: "Lighthouse spare bulb: 1000 W." }] },
        },
      ];
      fs.appendFileSync(path.join(sessions, `${id}.jsonl`), turn.map((line) => `${JSON.stringify(line)}\n`).join(""));
      const json = path.join(sessions, `${id}.json`);
      fs.writeFileSync(json, fs.readFileSync(json, "utf8").replace("2026-04-20T09:20:41.800Z", "2026-04-20T09:30:00.000Z"));
      await vi.waitFor(bothKept, { timeout: 60_000, interval: 250 });
      expect(imports()).toEqual([
        expect.stringMatching(/Imported 1 new conversation$/),
        expect.stringMatching(/Imported 1 updated conversation$/),
      ]);
    } finally {
      expect(await stop()).toBe(0);
    }
  });
});

it("two folders watched at once keep each other's records in watch.json", async () => {
  const downloads = tempDir("mnemo-downloads-");
  const projects = tempDir("mnemo-claude-projects-");
  const session = path.join(EXPORTS, "claude-code", "projects", "-home-ana-bread", "9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c.jsonl");
  fs.mkdirSync(path.join(projects, "bread"));
  fs.copyFileSync(session, path.join(projects, "bread", path.basename(session)));
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const { log, stop } = await startWatch(["--session-settle", "0.2", projects, downloads], env);
  try {
    // The session first, then the export, so that the downloads' watcher saves last (seconds each).
    await vi.waitFor(() => expect(log()).toMatch(/\(claude-code\): Imported 1 new conversation$/m), { timeout: 60_000, interval: 250 });
    fs.copyFileSync(CLAUDE, path.join(downloads, "claude-export.zip"));
    await vi.waitFor(() => expect(log()).toMatch(/claude-export\.zip \(claude\): Imported/), { timeout: 60_000, interval: 250 });
    const state = () => watchState(store);
    // Written just after the log says so.
    await vi.waitFor(() => expect(state().imports.map((entry) => entry.format)).toEqual(["claude"]), { timeout: 10_000 });
    expect(Object.keys(state().sessions)).toEqual([path.join(projects, "bread", path.basename(session))]);
  } finally {
    expect(await stop()).toBe(0);
  }
});

it("two mnemo watch processes on one store (a terminal's beside the service's) keep each other's records in watch.json", async () => {
  const downloads = tempDir("mnemo-downloads-");
  const projects = tempDir("mnemo-claude-projects-");
  const session = path.join(EXPORTS, "claude-code", "projects", "-home-ana-bread", "9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c.jsonl");
  const file = path.join(projects, "bread", path.basename(session));
  fs.mkdirSync(path.dirname(file));
  fs.copyFileSync(session, file);
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  expect((await runCli(["remember", "a store to watch into"], { env })).code).toBe(0);
  const state = () => watchState(store);
  // The downloads' watcher first, so that what it holds from watch.json predates the sessions' watcher's record.
  // The terminal's in a process of its own, stopped by Ctrl-C's signal; the service's in this one.
  const terminal = await startWatch([downloads], env, { spawn: true });
  let service: Watching | undefined;
  try {
    await vi.waitFor(() => expect(terminal.log()).toMatch(/Watching .* for chat exports/), { timeout: 30_000 });
    service = await startWatch(["--session-settle", "0.2", projects], env);
    // Each import waits for its file to hold still, seen twice: seconds each.
    await vi.waitFor(() => expect(service!.log()).toMatch(/\(claude-code\): Imported 1 new conversation$/m), {
      timeout: 60_000,
      interval: 250,
    });
    fs.copyFileSync(CLAUDE, path.join(downloads, "claude-export.zip"));
    await vi.waitFor(() => expect(terminal.log()).toMatch(/claude-export\.zip \(claude\): Imported/), { timeout: 60_000, interval: 250 });
    await vi.waitFor(() => expect(state().imports).toHaveLength(1), { timeout: 10_000 });
    expect(Object.keys(state().sessions)).toEqual([file]);
    // And the other way: the session goes on, and its record is written beside the export's.
    appendPrompt(file, "Et avec de la farine complète ?");
    await vi.waitFor(() => expect(service!.log()).toMatch(/\(claude-code\): Imported 1 updated conversation$/m), {
      timeout: 60_000,
      interval: 250,
    });
    // Written just after the log says so.
    await vi.waitFor(() => expect(state().sessions).toEqual({ [file]: signatureOf(file) }), { timeout: 10_000 });
    expect(state().imports.map((entry) => entry.format)).toEqual(["claude"]);
    expect(Object.keys(state().folders).sort()).toEqual([downloads, projects].sort());
  } finally {
    expect(await terminal.stop()).toBe(0);
    if (service) expect(await service.stop()).toBe(0);
  }
});

it("imports the session logs that are one file rewritten as they go (Gemini CLI's .json before April 2026, VS Code's chat, Cline's tasks and SDK sessions, Aider's history), and no other .json", async () => {
  const watched = tempDir("mnemo-sessions-");
  fs.cpSync(path.join(EXPORTS, "gemini-cli", "tmp"), path.join(watched, "gemini-tmp"), { recursive: true });
  const task = path.join("saoudrizwan.claude-dev", "tasks", "1748001234567");
  fs.cpSync(path.join(EXPORTS, "cline", task), path.join(watched, task), { recursive: true });
  // Roo Code's, known by its extension's folder.
  const rooTask = path.join("rooveterinaryinc.roo-cline", "tasks", "3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c");
  fs.cpSync(path.join(EXPORTS, "cline", rooTask), path.join(watched, rooTask), { recursive: true });
  // Qwen Code's session of 2025, Gemini CLI's file, known by its answers (typed qwen).
  fs.cpSync(path.join(EXPORTS, "qwen-code", "tmp"), path.join(watched, "qwen-tmp"), { recursive: true });
  // Cline's SDK sessions (~/.cline/data/sessions): a session's .messages.json beside its manifest and a subagent's file.
  fs.cpSync(path.join(EXPORTS, "cline", "sessions"), path.join(watched, "cline-sessions"), { recursive: true });
  // And Aider's history, a Markdown file by its one name in a repository, appended to as sessions go on.
  fs.cpSync(path.join(EXPORTS, "aider", "tideapp"), path.join(watched, "tideapp"), { recursive: true });
  const aider = path.join(watched, "tideapp", ".aider.chat.history.md");
  fs.cpSync(path.join(EXPORTS, "vscode-chat", "User", "workspaceStorage"), path.join(watched, "workspaceStorage"), { recursive: true });
  // A project beside them: .json files by the hundred, none a session.
  for (let index = 0; index < 200; index++) {
    const dir = path.join(watched, "project", `package-${index}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `package-${index}`, version: "1.0.0" }));
  }
  const gemini = fs
    .readdirSync(path.join(watched, "gemini-tmp"), { recursive: true, encoding: "utf8" })
    .map((name) => path.join(watched, "gemini-tmp", name))
    .find((file) => /session-.*\.json$/.test(file))!;
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const watch = await startWatch(["--session-settle", "0.2", watched], env);
  try {
    // Each is imported once it has held still for 0.2 s, seen twice: a few seconds.
    await vi.waitFor(
      () => {
        expect(watch.log()).toMatch(/From .*chats\/session-2026-03-14T09-12-5f0c2a1e\.json \(gemini-cli\): Imported 1 new conversation$/m);
        expect(watch.log()).toMatch(
          /From .*chatSessions\/5d2e8f14-6a3b-4c9d-8e1f-2a3b4c5d6e7f\.json \(vscode-chat\): Imported 1 new conversation$/m,
        );
        expect(watch.log()).toMatch(/From .*1748001234567\/ui_messages\.json \(cline\): Imported 1 new conversation$/m);
        expect(watch.log()).toMatch(/From .*\/1784200000000_k3xq9\.messages\.json \(cline\): Imported 1 new conversation$/m);
        expect(watch.log()).toMatch(
          /From .*3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c\/ui_messages\.json \(roo-code\): Imported 1 new conversation$/m,
        );
        expect(watch.log()).toMatch(/From .*chats\/session-2025-10-20T08-30-4f2d9c1e\.json \(qwen-code\): Imported 1 new conversation$/m);
        expect(watch.log()).toMatch(/From .*\/1784094124598_rruoq\.messages\.json \(cline\): Imported 1 new conversation$/m);
        expect(watch.log()).toMatch(/From .*tideapp\/\.aider\.chat\.history\.md \(aider\): Imported 2 new conversations$/m);
      },
      { timeout: 60_000, interval: 250 },
    );
    const before = (
      JSON.parse((await runCli(["--json", "chats", "list", "--page-size", "100"], { env })).stdout) as {
        items: { title: string; messageCount: number }[];
      }
    ).items.find((item) => item.title === "Fix Brest tide CSV parsing")!.messageCount;
    // Gemini CLI writes the whole file again with each message.
    const session = JSON.parse(fs.readFileSync(gemini, "utf8")) as { lastUpdated: string; messages: unknown[] };
    session.messages.push(
      { id: "0a6f1c2e-1111-4a1b-8c1d-000000000007", timestamp: "2026-03-14T09:20:00.000Z", type: "user", content: "And for Roscoff?" },
      {
        id: "0a6f1c2e-1111-4a1b-8c1d-000000000008",
        timestamp: "2026-03-14T09:20:05.000Z",
        type: "gemini",
        content: "Roscoff's table has the same columns: the fix holds.",
        thoughts: [],
        model: "gemini-2.5-flash",
      },
    );
    session.lastUpdated = "2026-03-14T09:20:05.000Z";
    fs.writeFileSync(gemini, JSON.stringify(session, null, 2));
    fs.appendFileSync(
      aider,
      "\n# aider chat started at 2026-03-20 10:00:00\n\n#### Does spring_tides handle leap years?  \n\nYes: astral counts the days itself.\n\n",
    );
    await vi.waitFor(
      () => {
        expect(watch.log()).toMatch(/From .*session-2026-03-14T09-12-5f0c2a1e\.json \(gemini-cli\): Imported 1 updated conversation$/m);
        expect(watch.log()).toMatch(/From .*\.aider\.chat\.history\.md \(aider\): Imported 1 new conversation; 2 unchanged$/m);
      },
      { timeout: 60_000, interval: 250 },
    );
    // Nor what Cline sent the model, beside the task's chat: a file of its format that holds no chat.
    expect(watch.log()).not.toMatch(/package\.json|api_conversation_history|task_metadata|Could not import/);
    const listed = JSON.parse((await runCli(["--json", "chats", "list", "--page-size", "100"], { env })).stdout) as {
      items: { title: string; platform: string; messageCount: number }[];
    };
    // Updated in place: the session once, with the two new messages.
    const brest = listed.items.filter((item) => item.title === "Fix Brest tide CSV parsing");
    expect(brest.map((item) => [item.platform, item.messageCount])).toEqual([["gemini-cli", before + 2]]);
    const apps = (title: string) => listed.items.filter((item) => item.title === title).map((item) => item.platform);
    expect([
      apps("Add a --json flag to the `tides` command"),
      apps("Plan a retry with backoff for the tide API client in src/api.ts"),
      apps("The Brest tide table shows 24:10 for boats after midnight."),
    ]).toEqual([["roo-code"], ["cline"], ["cline"]]);
  } finally {
    expect(await watch.stop()).toBe(0);
  }
});

/**
 * `claude --resume`: a new file under a new session id, starting with the old session's lines (their
 * uuids kept, their sessionId the new one), then the session goes on: two messages.
 */
function writeResumed(session: string, project: string): void {
  const resumedId = "7a1d3c5e-2f4b-4a6c-8e9d-1b3c5d7e9f02";
  const copied = fs
    .readFileSync(session, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((record) => (record.sessionId === undefined ? record : { ...record, sessionId: resumedId }));
  const later = [
    {
      parentUuid: "11a0e7c2-0022-4d1e-8a10-000000000022",
      isSidechain: false,
      type: "user",
      sessionId: resumedId,
      uuid: "11a0e7c2-0023-4d1e-8a10-000000000023",
      timestamp: "2026-03-03T09:00:00.000Z",
      message: { role: "user", content: "Back to it: does Roscoff's table parse now?" },
    },
    {
      parentUuid: "11a0e7c2-0023-4d1e-8a10-000000000023",
      isSidechain: false,
      type: "assistant",
      sessionId: resumedId,
      uuid: "11a0e7c2-0024-4d1e-8a10-000000000024",
      timestamp: "2026-03-03T09:00:06.000Z",
      message: {
        id: "msg_02A",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-20250514",
        content: [{ type: "text", text: "Yes: same columns, same fix." }],
      },
    },
  ];
  fs.writeFileSync(
    path.join(project, `${resumedId}.jsonl`),
    `${[...copied, ...later].map((record) => JSON.stringify(record)).join("\n")}\n`,
  );
}

it.each(["embedded", "through the server on the store"] as const)(
  "a Claude Code session resumed into a new file while watching is stored once, with the old session's messages (%s)",
  async (mode) => {
    const session = path.join(EXPORTS, "claude-code", "projects", "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl");
    const projects = tempDir("mnemo-claude-projects-");
    const project = path.join(projects, "-home-ana-src-tideapp");
    fs.mkdirSync(project);
    fs.copyFileSync(session, path.join(project, path.basename(session)));
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["remember", "a store to watch into"], { env })).code).toBe(0);
    const served = mode === "embedded" ? undefined : await serveStore({ store });
    const watch = await startWatch(["--session-settle", "0.2", projects], env);
    const list = async () =>
      (JSON.parse((await runCli(["--json", "chats", "list"], { env })).stdout) as { items: { messageCount: number }[] }).items;
    try {
      await vi.waitFor(() => expect(watch.log()).toMatch(/From .*5f0c2a1e.*\.jsonl \(claude-code\): Imported 1 new conversation$/m), {
        timeout: 60_000,
        interval: 250,
      });
      const before = (await list()).map((item) => item.messageCount);
      expect(before).toHaveLength(1);
      writeResumed(session, project);
      await vi.waitFor(() => expect(watch.log()).toMatch(/From .*7a1d3c5e.*\.jsonl \(claude-code\): Imported 1 new conversation/m), {
        timeout: 60_000,
        interval: 250,
      });
      // The old session's conversation is the resumed one's beginning: one conversation, holding both.
      await vi.waitFor(async () => expect((await list()).map((item) => item.messageCount)).toEqual([before[0]! + 2]), {
        timeout: 30_000,
        interval: 250,
      });
      // The old conversation is in the trash (kept 30 days), and watching goes on without importing the old file again.
      await vi.waitFor(() => expect(watch.log()).toMatch(/The conversation imported from .*5f0c2a1e.*\.jsonl went to the trash/), {
        timeout: 10_000,
      });
      const trash = JSON.parse((await runCli(["--json", "trash"], { env })).stdout) as { items: { kind: string }[] };
      expect(trash.items.map((item) => item.kind)).toEqual(["conversation"]);
      expect(watch.log().match(/5f0c2a1e.*\.jsonl \(claude-code\): Imported/g)).toHaveLength(1);
    } finally {
      expect(await watch.stop()).toBe(0);
      await served?.stop();
    }
  },
);

it("a resumed Claude Code session already there when watching begins is stored once, from the file that holds it whole", async () => {
  const session = path.join(EXPORTS, "claude-code", "projects", "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl");
  const projects = tempDir("mnemo-claude-projects-");
  const project = path.join(projects, "-home-ana-src-tideapp");
  fs.mkdirSync(project);
  fs.copyFileSync(session, path.join(project, path.basename(session)));
  writeResumed(session, project);
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const watch = await startWatch(["--session-settle", "0.2", projects], env);
  try {
    await vi.waitFor(
      () => {
        expect(watch.log()).toMatch(/From .*7a1d3c5e.*\.jsonl \(claude-code\): Imported 1 new conversation$/m);
        expect(watch.log()).toMatch(/5f0c2a1e.*\.jsonl is a session resumed in .*7a1d3c5e.*\.jsonl: left out, imported there/);
      },
      { timeout: 60_000, interval: 250 },
    );
    const listed = JSON.parse((await runCli(["--json", "chats", "list"], { env })).stdout) as { items: { messageCount: number }[] };
    expect(listed.items).toHaveLength(1);
  } finally {
    expect(await watch.stop()).toBe(0);
  }
});

it("the first watch --apps after import --apps imports only what changed since: nothing said of the files the import read, nor of a resumed session", async () => {
  const session = path.join(EXPORTS, "claude-code", "projects", "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl");
  const other = path.join(EXPORTS, "claude-code", "projects", "-home-ana-bread", "9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c.jsonl");
  const home = tempDir();
  const projects = path.join(home, ".claude", "projects");
  const project = path.join(projects, "-home-ana-src-tideapp");
  fs.mkdirSync(project, { recursive: true });
  fs.copyFileSync(session, path.join(project, path.basename(session)));
  writeResumed(session, project);
  const changed = path.join(projects, "-home-ana-bread", path.basename(other));
  fs.mkdirSync(path.dirname(changed));
  fs.copyFileSync(other, changed);
  const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
  const imported = await runCli(["import", "--no-wait", "--apps"], { env });
  expect(imported.code, imported.stderr).toBe(0);
  appendPrompt(changed, "Et avec de la farine complète ?");
  const { log, stop } = await startWatch(["--apps", "--session-settle", "0.2"], env);
  try {
    // Imported once it has held still for 0.2 s, seen twice: a few seconds.
    await vi.waitFor(() => expect(log()).toMatch(/From .*9c3e7b21.*\.jsonl \(claude-code\): Imported 1 updated conversation$/m), {
      timeout: 60_000,
      interval: 250,
    });
  } finally {
    // Stopped after the look under way: what it says of the other files is in the log by then.
    expect(await stop()).toBe(0);
  }
  expect(log().match(/^From .*$/gm)).toHaveLength(1);
  expect(log()).not.toMatch(/resumed in|already up to date/);
});

describe("mnemo watch on the databases apps write their chats into", () => {
  const OPENCODE_WAL = path.join(EXPORTS, "opencode-db", "wal");
  const CLAUDE_SESSION = path.join(EXPORTS, "claude-code", "projects", "-home-ana-bread", "9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c.jsonl");
  const imported = (file: string, format: string, outcome: string) => new RegExp(`From .*${file} \\(${format}\\): ${outcome}$`, "m");

  /** A prompt written into Goose's sessions.db as Goose writes it: a row of `messages`, the session's time moved on. */
  async function gooseGoesOn(file: string, text: string): Promise<void> {
    const SQL = await initSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    db.run(
      "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json) VALUES ('20251108_1', 'user', ?, 1762600000, '2025-11-08 11:06:40', '{\"userVisible\":true,\"agentVisible\":true}')",
      [JSON.stringify([{ type: "text", text }])],
    );
    fs.writeFileSync(file, db.export());
    db.close();
  }

  it("imports each at first, again once a message written into it (or its -wal) has held still, and not again unchanged after a restart", async () => {
    const watched = tempDir("mnemo-app-data-");
    const opencode = path.join(watched, "opencode", "opencode.db");
    const goose = path.join(watched, "goose", "sessions", "sessions.db");
    fs.mkdirSync(path.dirname(opencode));
    // OpenCode's database as written at its last checkpoint: its -wal comes later.
    fs.copyFileSync(path.join(OPENCODE_WAL, "opencode.db"), opencode);
    fs.mkdirSync(path.dirname(goose), { recursive: true });
    fs.copyFileSync(path.join(EXPORTS, "goose", "sessions", "sessions.db"), goose);
    fs.cpSync(path.join(EXPORTS, "zed", "threads"), path.join(watched, "zed", "threads"), { recursive: true });
    fs.mkdirSync(path.join(watched, "anythingllm-desktop", "storage"), { recursive: true });
    fs.copyFileSync(
      path.join(EXPORTS, "anythingllm", "anythingllm.db"),
      path.join(watched, "anythingllm-desktop", "storage", "anythingllm.db"),
    );
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    let watch = await startWatch(["--session-settle", "0.2", watched], env);
    try {
      // Each is imported once it has held still for 0.2 s, seen twice: a few seconds.
      await vi.waitFor(
        () => {
          expect(watch.log()).toMatch(imported("opencode.db", "opencode", "Imported 1 new conversation"));
          expect(watch.log()).toMatch(imported("sessions.db", "goose", "Imported \\d+ new conversations"));
          expect(watch.log()).toMatch(imported("threads.db", "zed", "Imported \\d+ new conversations"));
          expect(watch.log()).toMatch(imported("anythingllm.db", "anythingllm", "Imported \\d+ new conversations"));
        },
        { timeout: 60_000, interval: 250 },
      );
      const messagesOf = async (title: string) => {
        const listed = JSON.parse((await runCli(["--json", "chats", "list", "--title", title], { env })).stdout) as {
          items: { title: string; messageCount: number }[];
        };
        return listed.items.find((item) => item.title === title)?.messageCount ?? 0;
      };
      const before = await messagesOf("Ferry timetable importer");
      expect(before).toBeGreaterThan(0);
      // OpenCode writes into the -wal beside the file, which stays as it was until a checkpoint.
      fs.copyFileSync(path.join(OPENCODE_WAL, "opencode.db-wal"), `${opencode}-wal`);
      await vi.waitFor(() => expect(watch.log()).toMatch(imported("opencode.db", "opencode", "Imported 1 new conversation, 1 updated")), {
        timeout: 60_000,
        interval: 250,
      });
      await gooseGoesOn(goose, "And the timetable of the Trafaria ferry?");
      // The one session that grew is stored again, the others left as they are (nothing of theirs embedded again).
      await vi.waitFor(
        () => expect(watch.log()).toMatch(imported("sessions.db", "goose", "Imported 1 updated conversation; \\d+ unchanged")),
        {
          timeout: 60_000,
          interval: 250,
        },
      );
      expect(await messagesOf("Ferry timetable importer")).toBe(before + 1);
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    // A restart imports only what changed meanwhile: a new session beside the databases, not them.
    fs.mkdirSync(path.join(watched, "projects"));
    fs.copyFileSync(CLAUDE_SESSION, path.join(watched, "projects", path.basename(CLAUDE_SESSION)));
    watch = await startWatch(["--session-settle", "0.2", watched], env);
    try {
      await vi.waitFor(() => expect(watch.log()).toMatch(/\(claude-code\): Imported 1 new conversation$/m), {
        timeout: 60_000,
        interval: 250,
      });
      expect(watch.log()).not.toMatch(/From .*\.db /);
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    // Four databases imported, two changes, then a restart: each held still for 0.2 s and seen twice.
  }, 120_000);

  /** A change written into an SQLite database as its app writes one, the whole file at once. */
  async function changeDatabase(file: string, statement: string): Promise<void> {
    const SQL = await initSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    db.run(statement);
    fs.writeFileSync(file, db.export());
    db.close();
  }

  /** `mnemo watch --apps`, each app found in the home folder env names. */
  const startWatchApps = (env: NodeJS.ProcessEnv) => startWatch(["--apps", "--session-settle", "0.2"], env);

  it("OpenCode's database where OPENCODE_DB moved it, named otherwise, is watched as OpenCode's, after import --apps read it once", async () => {
    const moved = path.join(tempDir("mnemo-work-"), "oc.sqlite");
    fs.copyFileSync(path.join(OPENCODE_WAL, "opencode.db"), moved);
    const env = isolatedEnv({ OPENCODE_DB: moved, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const importing = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(importing.code, importing.stderr).toBe(0);
    expect(importing.stderr).toMatch(/^Found on this machine:\n {2}OpenCode \(.*oc\.sqlite\)$/m);
    const watch = await startWatchApps(env);
    try {
      await vi.waitFor(() => expect(watch.log()).toContain("Ctrl-C stops watching."), { timeout: 60_000, interval: 250 });
      // OpenCode writes into the -wal beside the file: imported once it has held still for 0.2 s, seen twice, a few seconds.
      fs.copyFileSync(path.join(OPENCODE_WAL, "opencode.db-wal"), `${moved}-wal`);
      await vi.waitFor(() => expect(watch.log()).toMatch(imported("oc\\.sqlite", "opencode", "Imported 1 new conversation, 1 updated")), {
        timeout: 60_000,
        interval: 250,
      });
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    // What import --apps read is not imported again at first.
    expect(watch.log().match(/^From .*$/gm)).toHaveLength(1);
  });

  it("Cherry Studio 2's database is watched alone in its data folder: import --apps reads the folder once, watch --apps the database again once it changes, nothing beside it", async () => {
    const home = tempDir("mnemo-home-");
    const data = path.join(home, ".config", "CherryStudio");
    const database = path.join(data, "Data", "cherrystudio.sqlite");
    fs.mkdirSync(path.dirname(database), { recursive: true });
    fs.copyFileSync(path.join(EXPORTS, "cherry-studio-2", "Data", "cherrystudio.sqlite"), database);
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const importing = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(importing.code, importing.stderr).toBe(0);
    expect(importing.stderr).toMatch(/^Found on this machine:\n {2}Cherry Studio \(~\/\.config\/CherryStudio\)$/m);
    const stored = await conversationCount(env);
    expect(stored).toBeGreaterThan(0);
    const watch = await startWatchApps(env);
    try {
      await vi.waitFor(() => expect(watch.log()).toContain("Ctrl-C stops watching."), { timeout: 60_000, interval: 250 });
      expect(watch.log()).toMatch(
        /^Watching the chats of these apps:\n {2}Cherry Studio \(~\/\.config\/CherryStudio\/Data\/cherrystudio\.sqlite\)$/m,
      );
      // The app's IndexedDB changes all the time beside the database; then the user renames a topic.
      const leveldb = path.join(data, "IndexedDB", "file__0.indexeddb.leveldb");
      fs.mkdirSync(leveldb, { recursive: true });
      fs.writeFileSync(path.join(leveldb, "000003.log"), "a write of the app's own");
      const SQL = await initSqlJs();
      const db = new SQL.Database(fs.readFileSync(database));
      db.run("UPDATE topic SET name = 'Sourdough at 75% hydration', updated_at = updated_at + 60000 WHERE name = 'Sourdough hydration'");
      fs.writeFileSync(database, db.export());
      db.close();
      // Imported again once it has held still for 0.2 s, seen twice: a few seconds.
      await vi.waitFor(
        () =>
          expect(watch.log()).toMatch(imported("cherrystudio\\.sqlite", "cherry-studio", "Imported 1 updated conversation; 1 unchanged")),
        {
          timeout: 60_000,
          interval: 250,
        },
      );
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    // What import --apps read is not imported again, and nothing beside the database is looked at.
    expect(watch.log().match(/^From .*$/gm)).toHaveLength(1);
    expect(await conversationCount(env)).toBe(stored);
  });

  it("the apps --apps imports are watched, several at once: Cursor's database, OpenHands' conversation folders, Jan's threads, LM Studio's and GPT4All's chats, Cherry Studio 2's alpha database; Chatbox's said not to be", async () => {
    const home = tempDir("mnemo-home-");
    const at = (...parts: string[]) => path.join(home, ...parts);
    const cursor = at(".config", "Cursor", "User", "globalStorage", "state.vscdb");
    fs.mkdirSync(path.dirname(cursor), { recursive: true });
    fs.copyFileSync(path.join(EXPORTS, "cursor", "User", "globalStorage", "state.vscdb"), cursor);
    const conversation = at(".openhands", "conversations", "7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6");
    fs.cpSync(path.join(EXPORTS, "openhands", "conversations", path.basename(conversation)), conversation, { recursive: true });
    fs.mkdirSync(at(".config", "Jan"), { recursive: true });
    fs.writeFileSync(at(".config", "Jan", "settings.json"), JSON.stringify({ data_folder: at("jan") }));
    fs.cpSync(path.join(EXPORTS, "jan", "threads"), at("jan", "threads"), { recursive: true });
    fs.cpSync(path.join(EXPORTS, "lmstudio", "conversations"), at(".lmstudio", "conversations"), { recursive: true });
    const [gpt4all, later] = fs
      .readdirSync(path.join(EXPORTS, "gpt4all", "GPT4All"))
      .map((name) => path.join(EXPORTS, "gpt4all", "GPT4All", name));
    fs.mkdirSync(at(".local", "share", "nomic.ai", "GPT4All"), { recursive: true });
    fs.copyFileSync(gpt4all!, at(".local", "share", "nomic.ai", "GPT4All", path.basename(gpt4all!)));
    // Cherry Studio 2.0's alphas and betas kept their database in the data folder itself.
    const cherry = at(".config", "CherryStudio", "cherrystudio.sqlite");
    fs.mkdirSync(path.dirname(cherry), { recursive: true });
    fs.copyFileSync(path.join(EXPORTS, "cherry-studio-2", "Data", "cherrystudio.sqlite"), cherry);
    fs.mkdirSync(at(".config", "xyz.chatboxapp.ce", "IndexedDB"), { recursive: true });
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const importing = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(importing.code, importing.stderr).toBe(0);
    const stored = await conversationCount(env);
    const watch = await startWatchApps(env);
    try {
      await vi.waitFor(() => expect(watch.log()).toContain("Ctrl-C stops watching."), { timeout: 60_000, interval: 250 });
      expect(watch.log()).toMatch(
        /^Not watched, imported by `mnemo import --apps`:\n {2}Chatbox \(~\/\.config\/xyz\.chatboxapp\.ce\): its chats are in IndexedDB/m,
      );
      // Each app goes on: Cursor renames a chat, OpenHands writes a prompt's event and its answer's, Jan appends a
      // message, LM Studio and GPT4All save a new chat, Cherry Studio renames a topic.
      await changeDatabase(
        cursor,
        "UPDATE cursorDiskKV SET value = replace(value, '\"Gateway rate limiter\"', '\"Gateway rate limiter per tenant\"') WHERE key LIKE 'composerData:%'",
      );
      const event = (n: number, source: string, role: string, text: string) =>
        fs.writeFileSync(
          path.join(conversation, "events", `event-000${n}-0000000${n}-aaaa-4bbb-8ccc-dddddddddddd.json`),
          JSON.stringify({
            id: `0000000${n}-aaaa-4bbb-8ccc-dddddddddddd`,
            timestamp: "2026-03-14T09:25:00.000000",
            source,
            llm_message: { role, content: [{ type: "text", text }] },
            kind: "MessageEvent",
          }),
        );
      event(13, "user", "user", "And a tide at 24:30?");
      event(14, "agent", "assistant", "Read as 00:30 of the next day.");
      const messages = at("jan", "threads", "9b2f6a14-3c7e-4d8a-b1f0-6e2c9d4a7b35", "messages.jsonl");
      const last = JSON.parse(fs.readFileSync(messages, "utf8").trim().split("\n").at(-1)!) as Record<string, unknown>;
      fs.appendFileSync(
        messages,
        `${JSON.stringify({ ...last, id: "01JGX7K0000000000000000000", role: "user", status: "ready", created_at: 1735903700000, completed_at: 1735903700000, content: [{ type: "text", text: { annotations: [], value: "Try a smaller model then?" } }], metadata: { parentId: last["id"] } })}\n`,
      );
      fs.copyFileSync(
        path.join(EXPORTS, "lmstudio", "conversations", "1730000000000.conversation.json"),
        at(".lmstudio", "conversations", "1732000000000.conversation.json"),
      );
      fs.copyFileSync(later!, at(".local", "share", "nomic.ai", "GPT4All", path.basename(later!)));
      await changeDatabase(
        cherry,
        "UPDATE topic SET name = 'Sourdough at 75% hydration', updated_at = updated_at + 60000 WHERE name = 'Sourdough hydration'",
      );
      // Each imported once it has held still for 0.2 s, seen twice: a few seconds.
      await vi.waitFor(
        () => {
          expect(watch.log()).toMatch(imported("state\\.vscdb", "cursor", "Imported 1 updated conversation; \\d+ unchanged"));
          expect(watch.log()).toMatch(imported("7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6", "openhands", "Imported 1 updated conversation"));
          expect(watch.log()).toMatch(imported("9b2f6a14-3c7e-4d8a-b1f0-6e2c9d4a7b35", "jan", "Imported 1 updated conversation"));
          expect(watch.log()).toMatch(imported("1732000000000\\.conversation\\.json", "lmstudio", "Imported 1 new conversation"));
          expect(watch.log()).toMatch(imported(path.basename(later!), "gpt4all", "Imported 1 new conversation"));
          expect(watch.log()).toMatch(
            imported("CherryStudio/cherrystudio\\.sqlite", "cherry-studio", "Imported 1 updated conversation; 1 unchanged"),
          );
        },
        { timeout: 60_000, interval: 250 },
      );
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    // What import --apps read is not imported again at first; an OpenHands conversation is its folder's, once.
    expect(watch.log().match(/^From .*$/gm)).toHaveLength(6);
    expect(await conversationCount(env)).toBe(stored + 2);
  }, 120_000);

  it("a database over the size mnemo reads is said once, not at each change", async () => {
    const watched = tempDir("mnemo-app-data-");
    const huge = path.join(watched, "opencode.db");
    fs.copyFileSync(path.join(EXPORTS, "opencode-db", "opencode.db"), huge);
    fs.truncateSync(huge, 1.5 * 1024 ** 3); // sparse: no disk used
    const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    const watch = await startWatch(["--session-settle", "0.2", watched], env);
    const refusal =
      /opencode\.db: the database is 1\.5 GB, over the 1\.0 GB mnemo reads: not watched\. Copy the chats alone into a smaller database and import that, with the app closed: sqlite3 opencode\.db/;
    try {
      await vi.waitFor(() => expect(watch.log()).toMatch(refusal), { timeout: 60_000, interval: 250 });
      // OpenCode goes on writing; each session beside it is imported once the database's change has been looked at.
      const tideapp = path.join(EXPORTS, "claude-code", "projects", "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl");
      for (const [index, [size, source]] of (
        [
          [1.6, CLAUDE_SESSION],
          [1.7, tideapp],
        ] as const
      ).entries()) {
        fs.truncateSync(huge, Math.round(size * 1024 ** 3));
        const session = path.join(watched, `project-${index}`, path.basename(source));
        fs.mkdirSync(path.dirname(session));
        fs.copyFileSync(source, session);
        await vi.waitFor(() => expect(watch.log()).toMatch(new RegExp(`project-${index}.*\\(claude-code\\): Imported 1`)), {
          timeout: 60_000,
          interval: 250,
        });
      }
      expect(watch.log().split("mnemo reads: not watched")).toHaveLength(2);
    } finally {
      expect(await watch.stop()).toBe(0);
    }
  });
});
