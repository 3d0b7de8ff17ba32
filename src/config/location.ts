import { AppError } from "../shared/errors.js";
import { DEFAULT_USER } from "./default-user.js";
import { dataPaths, defaultDataDir, isRemoteUri, type DataPaths } from "./paths.js";

/**
 * Where a command's store is, who it acts as and which server it was pointed at: what the CLI needs
 * to send a command to a running server. Kept apart from the settings (load-config.ts), whose schema
 * library alone costs a command sent to a server more than the request does.
 */
export interface StoreLocation {
  /** Where LanceDB lives: a local folder or a URI LanceDB understands (s3://…). */
  storeUri: string;
  paths: DataPaths;
  user: string;
  remote: { url: string; token: string | undefined } | undefined;
}

/** Values given on the command line; each one wins over the environment. */
export interface LocationFlags {
  store?: string | undefined;
  user?: string | undefined;
  remote?: string | undefined;
  token?: string | undefined;
}

export function locateStore(flags: LocationFlags = {}, env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const location = nonEmpty("--store", flags.store) ?? (env["MNEMO_STORE"] || undefined) ?? defaultDataDir(env);
  const remoteStore = isRemoteUri(location);
  if (remoteStore) checkBucket(flags.store !== undefined ? "--store" : "MNEMO_STORE", location);
  // A remote store keeps its local state (models, lock, images, config) in the default data dir.
  const paths = dataPaths(remoteStore ? defaultDataDir(env) : location, env["MNEMO_MODELS"] || undefined);
  const remoteUrl = serverUrl(flags.remote !== undefined ? "--remote" : "MNEMO_URL", flags.remote ?? (env["MNEMO_URL"] || undefined));
  return {
    storeUri: remoteStore ? location : paths.database,
    paths,
    user: flags.user ?? env["MNEMO_USER"] ?? DEFAULT_USER,
    remote: remoteUrl
      ? { url: remoteUrl, token: apiToken(flags.token !== undefined ? "--token" : "MNEMO_TOKEN", flags.token ?? env["MNEMO_TOKEN"]) }
      : undefined,
  };
}

/**
 * An object store's URI names a bucket: `s3://` alone (a variable left empty in `s3://$BUCKET/db`)
 * reached LanceDB, whose message named neither the setting nor the fix.
 */
function checkBucket(source: string, uri: string): void {
  const [, scheme, bucket] = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)/i.exec(uri) ?? [];
  if (bucket) return;
  throw AppError.invalid(
    source,
    `${JSON.stringify(uri)} names no bucket`,
    `Give the bucket and a folder in it, such as ${scheme}://my-bucket/mnemo.`,
  );
}

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === "") throw AppError.invalid(flag, "must not be empty");
  return value;
}

/** A server's address as given, checked: `new URL` deep in the HTTP client said only "Invalid URL". */
function serverUrl(source: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw AppError.invalid(
      source,
      `${JSON.stringify(value)} is not a server address`,
      "Give the URL `mnemo serve` prints, such as http://127.0.0.1:7411.",
    );
  }
  return value;
}

/**
 * A token as given, without the spaces and line ends around it, as the token file is read: one set
 * with `$(cat token)` from a file saved on Windows ended in "\r", and every command failed with
 * Node's "Invalid character in header content". A character no token has inside it is named here.
 */
function apiToken(source: string, value: string | undefined): string | undefined {
  const token = value?.trim();
  if (!token) return undefined;
  if (/[^\x21-\x7e]/.test(token)) {
    throw AppError.invalid(
      source,
      "holds a character no token has (a space, a control character or a letter outside ASCII)",
      "Copy the token again: the line `mnemo token --rotate` printed, or the file `token` in the server's data dir.",
    );
  }
  return token;
}
