import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createApp, type App, type AppOptions } from "../src/core/app.js";
import { loadConfig, type ConfigFlags } from "../src/config/load-config.js";
import { waitForQueue } from "../src/core/jobs/import-file.js";
import type { MnemoService } from "../src/core/service.js";
import { BIN, ROOT } from "./paths.js";
import { tempDir } from "./temp-dirs.js";

export { tempDir } from "./temp-dirs.js";

export { BIN, ROOT } from "./paths.js";
export const TINY_BERT = path.join(ROOT, "fixtures", "models", "tiny-bert");
export const TINY_CAPTIONER = path.join(ROOT, "fixtures", "models", "tiny-captioner");

/** Environment for child processes and configs: nothing leaks in from the developer's machine. */
export function isolatedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: tempDir("mnemo-home-"),
    LANCEDB_LOG: "error",
    NO_COLOR: "1",
    TZ: "UTC",
  };
  return { ...env, ...extra };
}

/** An App on a real LanceDB store in a temp dir, with the bundled embedder unless told otherwise. */
export async function openTestApp(flags: ConfigFlags = {}, options: AppOptions = {}): Promise<App> {
  const store = flags.store ?? path.join(tempDir(), "store");
  const config = loadConfig({ embedder: "bundled", ...flags, store }, isolatedEnv());
  return createApp(config, options);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `mnemo` binary in a child process. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
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
  /** The server's data dir (its store, models, images). */
  dataDir: string;
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
 * `mnemo serve` in a child process, on a fresh store unless given one (or given the server's whole
 * env, with its store and preloads), and the env that points the CLI at it with --remote.
 */
export async function serveStore(options: { store?: string; serverEnv?: NodeJS.ProcessEnv } = {}): Promise<ServedStore> {
  const store = options.serverEnv?.["MNEMO_STORE"] ?? options.store ?? path.join(tempDir(), "store");
  const serverEnv = options.serverEnv ?? isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const child = spawn(process.execPath, [BIN, "--json", "serve", "--port", "0"], { env: serverEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const started = await new Promise<{ url: string; tokenFile: string }>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve(JSON.parse(stdout) as { url: string; tokenFile: string });
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo serve exited with ${code}: ${stderr}`)));
  });
  const token = fs.readFileSync(started.tokenFile, "utf8").trim();
  return {
    url: started.url,
    dataDir: store,
    token,
    tokenFile: started.tokenFile,
    // A different (empty) store for the client proves every call goes over HTTP.
    env: isolatedEnv({ MNEMO_URL: started.url, MNEMO_TOKEN: token, MNEMO_STORE: path.join(tempDir(), "unused") }),
    log: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        child.on("close", () => resolve());
        child.kill("SIGTERM");
      }),
    kill: () =>
      new Promise((resolve) => {
        child.on("close", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** Waits until none of the user's conversations is queued or processing (the test's timeout bounds it). */
export async function settled(service: MnemoService): Promise<void> {
  await waitForQueue(service, { pollMs: 50 });
}

/** A test app of its own, with these settings in its config.json and these conversations indexed. */
export async function openAppWithChats(
  chats: Parameters<MnemoService["conversations"]["uploadMany"]>[0],
  settings: Record<string, unknown> = {},
): Promise<{ app: App; service: MnemoService }> {
  const store = path.join(tempDir(), "store");
  fs.mkdirSync(store, { recursive: true });
  fs.writeFileSync(path.join(store, "config.json"), JSON.stringify(settings));
  const app = await openTestApp({ store });
  app.indexer.start();
  const service = await app.service();
  await service.conversations.uploadMany(chats);
  await settled(service);
  return { app, service };
}

/**
 * Where a CLI test's commands go: an embedded store of its own, or `mnemo serve` over --remote.
 * `dataDir` is the data dir of the process that does the work (its models folder, say).
 */
export async function cliTarget(mode: "embedded" | "remote"): Promise<{ env: NodeJS.ProcessEnv; dataDir: string; stop(): Promise<void> }> {
  if (mode === "remote") {
    const served = await serveStore();
    return { env: served.env, dataDir: served.dataDir, stop: () => served.stop() };
  }
  const store = path.join(tempDir(), "store");
  return { env: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" }), dataDir: store, stop: async () => undefined };
}

/** A port on 127.0.0.1 that nothing listens on now (one just given out by the system, and closed). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
