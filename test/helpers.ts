import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { chmod } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { inject } from "vitest";
import { runProgram } from "../src/cli/main.js";
import { createApp, type App, type AppOptions } from "../src/core/app.js";
import type { Embedder } from "../src/providers/embedder.js";
import { loadConfig, type ConfigFlags } from "../src/config/load-config.js";
import { waitForQueue } from "../src/core/jobs/import-file.js";
import type { MnemoService } from "../src/core/service.js";
import { BIN, ROOT } from "./paths.js";
import { tempDir } from "./temp-dirs.js";

export { tempDir } from "./temp-dirs.js";

export { BIN, ROOT } from "./paths.js";
export const TINY_BERT = path.join(ROOT, "fixtures", "models", "tiny-bert");
export const TINY_CAPTIONER = path.join(ROOT, "fixtures", "models", "tiny-captioner");

/**
 * Environment for the CLI, child processes and configs: nothing leaks in from the developer's
 * machine. Its models folder ($MNEMO_MODELS) is its own, with the bundled model the run converted
 * once (test/global-setup.ts); a test adds other models to it.
 */
export function isolatedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: tempDir("mnemo-home-"),
    LANCEDB_LOG: "error",
    NO_COLOR: "1",
    TZ: "UTC",
    ...(inject("modelsDir") ? { MNEMO_MODELS: modelsFolder() } : {}),
  };
  return { ...env, ...extra };
}

/**
 * A fresh models folder whose bundled model is the one the run converted (a link), where a
 * test may add others; without the global setup (the unit project), an empty one.
 */
export function modelsFolder(): string {
  const dir = tempDir("mnemo-models-");
  const shared = inject("modelsDir");
  if (shared) fs.symlinkSync(path.join(shared, "bundled"), path.join(dir, "bundled"));
  return dir;
}

/** An App on a real LanceDB store in a temp dir, with the bundled embedder unless told otherwise. */
export async function openTestApp(flags: ConfigFlags = {}, options: AppOptions = {}, env = isolatedEnv()): Promise<App> {
  const store = flags.store ?? path.join(tempDir(), "store");
  const config = loadConfig({ embedder: "bundled", ...flags, store }, env);
  return createApp(config, options);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  /** All of stdin; none by default. */
  input?: string;
}

/**
 * Runs `mnemo <args>` in this process: the CLI's own program (runProgram) with this env, `input` as
 * stdin, and stdout and stderr captured, none of them a terminal. What only a process of its own
 * shows (a signal, the bytes of its command line, LanceDB's own messages on fd 2, a terminal,
 * memory) is for spawnCli; so are the commands that hold the process (serve, ui, mcp on stdio).
 */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const stdout = new Captured();
  const stderr = new Captured();
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  const env = options.env ?? isolatedEnv();
  const embedder = usesSharedModel(args, env) ? await sharedBundledEmbedder() : undefined;
  const code = await runProgram(args, { env, stdin, stdout, stderr, exitCode: 0, embedder });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Whether a command runs on the run's bundled model untouched: its models folder's `bundled` is
 * still the link modelsFolder made, and neither the env nor --embedder names another embedder. A
 * test of a missing, damaged or other model fails one of these and loads its own, as users do.
 */
function usesSharedModel(args: string[], env: NodeJS.ProcessEnv): boolean {
  const shared = inject("modelsDir");
  const models = env["MNEMO_MODELS"];
  if (!shared || !models || !["", undefined, "bundled"].includes(env["MNEMO_EMBEDDER"])) return false;
  const flag = args.findIndex((arg) => arg === "--embedder" || arg.startsWith("--embedder="));
  const named = flag < 0 ? undefined : (args[flag]!.split("=")[1] ?? args[flag + 1]);
  if (named !== undefined && named !== "bundled") return false;
  try {
    return fs.readlinkSync(path.join(models, "bundled")) === path.join(shared, "bundled");
  } catch {
    return false; // not a link (removed, or a folder of its own)
  }
}

let sharedBundled: Promise<Embedder> | undefined;

/**
 * The bundled embedder, loaded once for this test process (isolate: false runs file after file in
 * one) from the run's models folder, and lent to every in-process command that uses that model:
 * each command's app loaded it anew, ~0.2 s of CPU apiece (memories.int.test.ts ran 36). Never
 * closed: idle, its worker holds nothing open and ends with the process.
 */
function sharedBundledEmbedder(): Promise<Embedder> {
  sharedBundled ??= (async () => {
    const { createEmbedder } = await import("../src/providers/create-providers.js");
    const config = loadConfig({ store: path.join(tempDir(), "unused"), embedder: "bundled" }, { MNEMO_MODELS: inject("modelsDir") });
    return createEmbedder("bundled", config);
  })();
  return sharedBundled;
}

