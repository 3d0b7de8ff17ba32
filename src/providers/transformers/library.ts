/**
 * `@huggingface/transformers`, loaded lazily, with mnemo's defaults on its `env`: local models
 * allowed, a file cache, warnings off, and a fetch with deadlines, so an unreachable or hanging hub
 * fails in seconds instead of blocking the CLI.
 *
 * Nothing imports `@huggingface/transformers` at module load: it costs ~150 ms and loads the ONNX
 * runtime, which `mnemo --help` must not pay.
 */
import { AppError } from "../../shared/errors.js";
import type { ModelDtype } from "./model-files.js";

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
    env.fetch = (input, init) => fetchWithTimeouts(plainFetch, input, init, hubTimeouts.connectMs, hubTimeouts.stallMs);
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
  let timer = setTimeout(() => controller.abort(new Error(`no response from ${url} within ${connectMs / 1000}s`)), connectMs);
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
        timer = setTimeout(() => controller.abort(new Error(`download of ${url} stalled for ${stallMs / 1000}s`)), stallMs);
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
