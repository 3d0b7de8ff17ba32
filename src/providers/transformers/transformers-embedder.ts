/**
 * Embedder backed by transformers.js (ONNX Runtime for Node): any BERT-like sentence-embedding
 * model with ONNX weights, from a local folder or the Hugging Face hub (downloaded once into the
 * cache folder). Vectors are mean-pooled over tokens and L2-normalised, as sentence-transformers
 * does for models such as all-MiniLM-L6-v2.
 *
 * `@huggingface/transformers` is imported lazily, on the first create call.
 *
 * Note on threads: onnxruntime-node's `session.run()` is a synchronous native call (scheduled
 * with setImmediate), so inference blocks the calling JS thread while it runs — ORT itself uses
 * its intra-op thread pool inside that call. To keep an event loop responsive, run the embedder
 * in a worker_thread; it loads and works there unchanged (see the tests).
 */

import { AppError } from "../../shared/errors.js";
import type { Embedder, ProgressReporter } from "../embedder.js";
import { loadError, offlineSuggestion, prepareModel } from "./download.js";
import type { TjsTensor, TjsTokenizer } from "./library.js";
import { isModelAvailableOffline, modelId, type ModelDtype } from "./model-files.js";

export interface TransformersEmbedderSpec {
  /** Hugging Face model id (e.g. "Xenova/all-MiniLM-L6-v2") or a local model folder. */
  model: string;
  /** Download cache; a hub model lives in `<cacheDir>/<owner>/<name>/`. */
  cacheDir: string;
  onProgress?: ProgressReporter;
  /** When false, a hub model that is not already cached fails with AppError("unavailable"). */
  allowDownload: boolean;
  /** ONNX weights to use. Default: fp32 for hub ids; for a folder, the first present of fp32, fp16, q8, ... */
  dtype?: ModelDtype;
  /** ONNX Runtime intra-op threads (default: ORT's choice, about one per core). Set to 1–2 per worker in a pool. */
  threads?: number;
  /** Texts per inference call in embedDocuments (default 32). */
  batchSize?: number;
  /** Token limit per text, special tokens included (default: the tokenizer's model_max_length, capped by max_position_embeddings). */
  maxTokens?: number;
  /** Hub mirror; default $HF_ENDPOINT or https://huggingface.co/. */
  remoteHost?: string;
}

/** The feature-extraction pipeline, as far as we use it. */
interface FeatureExtractor {
  (texts: string[], options: { pooling: "mean"; normalize: boolean }): Promise<TjsTensor>;
  readonly tokenizer: TjsTokenizer;
  readonly model: { readonly config?: Record<string, unknown> };
  dispose(): Promise<void>;
}

const DEFAULT_BATCH = 32;

/** True for an existing local model folder, or a hub id whose files are all in `cacheDir`. */
export async function isTransformersModelCached(model: string, cacheDir: string, dtype?: ModelDtype): Promise<boolean> {
  return isModelAvailableOffline(model, cacheDir, dtype);
}

export async function createTransformersEmbedder(spec: TransformersEmbedderSpec): Promise<Embedder> {
  const advice = (source: Parameters<typeof offlineSuggestion>[0]) =>
    offlineSuggestion(source, "use --embedder bundled", (dir) => `pass --embedder transformers:${dir}`);
  const prepared = await prepareModel(spec, "embedding model", advice);
  const { lib, source, dtype } = prepared;
  const displayName = source.kind === "hub" ? source.id : source.dir;

  let extractor: FeatureExtractor;
  try {
    extractor = (await lib.pipeline("feature-extraction", prepared.loadPath, prepared.options)) as FeatureExtractor;
  } catch (error) {
    throw loadError(error, "embedding model", displayName, advice(source));
  }

  const id = await modelId("transformers", source, dtype);

  const tokenizer = extractor.tokenizer;
  const config = extractor.model.config ?? {};
  const maxPositions = typeof config["max_position_embeddings"] === "number" ? config["max_position_embeddings"] : Infinity;
  const tokenizerMax = Number.isFinite(tokenizer.model_max_length) ? tokenizer.model_max_length : 512;
  const maxTokens = Math.max(8, Math.min(spec.maxTokens ?? Infinity, tokenizerMax, maxPositions));
  const specials = tokenizer.encode("").length; // [CLS] + [SEP] for BERT
  const batchSize = Math.max(1, Math.floor(spec.batchSize ?? DEFAULT_BATCH));

  /**
   * transformers.js truncates by cutting the id list, which drops the closing [SEP]. Shorten
   * over-long texts ourselves (keep the first tokens, decode back to text) so the model always
   * sees a well-formed sequence, as the Python tokenizers produce.
   */
  const fit = (text: string): string => {
    // A token covers at least a third of a UTF-16 unit (byte-level BPE: up to 3 bytes per unit).
    if (text.length * 3 <= maxTokens - specials) return text;
    const ids = tokenizer.encode(text, { add_special_tokens: false });
    if (ids.length <= maxTokens - specials) return text;
    return tokenizer.decode(ids.slice(0, maxTokens - specials), { skip_special_tokens: true });
  };

  let closed = false;
  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const output = await extractor(texts.map(fit), { pooling: "mean", normalize: true });
    try {
      const [rows, width] = output.dims;
      if (rows !== texts.length || width === undefined) {
        throw new AppError("internal", `embedding model returned shape [${output.dims.join(", ")}] for ${texts.length} texts`);
      }
      const data = output.data as Float32Array;
      const vectors: Float32Array[] = [];
      for (let i = 0; i < rows; i++) vectors.push(data.slice(i * width, (i + 1) * width));
      return vectors;
    } finally {
      output.dispose?.();
    }
  };

  // Probe once: the vector size is whatever the model really produces.
  const probe = await run(["dimension probe"]);
  const dims = probe[0]?.length ?? 0;
  if (dims === 0) throw new AppError("internal", `embedding model "${displayName}" produced an empty vector`);

  const ensureOpen = () => {
    if (closed) throw new AppError("internal", `embedder ${id} is closed`);
  };

  return {
    id,
    dims,
    async embedDocuments(texts: string[]): Promise<Float32Array[]> {
      ensureOpen();
      if (texts.length === 0) return [];
      // Batch texts of similar length together: padding to the batch's longest text is wasted work.
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const result = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        const slice = order.slice(start, start + batchSize);
        const vectors = await run(slice.map((i) => texts[i]!));
        slice.forEach((textIndex, k) => {
          result[textIndex] = vectors[k]!;
        });
      }
      return result;
    },
    async embedQuery(text: string): Promise<Float32Array> {
      ensureOpen();
      const [vector] = await run([text]);
      return vector!;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await extractor.dispose();
    },
  };
}
