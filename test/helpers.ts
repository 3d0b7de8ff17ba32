import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApp, type App, type AppOptions } from "../src/core/app.js";
import { loadConfig, type ConfigFlags } from "../src/config/load-config.js";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BIN = path.join(ROOT, "bin", "mnemo.js");
export const TINY_BERT = path.join(ROOT, "fixtures", "models", "tiny-bert");

/** A fresh data dir under the OS temp dir; removed by `cleanup`. */
export function tempDir(prefix = "mnemo-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Environment for child processes and configs: nothing leaks in from the developer's machine. */
export function isolatedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env["PATH"], HOME: tempDir("mnemo-home-"), LANCEDB_LOG: "error", NO_COLOR: "1" };
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