/** A stream that keeps what is written to it. */
class Captured extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    done();
    this.emit("written");
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  /** The first JSON document written, once it is whole. */
  firstJson<T>(): Promise<T> {
    return new Promise((resolve) => {
      const look = () => {
        try {
          resolve(JSON.parse(this.text()) as T);
          this.off("written", look);
        } catch {
          // not complete yet
        }
      };
      this.on("written", look);
      look();
    });
  }
}

/** Runs the built `mnemo` binary in a child process of its own. */
export function spawnCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: options.env ?? isolatedEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

export interface ServedStore {
  url: string;
  /** The server's data dir (its store, images). */
  dataDir: string;
  /** The server's models folder ($MNEMO_MODELS). */
  modelsDir: string;
  token: string;
  tokenFile: string;
  env: NodeJS.ProcessEnv;
  /** What the server has written to stderr so far: a line per request. */
  log(): string;
  stop(): Promise<void>;
  /** kill -9: no shutdown at all, as a crash or the OOM killer. */
  kill(): Promise<void>;
}

/**
 * `mnemo serve` on a fresh store unless given one (or given the server's whole env, with its store
 * and preloads), and the env that points the CLI at it with --remote. It runs in this process (the
 * CLI's own program, lent the run's model as runCli lends it) unless `spawn`: a child process of its
 * own is for what only a process shows (kill -9, preloaded faults, a client that blocks this
 * process), and costs ~1 s of CPU to start.
 */
export async function serveStore(options: { store?: string; serverEnv?: NodeJS.ProcessEnv; spawn?: boolean } = {}): Promise<ServedStore> {
  const store = options.serverEnv?.["MNEMO_STORE"] ?? options.store ?? path.join(tempDir(), "store");
  const serverEnv = options.serverEnv ?? isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const server = await startCommand<{ url: string; tokenFile: string }>(["--json", "serve", "--port", "0"], serverEnv, options);
  const { url, tokenFile } = server.printed;
  const token = fs.readFileSync(tokenFile, "utf8").trim();
  return {
    url,
    tokenFile,
    dataDir: store,
    modelsDir: serverEnv["MNEMO_MODELS"]!,
    token,
    // A different (empty) store for the client proves every call goes over HTTP.
    env: isolatedEnv({ MNEMO_URL: url, MNEMO_TOKEN: token, MNEMO_STORE: path.join(tempDir(), "unused") }),
    log: server.log,
    stop: server.stop,
    kill: server.kill,
  };
}

/** A command that runs until stopped (serve, ui), once it has printed its JSON document (--json). */
export interface Started<T> {
  printed: T;
  /** The process it runs in: this one unless spawned. */
  pid: number;
  /** What it has written to stderr so far. */
  log(): string;
  /** As SIGTERM does: it finishes and closes its store. */
  stop(): Promise<void>;
  /** kill -9 (spawned only). */
  kill(): Promise<void>;
}

/**
 * Starts `mnemo <args>` in this process (the CLI's own program on `env`, lent the run's model as
 * runCli lends it, stopped through its io) or, with `spawn`, in a child process of its own: for
 * what only a process shows (kill -9, preloaded faults, its memory, a client that blocks this
 * process), at ~1 s of CPU to start.
 */
export function startCommand<T>(args: string[], env: NodeJS.ProcessEnv, options: { spawn?: boolean } = {}): Promise<Started<T>> {
  return options.spawn ? startProcess<T>(args, env) : startHere<T>(args, env);
}

async function startHere<T>(args: string[], env: NodeJS.ProcessEnv): Promise<Started<T>> {
  const started = await runHere(args, env);
  const exited = started.running.then((code) => Promise.reject(new Error(`mnemo ${args.join(" ")} ended with ${code}: ${started.log()}`)));
  return {
    printed: await Promise.race([started.stdout.firstJson<T>(), exited]),
    pid: process.pid,
    log: started.log,
    stop: async () => void (await started.stop()),
    kill: () => Promise.reject(new Error("a command in this process cannot be killed: start it with { spawn: true }")),
  };
}

/** A command that runs until stopped, running in this process (runHere). */
export interface RunningHere {
  stdout: Captured;
  /** What it has written to stderr so far. */
  log(): string;
  /** Its exit code once it has ended. */
  running: Promise<number>;
  /** As Ctrl-C does: it finishes and closes its store; its exit code. */
  stop(): Promise<number>;
}

/**
 * `mnemo <args>` that runs until stopped (serve, watch) in this process: the CLI's own program on
 * `env`, lent the run's model as runCli lends it, stopped through its io as a signal stops it.
 * Spawning one instead costs ~2 s of CPU to start (modules, store, model): for what only a process shows.
 */
