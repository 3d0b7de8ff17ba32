import fs from "node:fs";
import type { StoreLocation } from "../config/location.js";
import type { ServerInfo } from "../config/server-info.js";
import type { MnemoService } from "../core/index.js";
import { DEFAULT_USER } from "../config/default-user.js";
import { isRemoteUri } from "../config/paths.js";
import { AppError, isAppError } from "../shared/errors.js";

/**
 * A command sent to the `mnemo serve` that runs on its store: the server has the store open and the
 * model loaded, so the command spends its time on the request rather than on opening them (test/bench/README.md,
 * "A command through a server"). The server's record in the data dir says where it listens
 * (config/server-info.ts); the token file is the default user's, so another user, an
 * explicit embedder or --local keep the command on the store.
 */
export function serverForCommand(
  options: { local?: boolean | undefined; embedder?: string | undefined },
  location: StoreLocation,
  running: ServerInfo | undefined,
): { url: string; token: string } | undefined {
  if (options.local || options.embedder !== undefined || location.user !== DEFAULT_USER || !running) return undefined;
  // One data dir may keep the records of servers of several stores on object storage: only this store's counts.
  const sameStore = running.store === undefined ? !isRemoteUri(location.storeUri) : running.store === location.storeUri;
  const token = sameStore ? readTokenFile(location.paths.tokenFile) : undefined;
  return token ? { url: running.url, token } : undefined;
}

/** The token `mnemo serve` left for local clients. */
export function readTokenFile(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls that would do something twice if sent again after the server took them: a memory stored,
 * a bucket created, a token rotated. The rest read, or end in the same state however often they run
 * (an upload of a conversation already stored is `unchanged`).
 */
const NOT_TWICE = new Set(["memories.store", "memories.storeImage", "memories.storeMany", "buckets.create", "token.rotate"]);

/**
 * The server's service, with the store's in reserve: when the server cannot be reached (it stopped
 * between the look at its record and the request, or during the command) or refuses the token file's
 * token, this call and every later one go to the store. A call the server may have carried out
 * before it went is sent again only when that does no harm (NOT_TWICE); a body that was streamed
 * (an export file) cannot be sent again and fails with what to do.
 */
export function routedService(
  remote: MnemoService,
  openLocal: () => Promise<MnemoService>,
  onFallback: (reason: string) => void,
): MnemoService {
  let local: Promise<MnemoService> | undefined;
  const toLocal = (reason: string) => {
    if (!local) {
      onFallback(reason);
      local = openLocal();
    }
    return local;
  };
  const call = async (name: string, pick: (service: MnemoService) => (...args: unknown[]) => unknown, args: unknown[]) => {
    if (local) return pick(await local)(...args);
    try {
      return await pick(remote)(...args);
    } catch (error) {
      const failure = unusable(error);
      if (!failure) throw error;
      const service = await toLocal(failure.reason);
      const streamed = args.some((arg) => typeof arg === "object" && arg !== null && Symbol.asyncIterator in arg);
      if (streamed || (failure.delivered && NOT_TWICE.has(name))) throw unsure(error as AppError, name);
      return pick(service)(...args);
    }
  };
  return route(remote, "", (service) => service as unknown as Record<string, unknown>, call) as MnemoService;
}

type Call = (name: string, pick: (service: MnemoService) => (...args: unknown[]) => unknown, args: unknown[]) => Promise<unknown>;

/** The same shape as `shape` (the remote service: plain objects of functions), each function going through `call`. */
function route(shape: object, prefix: string, reach: (service: MnemoService) => Record<string, unknown>, call: Call): object {
  return Object.fromEntries(
    Object.entries(shape).map(([key, value]) => {
      const name = `${prefix}${key}`;
      if (typeof value !== "function")
        return [key, route(value as object, `${name}.`, (service) => reach(service)[key] as Record<string, unknown>, call)];
      const pick = (service: MnemoService) => {
        const owner = reach(service);
        return (owner[key] as (...args: unknown[]) => unknown).bind(owner);
      };
      return [key, (...args: unknown[]) => call(name, pick, args)];
    }),
  );
}

/** Why the server cannot serve this command, or undefined when the error is the command's own. */
function unusable(error: unknown): { reason: string; delivered: boolean } | undefined {
  if (!isAppError(error)) return undefined;
  const delivered = error.details["delivered"];
  if (error.code === "unavailable" && typeof delivered === "boolean") return { reason: "stopped answering", delivered };
  if (error.code === "unauthorized") return { reason: "refused the token in the token file", delivered: false };
  return undefined;
}

function unsure(error: AppError, name: string): AppError {
  return new AppError("unavailable", `${error.message}, and may have carried out ${name} before it went`, {
    suggestion:
      "Check whether it was done (`mnemo memories`, `mnemo buckets`), then run the command again: it now works on the store directly.",
    // The service itself now works on the store: a caller that can start its work again there may.
    details: { fellBack: true },
    cause: error,
  });
}
