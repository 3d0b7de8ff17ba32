import fs from "node:fs";
import type { Command } from "commander";
import type { App } from "../../core/index.js";
import type { Config } from "../../config/load-config.js";
import { DEFAULT_USER } from "../../config/default-user.js";
import { isAppError } from "../../shared/errors.js";
import { handleError } from "../handle-error.js";
import { foldersToWatch } from "../app-folders.js";
import { action, type Session } from "../session.js";
import { parseCount } from "./memories.js";
import { logStderrTo } from "../log-file.js";
import type { CliIo } from "../io.js";

export interface ServeOptions {
  port?: string;
  host?: string;
  logFile?: string;
  watch?: string[];
  /** Also the folders where the coding agents found at start keep their sessions. */
  watchApps?: boolean;
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description(
      "serve the REST API and the web app on localhost (and process imports in the background); SIGTERM or Ctrl-C stops it, giving requests in flight 10 s",
    )
    .option("-p, --port <port>", "port (default 7411; 0 picks a free one)")
    .option("--host <address>", "address to listen on (default 127.0.0.1)")
    .option(
      "-w, --watch <folder...>",
      "import each new chat export that appears in <folder>, and coding agents' sessions below it as they go on (as the default user)",
    )
    .option(
      "--watch-apps",
      "also the folders (or databases) where coding agents and chat apps on this machine keep their sessions, found as it starts (`mnemo watch --help` lists them)",
    )
    .option("--log-file <file>", "write what it logs to <file>, each line with its time, instead of to stderr (as `mnemo service` runs it)")
    .action(
      action(async (session, options: ServeOptions) => {
        const restoreStderr = options.logFile ? logStderrTo(options.logFile, session.io.stderr) : undefined;
        try {
          await serve(session, options, async ({ url, tokenFile }) => {
            if (session.out.json) session.out.data({ url, tokenFile });
            else session.out.success(`mnemo is serving ${url} (the web app: \`mnemo ui\`; token in ${tokenFile}); Ctrl-C stops it`);
          });
        } catch (error) {
          if (!restoreStderr) throw error;
          // Said in the log, with its time, where `mnemo service status` looks for it.
          session.io.exitCode = handleError(error, session.out);
        } finally {
          restoreStderr?.();
        }
      }),
    );
}

export interface Serving {
  url: string;
  tokenFile: string;
  /** A one-time sign-in link to the web app for `userName`. */
  loginUrl(userName: string): string;
}

/** Opens the store and serves it (API and web app) until Ctrl-C; `started` runs once it listens. */
export async function serve(session: Session, options: ServeOptions, started: (serving: Serving) => Promise<void>): Promise<void> {
  const [{ loadConfig }, { onInterrupt }, { removeOwnServerInfo }] = await Promise.all([
    import("../../config/load-config.js"),
    import("../interrupt.js"),
    import("../../config/server-info.js"),
  ]);
  const { out } = session;
  const config = loadConfig({ store: session.options.store, embedder: session.options.embedder }, session.io.env);
  // Until it waits for a signal: Ctrl-C while it starts ends it at once, as it did, but says so and
  // leaves no server.json with its pid behind for other commands to find.
  const stopWatching = onInterrupt(() => {
    removeOwnServerInfo(config.paths.serverInfo);
    out.warn("Stopped while the server was starting.");
  });
  try {
    await serveUntilSignal(session, options, started, config, stopWatching);
  } finally {
    stopWatching();
  }
}