export async function runHere(args: string[], env: NodeJS.ProcessEnv): Promise<RunningHere> {
  const stdout = new Captured();
  const stderr = new Captured();
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const embedder = usesSharedModel(args, env) ? await sharedBundledEmbedder() : undefined;
  const running = runProgram(args, { env, stdin: Readable.from([]), stdout, stderr, exitCode: 0, embedder, stopped });
  return {
    stdout,
    log: () => stderr.text(),
    running,
    stop: () => {
      stop();
      return running;
    },
  };
}

async function startProcess<T>(args: string[], env: NodeJS.ProcessEnv): Promise<Started<T>> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const printed = await new Promise<T>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo ${args.join(" ")} exited with ${code}: ${stderr}`)));
  });
  return {
    printed,
    pid: child.pid!,
    log: () => stderr,
    stop: () => ended(child, "SIGTERM"),
    kill: () => ended(child, "SIGKILL"),
  };
}

/** Sends `signal` to the child and waits for its end; at once if it has ended already (stopped before). */
function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on("close", () => resolve());
    child.kill(signal);
  });
}

/** Waits until none of the user's conversations is queued or processing (the test's timeout bounds it). */
export async function settled(service: MnemoService): Promise<void> {
  await waitForQueue(service, { pollMs: 50 });
}

/**
 * A test app of its own, with these settings in its config.json and these conversations indexed;
 * lent the run's model as runCli lends it, unless the settings name an embedder.
 */
export async function openAppWithChats(
  chats: Parameters<MnemoService["conversations"]["uploadMany"]>[0],
  settings: Record<string, unknown> = {},
): Promise<{ app: App; service: MnemoService }> {
  const store = path.join(tempDir(), "store");
  fs.mkdirSync(store, { recursive: true });
  fs.writeFileSync(path.join(store, "config.json"), JSON.stringify(settings));
  const lent = inject("modelsDir") && !("embedder" in settings);
  const app = await openTestApp({ store }, lent ? { embedder: await sharedBundledEmbedder() } : {});
  app.indexer.start();
  const service = await app.service();
  await service.conversations.uploadMany(chats);
  await settled(service);
  return { app, service };
}

/**
 * A ChatGPT conversation of `turns` messages of ~25 tokens, the fifth telling "The <topic> secret
 * is patience.": two chunks at 192 tokens a chunk, one message a chunk at 48.
 */
export function chatAbout(id: string, topic: string, turns = 8) {
  return {
    platform: "chatgpt",
    conversation: {
      id,
      title: `About ${topic}`,
      createdAt: "2024-03-01T09:00:00Z",
      messages: Array.from({ length: turns }, (_, i) => ({
        id: `${id}-${i}`,
        role: i % 2 ? ("assistant" as const) : ("human" as const),
        content: `Turn ${i} on ${topic}: we talked it through step by step, weighing every option and what each would cost. ${i === 5 ? `The ${topic} secret is patience.` : ""}`,
        createdAt: `2024-03-01T09:${String(10 + i).padStart(2, "0")}:00Z`,
      })),
    },
  };
}

export interface CliTarget {
  env: NodeJS.ProcessEnv;
  /** The data dir of the store that does the work. */
  dataDir: string;
  /** The models folder of whatever does the work (the CLI, or the server): a model put there is used. */
  modelsDir: string;
  stop(): Promise<void>;
}

/** Where a CLI test's commands go: an embedded store of its own, or `mnemo serve` over --remote. */
export async function cliTarget(mode: "embedded" | "remote"): Promise<CliTarget> {
  if (mode === "remote") {
    const served = await serveStore();
    return { env: served.env, dataDir: served.dataDir, modelsDir: served.modelsDir, stop: () => served.stop() };
  }
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  return { env, dataDir: store, modelsDir: env["MNEMO_MODELS"]!, stop: async () => undefined };
}

/** A port on 127.0.0.1 that nothing listens on now (one just given out by the system, and closed). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The CLI as a user whom file modes bind: root reads every file, so as root it runs as nobody (setpriv),
 * the folders it uses made nobody's. `locked` are made unreadable (chmod 000) once they are.
 */
export async function asUserChmodBinds(
  args: string[],
  env: NodeJS.ProcessEnv,
  owned: string[],
  locked: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = process.getuid?.() === 0;
  if (root) for (const folder of owned) spawnSync("chown", ["-R", "65534:65534", folder]);
  for (const file of locked) await chmod(file, 0o000);
  if (!root) return runCli(args, { env });
  const cli = [process.execPath, BIN, ...args];
  const child = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", ...cli], { env, encoding: "utf8" });
  return { code: child.status ?? -1, stdout: child.stdout, stderr: child.stderr };
}
