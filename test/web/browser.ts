import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { isolatedEnv, startCommand, tempDir } from "../helpers.js";

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
  /** The server's process (this one unless spawned), and what it wrote to stderr so far (its request and error log). */
  pid: number;
  log(): string;
  token(): string;
  stop(): Promise<void>;
}

/**
 * `mnemo ui --no-open` on a fresh store: it starts the server and prints the sign-in link. In this
 * process unless `spawn` (a test of the server's own process: its memory).
 */
export async function startUi(options: { spawn?: boolean } = {}): Promise<UiServer> {
  const dataDir = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: dataDir, MNEMO_EMBEDDER: "bundled", MNEMO_RERANKER: "none" });
  const ui = await startCommand<{ url: string; loginUrl: string }>(["--json", "ui", "--no-open", "--port", "0"], env, options);
  return {
    ...ui.printed,
    dataDir,
    env,
    pid: ui.pid,
    log: ui.log,
    token: () => fs.readFileSync(path.join(dataDir, "token"), "utf8").trim(),
    stop: ui.stop,
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

/** Opens the Memories page's "Add a memory" panel, unless it is open already (as it is on an empty store). */
export async function openAddMemory(page: Page): Promise<void> {
  const panel = page.locator("details.panel", { has: page.locator("summary", { hasText: "Add a memory" }) });
  if ((await panel.getAttribute("open")) === null) await panel.locator("summary").click();
}
