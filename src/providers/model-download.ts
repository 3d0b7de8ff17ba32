/**
 * Shared plumbing for the transformers.js providers (embedder and cross-encoder reranker):
 * lazy loading of `@huggingface/transformers`, telling local model folders from Hugging Face
 * hub ids, checking the download cache, and downloading with bounded waits and clear errors.
 *
 * How models are found:
 * - A local folder (absolute path, `./`, `../`, `~/`, or an existing directory) is loaded
 *   straight from disk by its absolute path. transformers.js treats any string that is not a
 *   valid hub id (an absolute path never is) as a path and reads `<dir>/config.json`,
 *   `<dir>/tokenizer.json`, `<dir>/tokenizer_config.json` and `<dir>/onnx/model<suffix>.onnx`
 *   (suffix "" for dtype fp32, "_quantized" for q8, "_fp16", ...).
 * - A hub id ("Xenova/all-MiniLM-L6-v2") is looked up in the cache folder, in the same layout
 *   transformers.js's file cache writes: `<cacheDir>/<owner>/<name>/<file>`. When every file is
 *   there the folder is loaded like a local one, with no network access at all. Otherwise, if
 *   downloads are allowed, transformers.js downloads the missing files into that folder
 *   (`env.cacheDir`), reporting progress; if not, loading fails at once with
 *   AppError("unavailable").
 *
 * Nothing here imports `@huggingface/transformers` at module load: it costs ~150 ms and loads
 * the ONNX runtime, which `mnemo --help` must not pay.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";

import { AppError } from "../core/errors.js";
import type { ProgressReporter } from "./embedder.js";

/** ONNX weight variants transformers.js knows, with the file-name suffix each one loads. */
export const DTYPE_SUFFIX = {
  fp32: "",
  fp16: "_fp16",
  q8: "_quantized",
  int8: "_int8",
  uint8: "_uint8",
  q4: "_q4",
  q4f16: "_q4f16",
  bnb4: "_bnb4",
} as const;
export type ModelDtype = keyof typeof DTYPE_SUFFIX;

/** Where a model comes from. `dir` is where its files are (or will be, once downloaded). */
export type ModelSource =
  | { kind: "local"; dir: string }
  | { kind: "hub"; id: string; dir: string };

export const DEFAULT_REMOTE_HOST = "https://huggingface.co/";
/** How long to wait for a response (headers) from the hub before giving up. */
export const CONNECT_TIMEOUT_MS = 15_000;
/** How long a download may stall (no bytes received) before it is aborted. */
export const STALL_TIMEOUT_MS = 60_000;

const hubTimeouts = { connectMs: CONNECT_TIMEOUT_MS, stallMs: STALL_TIMEOUT_MS };

/** Changes the hub request deadlines (for every later request in this thread). Mostly for tests. */
export function configureHubTimeouts(timeouts: { connectMs?: number; stallMs?: number }): void {
  if (timeouts.connectMs !== undefined) hubTimeouts.connectMs = timeouts.connectMs;
  if (timeouts.stallMs !== undefined) hubTimeouts.stallMs = timeouts.stallMs;
}

// Same rule transformers.js uses (utils/hub/constants.js REPO_ID_REGEX + isValidHfModelId).
const REPO_ID_REGEX = /^(\b[\w\-.]+\b\/)?\b[\w\-.]{1,96}\b$/;

