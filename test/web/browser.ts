import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { BIN, isolatedEnv, tempDir } from "../helpers.js";

/** Debian's Chromium (`apt-get install chromium`): no browser can be downloaded here. */
export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface UiServer {
  url: string;
  /** The one-time sign-in link `mnemo ui` printed (it opens the browser on it when it can). */
  loginUrl: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The server's process, and what it wrote to stderr so far (its request and error log). */
  pid: number;
  log(): string;
  token(): string;
  stop(): Promise<void>;
}

/** `mnemo ui --no-open` on a fresh store: it starts the server and prints the sign-in link. */
export async function startUi(): Promise<UiServer> {
  const dataDir = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: dataDir, MNEMO_EMBEDDER: "bundled", MNEMO_RERANKER: "none" });
  const child = spawn(process.execPath, [BIN, "--json", "ui", "--no-open", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const printed = await new Promise<{ url: string; loginUrl: string }>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve(JSON.parse(stdout) as { url: string; loginUrl: string });
      } catch {
        // not complete yet
      }
    });
    child.on("exit", (code) => reject(new Error(`mnemo ui exited with ${code}: ${stderr}`)));
  });
  return {
    ...printed,
    dataDir,
    env,
    pid: child.pid!,
    log: () => stderr,
    token: () => fs.readFileSync(path.join(dataDir, "token"), "utf8").trim(),
    stop: () =>
      new Promise((resolve) => {
        child.on("close", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A call to the server's REST API with a bearer token. */
export async function api<T = unknown>(
  server: UiServer,
  method: string,
  route: string,
  body?: unknown,
  token = server.token(),
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Waits until none of the user's conversations is queued or processing (the test's timeout bounds it). */
export async function waitUntilIndexed(server: UiServer, token = server.token()): Promise<void> {
  for (;;) {
    const { body } = await api<{ counts: { queued: number; processing: number } }>(
      server,
      "GET",
      "/api/chat-history/status",
      undefined,
      token,
    );
    if (body.counts.queued + body.counts.processing === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
