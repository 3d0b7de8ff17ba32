import fs from "node:fs";
import type { Command } from "commander";
import { AppError } from "../../shared/errors.js";
import { action, type Session } from "../session.js";
import { serve, type ServeOptions } from "./serve.js";
import { runningServer } from "../../config/server-info.js";

interface UiOptions extends ServeOptions {
  open: boolean;
}

export function registerUi(program: Command): void {
  program
    .command("ui")
    .description("open the web app in your browser, signed in (starts `mnemo serve` here if none runs on the store)")
    .option("--no-open", "print the sign-in link instead of opening a browser")
    .option("-p, --port <port>", "port of a server this starts (default 7411; 0 picks a free one)")
    .option("--host <address>", "address of a server this starts (default 127.0.0.1)")
    .action(
      action(async (session, options: UiOptions) => {
        const { loadConfig } = await import("../../config/load-config.js");
        const config = loadConfig({ store: session.options.store, user: session.options.user }, session.io.env);
        const running = runningServer(config.paths.serverInfo);
        if (running) {
          const loginUrl = await codeFromServer(running.url, session, config.paths.tokenFile);
          return show(session, { url: running.url, loginUrl, started: false }, options.open);
        }
        await serve(session, options, async (serving) => {
          await show(session, { url: serving.url, loginUrl: serving.loginUrl(config.user), started: true }, options.open);
        });
      }),
    );
}

/** A one-time link from the server already running on the store, bought with the token (the token file's by default). */
async function codeFromServer(url: string, session: Session, tokenFile: string): Promise<string> {
  const token = session.options.token ?? session.io.env["MNEMO_TOKEN"] ?? readToken(tokenFile);
  if (!token) {
    throw new AppError("unauthorized", `The server at ${url} needs your token, and there is no token file at ${tokenFile}`, {
      suggestion: "Pass it with --token (or $MNEMO_TOKEN), or make one with `mnemo token --rotate` on this machine.",
    });
  }
  const { request } = await import("undici");
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(`${url}/auth/code`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    throw new AppError("unavailable", `Cannot reach the mnemo server at ${url}: ${(error as Error).message}`, {
      suggestion: "Stop it (it may be hung) and run `mnemo ui` again, which starts one.",
    });
  }
  const body = (await response.body.json().catch(() => ({}))) as { path?: string; error?: string };
  if (response.statusCode !== 200 || !body.path) {
    throw new AppError(
      response.statusCode === 401 ? "unauthorized" : "unavailable",
      `The server at ${url} refused: ${body.error ?? response.statusCode}`,
      {
        suggestion: "Pass the token of the user you sign in as with --token (the default user's is in the token file).",
      },
    );
  }
  return `${url}${body.path}`;
}

async function show(session: Session, link: { url: string; loginUrl: string; started: boolean }, open: boolean): Promise<void> {
  const { out } = session;
  const { openBrowser } = await import("../open-browser.js");
  const opened = open && (await openBrowser(link.loginUrl, session.io.env));
  if (out.json) return out.data({ url: link.url, loginUrl: opened ? undefined : link.loginUrl, opened, started: link.started });
  if (opened) out.success(`Opened ${link.url} in your browser, signed in`);
  else {
    out.line(link.loginUrl);
    out.notice("Open this link within 2 minutes to sign in; it works once.");
  }
  if (link.started) out.notice("Serving until Ctrl-C.");
}

function readToken(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
