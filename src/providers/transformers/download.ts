/**
 * Getting a model onto disk for the transformers.js providers (embedder, cross-encoder reranker,
 * captioner): what is in the cache is used as it is; otherwise, if downloads are allowed,
 * transformers.js downloads the missing files into the cache folder (`env.cacheDir`), reporting
 * progress, after one cheap request has shown the hub answers; if not, loading fails at once with
 * AppError("unavailable"). Errors name the model and what to do.
 */
import path from "node:path";
import { AppError } from "../../shared/errors.js";
import type { ProgressReporter } from "../embedder.js";
import { onnxSessionOptions } from "../onnx-session.js";
import { loadTransformers, type TjsPretrainedOptions, type TransformersLib } from "./library.js";
import { expandHome, missingModelFiles, pickLocalDtype, resolveModelSource, type ModelDtype, type ModelSource } from "./model-files.js";

export const DEFAULT_REMOTE_HOST = "https://huggingface.co/";

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
    throw new AppError("unavailable", `cannot download ${what} "${source.id}": ${hostName(host)} answered HTTP ${response.status}`, {
      suggestion,
      details: { model: source.id, status: response.status },
    });
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
  const sessionOptions = onnxSessionOptions(spec.threads);
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
      {
        suggestion: `Set "allowDownload": true in the data dir's config.json to download it, or ${advice}`,
        details: { model: source.id, missing },
      },
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
