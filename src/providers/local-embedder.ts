import { AppError } from "../core/errors.js";
import { BUNDLED_EMBEDDER_ID, createBundledEmbedder } from "./bundled-embedder.js";
import type { Embedder, ProgressReporter } from "./embedder.js";

export const DEFAULT_TRANSFORMERS_MODEL = "Xenova/all-MiniLM-L6-v2";

export type EmbedderSpec = { kind: "bundled" } | { kind: "transformers"; model: string };

export interface LocalEmbedderOptions {
  /** Where downloaded models are kept. */
  cacheDir: string;
  allowDownload: boolean;
  onProgress?: ProgressReporter;
}

export function parseEmbedderSpec(spec: string): EmbedderSpec {
  if (spec === BUNDLED_EMBEDDER_ID) return { kind: "bundled" };
  if (spec.startsWith("transformers:") && spec.length > "transformers:".length) {
    return { kind: "transformers", model: spec.slice("transformers:".length) };
  }
  throw AppError.invalid("embedder", `unknown embedder "${spec}"`, "Use bundled, or transformers:<model id or folder>.");
}

/** Builds an embedder in this thread. The pool (embedder-pool.ts) calls it inside worker threads. */
export async function createLocalEmbedder(spec: string, options: LocalEmbedderOptions): Promise<Embedder> {
  const parsed = parseEmbedderSpec(spec);
  if (parsed.kind === "bundled") return createBundledEmbedder();
  const { createTransformersEmbedder } = await import("./transformers-embedder.js");
  return createTransformersEmbedder({ model: parsed.model, ...options });
}
