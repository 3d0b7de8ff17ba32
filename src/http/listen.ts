import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer } from "node:http";
import { getRequestListener, type ServerType } from "@hono/node-server";
import { imageSecret, lockOutReindexToServe, signedImageUrl, type App } from "../core/index.js";
import { removeServerInfo, runningServer, writeServerInfo } from "../config/server-info.js";
import { AppError } from "../shared/errors.js";
import { answerClientErrors, MAX_HEADER_BYTES } from "./client-errors.js";
import { requestOrigin } from "./request-origin.js";
import { createHttpApp, type HttpOptions } from "./server.js";

export interface RunningServer {
  url: string;
  /**
   * Stops accepting connections, closes idle ones, lets requests in flight finish for the grace
   * period and then cuts whatever is still open (a client that stalled mid-request would otherwise
   * keep the server up for ever); queued conversations stay durably queued.
   */
  close(): Promise<void>;
}

/**
 * How long a stopping server waits for requests in flight. Long enough for any request that is
 * being answered (a 50 MB upload is stored in a few seconds); a client still sending after it has
 * stalled or is on a link too slow to matter.
 */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface ListenOptions {
  host: string;
  port: number;
  log: (line: string) => void;
  /** SHUTDOWN_GRACE_MS unless told (tests). */
  shutdownGraceMs?: number;
  /** Routes served beside the API (the web app). */
  mount?: HttpOptions["mount"];
}

/** Why the server could not listen, with the fix, for the two causes a user can act on. */
function listenError(error: NodeJS.ErrnoException, { host, port }: ListenOptions): Error {
  if (error.code === "EADDRINUSE") {
    return new AppError("unavailable", `Port ${port} on ${host} is already in use (another \`mnemo serve\`?)`, {
      suggestion: "Stop the other server, or pick another port with --port (0 picks a free one).",
    });
  }
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") {
    return new AppError("invalid_input", `--host: ${host} is not an address of this machine`, {
      suggestion: "Use 127.0.0.1 (the default) or one of this machine's addresses.",
    });
  }
  return error;
}

/**
 * A request the adapter could not make a Request of (a `\\` in its path, a Host that is no host, an
 * OPTIONS `*`): answered as every other error, `{ "error": … }`, where the adapter answered an empty
 * 400. Anything else that reaches here escaped the app's own error handling: logged, a plain 500.
 */
function unreadableRequest(log: (line: string) => void): (error: unknown) => Response {
  return (error) => {
    if (error instanceof Error && error.name === "RequestError") {
      return Response.json({ error: `request: ${error.message}`, field: "request" }, { status: 400 });
    }
    log(`internal error before the app: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return Response.json({ error: "Internal server error" }, { status: 500 });
  };
}

/** Listens, then records the server in the data dir for other processes to find. */
async function listenAndRegister(app: App, options: ListenOptions, secret: Buffer): Promise<{ server: ServerType; url: string }> {
  const { config } = app;
  // A second server on the store would overwrite the first one's record (which `reindex` checks
  // before it swaps the vectors), then delete it on exit while the first one still serves.
  const other = runningServer(config.paths.serverInfo);
  if (other) {
    throw new AppError("conflict", `mnemo serve (pid ${other.pid}) already serves this store at ${other.url}`, {
      suggestion: "Use that server (--remote), or stop it first.",
    });
  }
  const http = createHttpApp(app, {
    host: options.host,
    allowedHosts: config.server.allowedHosts,
    corsOrigins: config.server.corsOrigins,
    log: options.log,
    imageSecret: secret,
    ...(options.mount ? { mount: options.mount } : {}),
  });
  const server = await new Promise<ServerType>((resolve, reject) => {
    // getRequestListener rather than serve(), which does not pass errorHandler on.
    const listener = getRequestListener(http.fetch, { hostname: options.host, errorHandler: unreadableRequest(options.log) });
    // A request without Host reaches the app, which names the header (server.ts), not Node's empty 400.
    const started: ServerType = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, listener);
    started.listen(options.port, options.host, () => resolve(started));
    started.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
  });
  answerClientErrors(server as Server);
  const { port } = server.address() as AddressInfo;
  const urlHost =
    options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${urlHost}:${port}`;
  app.context.imageUrl = (memoryId) => signedImageUrl(secret, requestOrigin() ?? url, memoryId);
  try {
    writeServerInfo(config.paths.serverInfo, { pid: process.pid, url, startedAt: new Date().toISOString(), store: config.storeUri });
  } catch (error) {
    server.close();
    throw error;
  }
  return { server, url };
}

/** Serves the REST API of `app` and processes its index queue until closed. */
export async function startServer(app: App, options: ListenOptions): Promise<RunningServer> {
  const { config } = app;
  const secret = imageSecret(config.paths.secret);
  // Registered under the reindex lock: a reindex that runs refuses us, one that starts finds us.
  const release = await lockOutReindexToServe(config.paths.reindexLock);
  let listening: { server: ServerType; url: string };
  try {
    listening = await listenAndRegister(app, options, secret);
  } finally {
    await release().catch(() => undefined);
  }
  const { server, url } = listening;
  try {
    await app.indexer.start();
  } catch (error) {
    server.close(); // a store that cannot be written: stop rather than answer 500 to everything
    removeServerInfo(config.paths.serverInfo);
    throw error;
  }

  return {
    url,
    close: async () => {
      const http = server as Server;
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => http.closeAllConnections(), options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
        http.close(() => {
          clearTimeout(cut);
          resolve();
        });
        http.closeIdleConnections();
      });
      await app.indexer.stop();
      removeServerInfo(config.paths.serverInfo);
    },
  };
}
