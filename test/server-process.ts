import { request } from "undici";
import { serveStore } from "./helpers.js";

export type Answer = { status: number; body: { error?: string; suggestion?: string } & Record<string, unknown> };
export type Send = (url: string, body?: unknown) => Promise<Answer>;

/**
 * `mnemo serve` in a child process on the store of `env` (and with its preloads), while `work`
 * sends it requests with the token file's token (a POST when given a body), or its own to `url`;
 * stopped after. Returns the server's stderr.
 */
export async function withServer(env: NodeJS.ProcessEnv, work: (send: Send, url: string) => Promise<void>): Promise<string> {
  const served = await serveStore({ serverEnv: env, spawn: true });
  try {
    await work(async (url, body) => {
      const response = await request(`${served.url}${url}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.statusCode, body: (await response.body.json()) as Answer["body"] };
    }, served.url);
    return served.log();
  } finally {
    await served.stop();
  }
}
