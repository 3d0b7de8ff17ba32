import { AppError } from "../../shared/errors.js";
import { BUNDLED_EMBEDDER_ID, createBundledEmbedder } from "../bundled/bundled-embedder.js";
import type { Embedder, ProgressReporter } from "../embedder.js";
import type { ImageCaptioner } from "../transformers/image-captioner.js";
import type { Reranker } from "../reranker.js";

export const DEFAULT_TRANSFORMERS_MODEL = "Xenova/all-MiniLM-L6-v2";
export const DEFAULT_CROSS_ENCODER = "Xenova/ms-marco-MiniLM-L-6-v2";
export const DEFAULT_CAPTIONER = "Xenova/vit-gpt2-image-captioning";

export type EmbedderSpec = { kind: "bundled" } | { kind: "transformers"; model: string };

export interface LocalModelOptions {
  /** Where downloaded models are kept. */
  cacheDir: string;
  allowDownload: boolean;
  onProgress?: ProgressReporter;
  /** Threads one model may use for a batch (the bundled model; transformers.js sets its own). */
  threads?: number;
  /**
   * How long a loaded model may go unused before its worker stops and its memory goes back to the
   * system; the next call loads it again. Unset: kept loaded while the process runs.
   */
  idleMs?: number;
}

export function parseEmbedderSpec(spec: string): EmbedderSpec {
  if (spec === BUNDLED_EMBEDDER_ID) return { kind: "bundled" };
  if (spec.startsWith("transformers:") && spec.length > "transformers:".length) {
    return { kind: "transformers", model: spec.slice("transformers:".length) };
  }
  throw AppError.invalid("embedder", `unknown embedder "${spec}"`, "Use bundled, or transformers:<model id or folder>.");
}

export function parseRerankerSpec(spec: string): string {
  if (spec.startsWith("cross-encoder:") && spec.length > "cross-encoder:".length) return spec.slice("cross-encoder:".length);
  throw AppError.invalid("reranker", `unknown reranker "${spec}"`, "Use none, auto, llm, or cross-encoder:<model id or folder>.");
}

/** Builds an embedder in this thread. The pool (model-pool.ts) calls it inside worker threads. */
export async function createLocalEmbedder(spec: string, options: LocalModelOptions): Promise<Embedder> {
  const parsed = parseEmbedderSpec(spec);
  if (parsed.kind === "bundled") return createBundledEmbedder({ cacheDir: options.cacheDir, threads: options.threads ?? 1 });
  const { createTransformersEmbedder } = await import("../transformers/transformers-embedder.js");
  return createTransformersEmbedder({ model: parsed.model, ...options });
}

export async function createLocalReranker(spec: string, options: LocalModelOptions): Promise<Reranker> {
  const model = parseRerankerSpec(spec);
  const { createCrossEncoderReranker } = await import("../transformers/cross-encoder-reranker.js");
  return createCrossEncoderReranker({ model, ...options });
}

export async function createLocalCaptioner(model: string, options: LocalModelOptions): Promise<ImageCaptioner> {
  const { createImageCaptioner } = await import("../transformers/image-captioner.js");
  return createImageCaptioner({ model, ...options });
}
