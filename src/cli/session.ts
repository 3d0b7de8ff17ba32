import type { Command } from "commander";
import type { App, AppOptions } from "../core/index.js";
import { AppError } from "../shared/errors.js";
import type { MnemoService } from "../core/index.js";
import { handleError } from "./handle-error.js";
import { ioOf, type CliIo } from "./io.js";
import { createOutput, type Output } from "./output.js";
import { locateStore } from "../config/location.js";
import { runningServer } from "../config/server-info.js";
import { readTokenFile, routedService, serverForCommand } from "./server-route.js";
import { startSpinner } from "./spinner.js";

/** The options every command takes (declared once on the root program). */
export interface GlobalOptions {
  json: boolean;
  yes: boolean;
  store?: string;
  user?: string;
  embedder?: string;
  remote?: string;
  token?: string;
  /** Work on the store even when a `mnemo serve` runs on it. */
  local?: boolean;
}

export interface Session {
  out: Output;
  options: GlobalOptions;
  io: CliIo;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/**
 * Runs an action with output set up; maps any failure to a message and exit code once. `flags`
 * names the flag behind a request field, so "--page-size: must be at most 100" reads as the
 * user typed it, not "pageSize: …".
 */
export function action<A extends unknown[]>(
  run: (session: Session, ...args: A) => Promise<void>,
  flags: Record<string, string> = {},
): (...args: [...A, Command]) => Promise<void> {
  return async (...args) => {
    const command = args[args.length - 1] as Command;
    const options = globalOptions(command);
    const io = ioOf(command);
    const out = createOutput({ json: Boolean(options.json), io });
    try {
      await run({ out, options, io }, ...(args.slice(0, -1) as A));
    } catch (error) {
      io.exitCode = handleError(asFlagError(error, flags, firstWord(args.slice(0, -1))), out);
    }
  };
}

/**
 * A bad request field in the words of the command line: the flag behind it, or, for an id given as an
 * argument, the id itself ("mem_x is not a memory id", not the API's "memoryId: is not a memory id").
 */
function asFlagError(error: unknown, flags: Record<string, string>, firstArgument: string | undefined): unknown {
  if (!(error instanceof AppError) || error.code !== "invalid_input") return error;
  const { field, problem } = error.details;
  if (typeof field !== "string" || typeof problem !== "string") return error;
  const flag = flags[field];
  if (flag) return AppError.invalid(flag, problem, error.suggestion);
  // A server's answer does not carry what was given: a command's id argument comes first.
  const given = error.details["input"] ?? (SINGLE_ID_FIELD.test(field) ? firstArgument : undefined);
  if (ID_FIELD.test(field) && typeof given === "string" && given !== "") {
    return new AppError("invalid_input", `${given} ${problem}`, {
      details: error.details,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    });
  }
  return error;
}

/** A request field that holds an id, or one of a list of them (`memoryId`, `conversationIds[2]`). */
const ID_FIELD = /Ids?(\[\d+\])?$/;
const SINGLE_ID_FIELD = /Id$/;

/** The first word of a command's arguments (the first of a list of them), if any. */
function firstWord(values: unknown[]): string | undefined {
  const first = values[0];
  const word = Array.isArray(first) ? first[0] : first;
  return typeof word === "string" ? word : undefined;
}

/** Opens the embedded store (with model download progress on stderr). Closed when `work` ends. */
export async function withApp<T>(
  session: Session,
  work: (app: App) => Promise<T>,
  appOptions: Pick<AppOptions, "reindexing" | "leaveJournal" | "existing"> = {},
): Promise<T> {
  const app = await openApp(session, "detached", appOptions);
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/** The embedded store: `detached` maintenance for a command that ends, `background` for one that runs on (mcp). */
async function openApp(
  session: Session,
  maintenance: "detached" | "background",
  appOptions: Pick<AppOptions, "reindexing" | "leaveJournal" | "existing"> = {},
): Promise<App> {
  const [{ createApp }, { loadConfig }, { useFewerArenas }] = await Promise.all([
    import("../core/index.js"),
    import("../config/load-config.js"),
    import("../shared/lean-allocator.js"),
  ]);
  await useFewerArenas(); // before LanceDB's and the model's threads (bin/mnemo.js sets it earlier for long runs)
  const { options, out } = session;
  if (options.remote) {
    throw AppError.invalid(
      "--remote",
      "this command works on the store of this machine (users, tokens, re-embedding, maintenance), not through a server",
      "Run it on the server's machine, without --remote.",
    );
  }
  const config = loadConfig({ store: options.store, user: options.user, embedder: options.embedder }, session.io.env);
  if (config.remote) out.notice(`This command works on the store at ${config.paths.dataDir}, not on the server at $MNEMO_URL.`);
  let download: Awaited<ReturnType<typeof startSpinner>> | undefined;
  const app = await createApp(config, {
    ...appOptions,
    maintenance,
    embedder: session.io.embedder,
    onNotice: (message) => out.notice(message),
    onProgress: async ({ file, loaded, total }) => {
      download ??= await startSpinner(`Downloading ${file}`, session);
      download.text(`Downloading ${file} ${total > 0 ? Math.round((loaded / total) * 100) : 0}%`);
    },
  });
  download?.stop();
  return app;
}

/**
 * The service for this command: a running server with --remote / MNEMO_URL; else the `mnemo serve`
 * that runs on the store, when there is one (cli/server-route.ts); else the embedded store. With
 * `index`, an embedded store also processes queued conversations while `work` runs. With `existing`
 * (a command that only reads), a store that is not there is an error (core's noStoreError), not made.
 */
export async function withService<T>(
  session: Session,
  work: (service: MnemoService, via: Via) => Promise<T>,
  options: { index?: boolean; existing?: boolean } = {},
): Promise<T> {
  const opened = await openService(session, { ...options, maintenance: "detached" });
  try {
    return await work(opened.service, opened.via);
  } finally {
    await opened.close();
  }
}

/** How a command reaches the store: through a server (named, or found running on it) or directly. */
export type Via = "server" | "store";

/** What withService hands its work, for a command that holds it open itself (mcp); `close` ends it. */
export async function openService(
  session: Session,
  options: { index?: boolean; existing?: boolean; maintenance: "detached" | "background" },
): Promise<{ service: MnemoService; via: Via; close(): Promise<void> }> {
  const location = locateStore(
    {
      store: session.options.store,
      remote: session.options.remote,
      token: session.options.token,
      user: session.options.user,
    },
    session.io.env,
  );
  if (location.remote) {
    if (session.options.user) {
      throw AppError.invalid(
        "--user",
        "cannot be used with a server: it knows you by your token",
        "Pass that user's token with --token (or $MNEMO_TOKEN).",
      );
    }
    const { createRemoteService } = await import("../client/remote.js");
    const service = createRemoteService(location.remote.url, location.remote.token ?? readTokenFile(location.paths.tokenFile));
    return { service, via: "server", close: async () => undefined };
  }
  const server = serverForCommand(session.options, location, runningServer(location.paths.serverInfo));
  if (server) {
    const { createRemoteService } = await import("../client/remote.js");
    let fallback: { service: MnemoService; close(): Promise<void> } | undefined;
    const service = routedService(
      createRemoteService(server.url, server.token),
      async () => (fallback ??= await openLocal(session, options)).service,
      (reason) => session.out.notice(`The mnemo server at ${server.url} ${reason}; this command works on the store directly.`),
    );
    return { service, via: "server", close: async () => fallback?.close() };
  }
  return { ...(await openLocal(session, options)), via: "store" };
}

async function openLocal(
  session: Session,
  options: { index?: boolean; existing?: boolean; maintenance: "detached" | "background" },
): Promise<{ service: MnemoService; close(): Promise<void> }> {
  const app = await openApp(session, options.maintenance, options.existing ? { existing: true } : {});
  try {
    if (options.index) await app.indexer.start();
    return { service: await app.service(session.options.user), close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}