async function serveUntilSignal(
  session: Session,
  options: ServeOptions,
  started: (serving: Serving) => Promise<void>,
  config: Config,
  stopWatching: () => void,
): Promise<void> {
  const [
    { createApp, importExports, purgeExpiredTrash, watchFolder },
    { startServer, SHUTDOWN_GRACE_MS },
    { isLoopback },
    { createWebApp },
  ] = await Promise.all([
    import("../../core/index.js"),
    import("../../http/listen.js"),
    import("../../http/host-guard.js"),
    import("../../web/index.js"),
  ]);
  const { out } = session;
  const host = options.host ?? config.server.host;
  const port = options.port === undefined ? config.server.port : parseCount("--port", options.port, 0, 65_535);
  if (!isLoopback(host)) {
    out.warn(
      `Listening on ${host}: other machines can reach this server. Anyone with a token can read everything in it. It answers to this machine's addresses; add the names others reach it by to server.allowedHosts in config.json.`,
    );
  }
  const app = await createApp(config, {
    maintenance: "background",
    embedder: session.io.embedder,
    onNotice: (message) => out.notice(message),
  });
  // A damaged users table leaves every request a 503 that says so; the server still starts.
  await ensureLocalToken(app, session).catch((error: unknown) => {
    if (!isAppError(error) || error.code !== "unavailable") throw error;
    out.warn(`${error.message}. ${error.suggestion ?? ""}`);
  });
  const log = batchedLog(session.io.stderr);
  const web = createWebApp(app, { log: log.write });
  const server = await startServer(app, { host, port, log: log.write, mount: web.mount }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  await started({ url: server.url, tokenFile: config.paths.tokenFile, loginUrl: (userName) => `${server.url}${web.loginPath(userName)}` });
  const watched = await foldersToWatch(session, options.watch ?? [], {
    apps: Boolean(options.watchApps),
    flag: "--watch-apps",
    optional: true,
  });
  const service = watched.length > 0 ? await app.service(DEFAULT_USER) : undefined;
  const watchers = await Promise.all(
    watched.map(({ folder, sessionsOf, format }) =>
      watchFolder({
        folder,
        stateFile: config.paths.watchState,
        sessionsOf,
        format,
        importFile: (file) => importExports(service!, [file]),
        trash: async (conversationIds) => void (await service!.trash.move({ conversationIds })),
        log: { notice: (text) => out.notice(text), warn: (text) => out.warn(text) },
      }),
    ),
  );
  // The trash keeps 30 days whether or not anyone looks at it: what is older goes at start and every 6 hours.
  const purge = () => void purgeExpiredTrash(app).catch(() => undefined);
  purge();
  const purging = setInterval(purge, 6 * 60 * 60 * 1000).unref();
  const signalled = untilSignal(session.io);
  stopWatching();
  await signalled;
  clearInterval(purging);
  for (const watcher of watchers) await watcher.stop();
  out.notice(
    `Stopping: requests in flight have ${SHUTDOWN_GRACE_MS / 1000} s to finish, then open connections are closed; queued imports stay queued.`,
  );
  await server.close();
  await app.close();
  log.flush();
}

/**
 * The first serve gives the default user a token and writes it to a 0600 file in the data dir,
 * where local plugins can read it. A token is only ever shown once: later it is only its hash.
 */
async function ensureLocalToken(app: App, session: Session): Promise<void> {
  const user = await app.users.resolve(DEFAULT_USER);
  const file = app.config.paths.tokenFile;
  if (user.hasToken) {
    if (!fs.existsSync(file)) session.out.notice(`No token file at ${file}: run \`mnemo token --rotate\` for a new token.`);
    return;
  }
  try {
    await app.users.rotateToken(user.name); // written to the token file too
  } catch (error) {
    // Another machine on the same store gave the user a token at this moment: it holds it.
    if (!(isAppError(error) && error.code === "conflict")) throw error;
    session.out.notice(
      `The default user got a token on another machine just now: copy its token file to ${file}, or run \`mnemo token --rotate\`.`,
    );
  }
}

/**
 * Request lines written in batches, a few times a second: one write per request to a pipe that
 * drains slowly stretched the latency tail at 10,000 requests a second.
 */
function batchedLog(stream: NodeJS.WritableStream): { write: (line: string) => void; flush: () => void } {
  let pending: string[] = [];
  // biome-ignore lint/correctness/noUnusedVariables: read by `??=` below
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (pending.length > 0) stream.write(`${pending.join("\n")}\n`);
    pending = [];
  };
  return {
    write: (line) => {
      pending.push(line);
      timer ??= setTimeout(flush, 100).unref();
    },
    flush,
  };
}

/** Until SIGINT or SIGTERM, or the run's io says stop. */
export function untilSignal(io: CliIo): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    void io.stopped?.then(stop);
  });
}
