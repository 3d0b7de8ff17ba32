import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { MnemoService } from "../../core/index.js";
import { CLIENT_IDS, clientById, clientConfig, mcpUrl, stdioServer } from "../../mcp/client-config.js";
import { AppError } from "../../shared/errors.js";
import { BIN } from "../bin-path.js";
import { action, openService, type Session } from "../session.js";

export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description("serve memories and chat history to an MCP client (Claude, Cursor, VS Code…) on stdin/stdout")
    .option("--print-config <client>", `print what a client needs to start it, and exit: ${CLIENT_IDS.join(", ")}`)
    .action(
      action(async (session, options: { printConfig?: string }) => {
        if (options.printConfig !== undefined) return printConfig(session, options.printConfig);
        const { serveStdio } = await import("../../mcp/stdio.js");
        let opened: ReturnType<typeof openService> | undefined;
        const log = (line: string) => void session.io.stderr.write(`mnemo mcp: ${line}\n`);
        // The store (LanceDB, the model) opens with the first call that needs it, not before `initialize`;
        // if it cannot, the next call tries again (the lock may be free by then, the disk less full).
        const open = () =>
          openService(session, { maintenance: "background" }).catch((error: unknown) => {
            opened = undefined;
            throw error;
          });
        await serveStdio({
          service: async (): Promise<MnemoService> => (await (opened ??= open())).service,
          close: async () => {
            await (await opened?.catch(() => undefined))?.close();
          },
          log,
        });
        // The client has gone and the store is closed: nothing may keep the process (a server's
        // keep-alive socket in --remote mode would for 10 s, past the client's patience).
        process.exit(session.io.exitCode);
      }),
    );
}

async function printConfig(session: Session, client: string): Promise<void> {
  const { loadConfig } = await import("../../config/load-config.js");
  const entry = clientById(client);
  if (!entry) throw AppError.invalid("--print-config", `must be one of ${CLIENT_IDS.join(", ")}, not ${JSON.stringify(client)}`);
  const { options, out } = session;
  const config = loadConfig({ store: options.store, user: options.user, remote: options.remote, token: options.token }, session.io.env);
  const launch = {
    node: process.execPath,
    bin: BIN,
    // A remote store's URI as given; a folder made absolute, since a client starts mnemo from anywhere.
    store: config.storeUri === config.paths.database ? path.resolve(config.paths.dataDir) : config.storeUri,
    user: options.user,
  };
  const snippet = config.remote
    ? clientConfig(entry, {
        remote: {
          url: mcpUrl(config.remote.url),
          token: () => config.remote?.token ?? readToken(config.paths.tokenFile),
          bridge: stdioServer({ ...launch, remote: config.remote.url }),
        },
      })
    : clientConfig(entry, { local: stdioServer(launch) });
  if (out.json) return out.data(snippet);
  out.notice(`${snippet.where} (${snippet.docs})`);
  out.line(snippet.text);
}

function readToken(file: string): string {
  try {
    const token = fs.readFileSync(file, "utf8").trim();
    if (token) return token;
  } catch {
    // no file: the error below says what to do
  }
  throw AppError.invalid(
    "--token",
    "is needed to reach a server",
    "Pass --token (or set MNEMO_TOKEN) to the token in the file `token` of the server's data dir.",
  );
}
