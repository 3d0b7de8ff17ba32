import { spawn } from "node:child_process";
import fs from "node:fs";
import { request } from "undici";
import { BIN } from "./paths.js";

export type Answer = { status: number; body: { error?: string; suggestion?: string } & Record<string, unknown> };
export type Send = (url: string, body?: unknown) => Promise<Answer>;

/**
 * `mnemo serve` in a child process on the store of `env` (and with its preloads), while `work`
 * sends it requests with the token file's token (a POST when given a body), or its own to `url`;
 * stopped after. Returns the server's stderr.
 */
export async function withServer(env: NodeJS.ProcessEnv, work: (send: Send, url: string) => Promise<void>): Promise<string> {
  const child = spawn(process.execPath, [BIN, "--json", "serve", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const started = await new Promise<{ url: string; tokenFile: string }>((resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        try {
          resolve(JSON.parse(stdout) as { url: string; tokenFile: string });
        } catch {
          // not whole yet
        }
      });
      child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const token = fs.readFileSync(started.tokenFile, "utf8").trim();
    await work(async (url, body) => {
      const response = await request(`${started.url}${url}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.statusCode, body: (await response.body.json()) as Answer["body"] };
    }, started.url);
    return stderr;
  } finally {
    await new Promise<void>((resolve) => {
      child.on("close", () => resolve());
      child.kill("SIGTERM");
    });
  }
}