export function isValidHubId(model: string): boolean {
  return (
    REPO_ID_REGEX.test(model) &&
    !model.includes("..") &&
    !model.includes("--") &&
    !model.endsWith(".git") &&
    !model.endsWith(".ipynb")
  );
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

function expandHome(p: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/") || p.startsWith("~\\")) return path.join(homedir(), p.slice(2));
  return p;
}

function looksLikePath(model: string): boolean {
  return (
    path.isAbsolute(model) ||
    model === "." ||
    model === ".." ||
    model.startsWith("./") ||
    model.startsWith("../") ||
    model.startsWith(".\\") ||
    model.startsWith("..\\") ||
    model.startsWith("~") ||
    /^[A-Za-z]:[\\/]/.test(model)
  );
}

/** The folder a hub model is cached in: `<cacheDir>/<owner>/<name>`. */
export function hubModelDir(cacheDir: string, id: string): string {
  return path.join(path.resolve(expandHome(cacheDir)), ...id.split("/"));
}

/**
 * Decides whether `model` is a local folder or a hub id. Anything that looks like a path, or
 * names an existing directory, is a local folder; otherwise it must be a valid hub id.
 */
export async function resolveModelSource(model: string, cacheDir: string): Promise<ModelSource> {
  const trimmed = model.trim();
  if (trimmed === "") throw AppError.invalid("model", "is empty");
  if (looksLikePath(trimmed) || (await isDirectory(trimmed))) {
    const dir = path.resolve(expandHome(trimmed));
    if (!(await isDirectory(dir))) {
      throw new AppError("not_found", `model folder ${dir} does not exist`, {
        suggestion:
          "pass the folder that holds config.json, tokenizer.json and onnx/model.onnx, or a Hugging Face model id",
        details: { model: dir },
      });
    }
    return { kind: "local", dir };
  }
  if (!isValidHubId(trimmed)) {
    throw AppError.invalid(
      "model",
      `"${model}" is neither an existing folder nor a Hugging Face model id (owner/name)`,
    );
  }
  return { kind: "hub", id: trimmed, dir: hubModelDir(cacheDir, trimmed) };
}

/** Relative paths of the files a text model needs in the given dtype (external data chunks from config.json included). */
export async function requiredModelFiles(dir: string, dtype: ModelDtype): Promise<string[]> {
  const onnxFile = `model${DTYPE_SUFFIX[dtype]}.onnx`;
  const files = ["config.json", "tokenizer.json", "tokenizer_config.json", `onnx/${onnxFile}`];
  // Large models keep their weights in `<file>.onnx_data[_N]`, announced in config.json.
  try {
    const config = JSON.parse(await readFile(path.join(dir, "config.json"), "utf8")) as Record<string, unknown>;
    const custom = config["transformers.js_config"] as Record<string, unknown> | undefined;
    const ext = custom?.["use_external_data_format"];
    let chunks = 0;
    if (typeof ext === "boolean" || typeof ext === "number") chunks = Number(ext);
    else if (ext && typeof ext === "object") {
      const byFile = ext as Record<string, unknown>;
      chunks = Number(byFile[onnxFile] ?? byFile["model"] ?? 0);
    }
    for (let i = 0; i < chunks; i++) files.push(`onnx/${onnxFile}_data${i === 0 ? "" : `_${i}`}`);
  } catch {
    // No (readable) config.json: the caller will find it missing.
  }
  return files;
}

export async function missingModelFiles(dir: string, dtype: ModelDtype): Promise<string[]> {
  const missing: string[] = [];
  for (const file of await requiredModelFiles(dir, dtype)) {
    if (!(await isFile(path.join(dir, file)))) missing.push(file);
  }
  return missing;
}

/**
 * The dtype to load from a local folder: the requested one, or else the first whose ONNX file
 * exists, preferring full precision (fp32, then q8, fp16, ...).
 */
export async function pickLocalDtype(dir: string, requested: ModelDtype | undefined): Promise<ModelDtype> {
  if (requested) return requested;
  for (const dtype of Object.keys(DTYPE_SUFFIX) as ModelDtype[]) {
    if (await isFile(path.join(dir, "onnx", `model${DTYPE_SUFFIX[dtype]}.onnx`))) return dtype;
  }
  return "fp32";
}

/** True when `model` is a local folder with a loadable model, or a hub id fully present in `cacheDir`. */
export async function isModelAvailableOffline(
  model: string,
  cacheDir: string,
  dtype?: ModelDtype,
): Promise<boolean> {
  let source: ModelSource;
  try {
    source = await resolveModelSource(model, cacheDir);
  } catch {
    return false;
  }
  const chosen = source.kind === "local" ? await pickLocalDtype(source.dir, dtype) : (dtype ?? "fp32");
  return (await missingModelFiles(source.dir, chosen)).length === 0;
}

/** First 12 hex digits of the SHA-256 of a file (streamed; models can be hundreds of MB). */
export async function shortFileHash(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex").slice(0, 12);
}

// ---------------------------------------------------------------------------------------------
// transformers.js, loaded lazily. Only the parts we use are typed here (structurally), which
// keeps the compiler off the library's very large generated declarations.

export interface TjsTensor {
  readonly dims: number[];
  readonly data: ArrayLike<number> & { readonly length: number };
  dispose?(): void;
}

export interface TjsTokenizer {
  (
    text: string | string[],
    options?: {
      text_pair?: string | string[] | null;
      padding?: boolean;
      truncation?: boolean;
      max_length?: number;
      add_special_tokens?: boolean;
    },
  ): Record<string, TjsTensor>;
  encode(text: string, options?: { text_pair?: string | null; add_special_tokens?: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
  readonly model_max_length: number;
}

export interface TjsProgressEvent {
  status: string;
  file?: string;
  name?: string;
  loaded?: number;
  total?: number;
  progress?: number;
}

export interface TjsPretrainedOptions {
  progress_callback?: (event: TjsProgressEvent) => void;
  cache_dir?: string;
  local_files_only?: boolean;
  dtype?: ModelDtype;
  device?: string;
  session_options?: Record<string, unknown>;
}

export interface TjsEnv {
  allowRemoteModels: boolean;
  allowLocalModels: boolean;
  localModelPath: string;
  cacheDir: string | null;
  remoteHost: string;
  useFSCache: boolean;
  logLevel: number;
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
}

export interface TransformersLib {
  env: TjsEnv;
  LogLevel: { ERROR: number; WARNING: number };
  pipeline(task: "feature-extraction", model: string, options?: TjsPretrainedOptions): Promise<unknown>;
  AutoTokenizer: { from_pretrained(model: string, options?: TjsPretrainedOptions): Promise<TjsTokenizer> };
  AutoModelForSequenceClassification: {
    from_pretrained(model: string, options?: TjsPretrainedOptions): Promise<unknown>;
  };
}

let libPromise: Promise<TransformersLib> | undefined;

/** Imports `@huggingface/transformers` once and applies mnemo's defaults to its `env`. */
export function loadTransformers(): Promise<TransformersLib> {
  libPromise ??= (async () => {
    let lib: TransformersLib;
    try {
      lib = (await import("@huggingface/transformers")) as unknown as TransformersLib;
    } catch (error) {
      libPromise = undefined;
      throw new AppError("unavailable", "could not load @huggingface/transformers (or onnxruntime-node)", {
        suggestion: "reinstall mnemo's dependencies (npm install), or use --embedder bundled",
        cause: error,
      });
    }
    const env = lib.env;
    env.allowLocalModels = true;
    env.useFSCache = true;
    // Library warnings ("Unable to load from local path ...") would go to the console of a CLI.
    env.logLevel = lib.LogLevel.ERROR;
    const plainFetch = env.fetch;
    env.fetch = (input, init) =>
      fetchWithTimeouts(plainFetch, input, init, hubTimeouts.connectMs, hubTimeouts.stallMs);
    return lib;
  })();
  return libPromise;
}

/**
 * fetch() with a deadline for the response headers and a stall timer on the body, so an
 * unreachable or hanging hub fails in seconds instead of blocking the CLI.
 */
export async function fetchWithTimeouts(
  baseFetch: (input: string | URL, init?: RequestInit) => Promise<Response>,
  input: string | URL,
  init: RequestInit = {},
  connectMs: number = CONNECT_TIMEOUT_MS,
  stallMs: number = STALL_TIMEOUT_MS,
): Promise<Response> {
  const controller = new AbortController();
  const url = String(input);
  let timer = setTimeout(
    () => controller.abort(new Error(`no response from ${url} within ${connectMs / 1000}s`)),
    connectMs,
  );
  const signal = init.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
  let response: Response;
  try {
    response = await baseFetch(input, { ...init, signal });
  } catch (error) {
    clearTimeout(timer);
    throw error;
  }
  clearTimeout(timer);
  const body = response.body;
  // Statuses that cannot carry a body cannot be re-wrapped either.
  if (!body || [101, 204, 205, 304].includes(response.status)) return response;

  const reader = body.getReader();
  // highWaterMark 0: bytes are only pulled when the consumer reads, so the stall timer runs
  // only while someone is actually waiting for data.
  const watched = new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        timer = setTimeout(
          () => controller.abort(new Error(`download of ${url} stalled for ${stallMs / 1000}s`)),
          stallMs,
        );
        timer.unref?.();
        try {
          const { done, value } = await reader.read();
          if (done) ctrl.close();
          else ctrl.enqueue(value);
        } catch (error) {
          ctrl.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(watched, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** What a provider needs to get its model files onto disk. */
export interface ModelFetchSpec {
  model: string;
  cacheDir: string;
  allowDownload: boolean;
  onProgress?: ProgressReporter;
  /** Hub mirror (default: $HF_ENDPOINT, else https://huggingface.co/). Also what tests point at a local server. */
  remoteHost?: string;
}

function remoteHostOf(spec: ModelFetchSpec): string {
  const host = spec.remoteHost ?? process.env["HF_ENDPOINT"] ?? DEFAULT_REMOTE_HOST;
  return host.endsWith("/") ? host : `${host}/`;
}

function hostName(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * A hint for users whose model cannot be fetched: `fallback` first (e.g. "use --embedder
 * bundled"), then how to supply the files by hand; `useFolder(dir)` says how to point mnemo at a folder.
 */
export function offlineSuggestion(source: ModelSource, fallback: string, useFolder: (dir: string) => string): string {
  return (
    `${fallback}, or put the model files (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx) ` +
    `in ${source.dir} and ${useFolder(source.dir)}`
  );
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: string }).code;
    return code ? `${cause.message} (${code})` : cause.message;
  }
  return error.message;
}

/**
 * One cheap request (first byte of config.json) to learn quickly whether the model can be
 * downloaded at all: hub unreachable → "unavailable"; unknown, private or gated repo → "not_found".
 */
export async function probeHubModel(
  lib: TransformersLib,
  source: Extract<ModelSource, { kind: "hub" }>,
  host: string,
  what: string,
  suggestion: string,
): Promise<void> {
  const url = `${host}${source.id}/resolve/main/config.json`;
  let response: Response;
  try {
    const headers: Record<string, string> = { Range: "bytes=0-0" };
    const token = process.env["HF_TOKEN"] ?? process.env["HF_ACCESS_TOKEN"];
    if (token && ["huggingface.co", "hf.co"].includes(new URL(url).hostname)) {
      headers["Authorization"] = `Bearer ${token}`;
    }
    response = await lib.env.fetch(url, { headers });
    await response.body?.cancel().catch(() => undefined);
  } catch (error) {
    throw new AppError(
      "unavailable",
      `cannot download ${what} "${source.id}": ${hostName(host)} is unreachable (${describeCause(error)})`,
      { suggestion, cause: error, details: { model: source.id } },
    );
  }
  if (response.status === 401 || response.status === 403 || response.status === 404) {
    throw new AppError(
      "not_found",
      `${what} "${source.id}" was not found on ${hostName(host)} (HTTP ${response.status}; it may be private or gated)`,
      {
        suggestion: "check the model id; for a gated model accept its licence on the hub and set HF_TOKEN",
        details: { model: source.id, status: response.status },
      },
    );
  }
  if (response.status >= 400) {
    throw new AppError(
      "unavailable",
      `cannot download ${what} "${source.id}": ${hostName(host)} answered HTTP ${response.status}`,
      { suggestion, details: { model: source.id, status: response.status } },
    );
  }
}

/** Turns a transformers.js load failure into an AppError with the model's name in it. */
export function loadError(error: unknown, what: string, model: string, suggestion: string): AppError {
  if (error instanceof AppError) return error;
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  if (name === "ModelFileNotFoundError") {
    return new AppError("not_found", `${what} "${model}" is missing a file: ${message}`, {
      suggestion:
        "use a model repository that has ONNX weights (e.g. the Xenova/ or onnx-community/ conversions), " +
        "or a folder with config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx",
      cause: error,
      details: { model },
    });
  }
  if (/fetch failed|network|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|stalled|no response from|aborted/i.test(message)) {
    return new AppError("unavailable", `cannot download ${what} "${model}": ${describeCause(error)}`, {
      suggestion,
      cause: error,
      details: { model },
    });
  }
  return new AppError("internal", `cannot load ${what} "${model}": ${message}`, {
    cause: error,
    details: { model },
  });
}

/** Adapts transformers.js progress events to mnemo's ProgressReporter (byte counts per file). */
export function progressCallback(onProgress: ProgressReporter | undefined): TjsPretrainedOptions["progress_callback"] {
  if (!onProgress) return undefined;
  return (event) => {
    if (event.status === "progress" && typeof event.file === "string") {
      onProgress({ file: event.file, loaded: event.loaded ?? 0, total: event.total ?? 0 });
    }
  };
}

export interface PreparedModel {
  lib: TransformersLib;
  source: ModelSource;
  dtype: ModelDtype;
  /** What to pass to transformers.js: an absolute folder, or the hub id when a download is needed. */
  loadPath: string;
  /** Options for from_pretrained()/pipeline(). */
  options: TjsPretrainedOptions;
}

/**
 * Resolves `spec.model`, checks what is on disk and, when a download is needed, that it is
 * allowed and the hub answers. Returns what to hand to transformers.js.
 */
export async function prepareModel(
  spec: ModelFetchSpec & { dtype?: ModelDtype; threads?: number },
  what: string,
  suggestion: (source: ModelSource) => string,
): Promise<PreparedModel> {
  const source = await resolveModelSource(spec.model, spec.cacheDir);
  const dtype = source.kind === "local" ? await pickLocalDtype(source.dir, spec.dtype) : (spec.dtype ?? "fp32");
  const sessionOptions: Record<string, unknown> =
    spec.threads && spec.threads > 0 ? { intraOpNumThreads: spec.threads, interOpNumThreads: 1 } : {};
  const missing = await missingModelFiles(source.dir, dtype);

  if (source.kind === "local" || missing.length === 0) {
    if (missing.length > 0) {
      throw new AppError("not_found", `model folder ${source.dir} is missing ${missing.join(", ")}`, {
        suggestion:
          "a transformers.js model folder needs config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx " +
          "(or onnx/model_quantized.onnx ...); export one with optimum (optimum-cli export onnx) or download a Xenova/ model",
        details: { model: source.dir, missing },
      });
    }
    const lib = await loadTransformers();
    lib.env.cacheDir = path.resolve(expandHome(spec.cacheDir));
    return {
      lib,
      source,
      dtype,
      loadPath: source.dir,
      options: { local_files_only: true, dtype, device: "cpu", session_options: sessionOptions },
    };
  }

  const advice = suggestion(source);
  if (!spec.allowDownload) {
    throw new AppError(
      "unavailable",
      `${what} "${source.id}" is not in the model cache (${source.dir}) and downloads are off (allowDownload: false)`,
      { suggestion: `Set "allowDownload": true in the data dir's config.json to download it, or ${advice}`, details: { model: source.id, missing } },
    );
  }
  const lib = await loadTransformers();
  const host = remoteHostOf(spec);
  await probeHubModel(lib, source, host, what, advice);
  const env = lib.env;
  env.cacheDir = path.resolve(expandHome(spec.cacheDir));
  env.localModelPath = env.cacheDir;
  env.remoteHost = host;
  env.allowRemoteModels = true;
  const options: TjsPretrainedOptions = {
    cache_dir: env.cacheDir,
    dtype,
    device: "cpu",
    session_options: sessionOptions,
  };
  const progress = progressCallback(spec.onProgress);
  if (progress) options.progress_callback = progress;
  return { lib, source, dtype, loadPath: source.id, options };
}

/**
 * Names a loaded model precisely: `<prefix>:<hub id>[:<dtype>]`, or for a folder
 * `<prefix>:<folder name>-<hash of its weights>`, so a changed model is not mistaken for the old one.
 */
export async function modelId(prefix: string, source: ModelSource, dtype: ModelDtype): Promise<string> {
  if (source.kind === "hub") return `${prefix}:${source.id}${dtype === "fp32" ? "" : `:${dtype}`}`;
  const onnx = path.join(source.dir, "onnx", `model${DTYPE_SUFFIX[dtype]}.onnx`);
  return `${prefix}:${path.basename(source.dir)}-${await shortFileHash(onnx)}`;
}
