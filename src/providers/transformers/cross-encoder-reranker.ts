/**
 * Reranker backed by a transformers.js sequence-classification model (a cross-encoder such as
 * Xenova/ms-marco-MiniLM-L-6-v2): each (query, passage) pair is encoded together and the
 * model's logit becomes the score. Local folders and hub ids are handled like the embedder's
 * (see download.ts); `@huggingface/transformers` is imported lazily.
 *
 * Scores: a single-logit model gives sigmoid(logit); a model with several labels gives the
 * softmax probability of its last label ("relevant" in two-label rerankers). Either way the
 * score is in (0, 1) and higher means more relevant.
 */

import { AppError } from "../../shared/errors.js";
import type { ProgressReporter } from "../embedder.js";
import type { Reranker } from "../reranker.js";
import { loadError, offlineSuggestion, prepareModel } from "./download.js";
import type { TjsTensor, TjsTokenizer } from "./library.js";
import { isModelAvailableOffline, modelId, type ModelDtype } from "./model-files.js";

export type { Reranker } from "../reranker.js";

export interface CrossEncoderRerankerSpec {
  /** Hugging Face model id (e.g. "Xenova/ms-marco-MiniLM-L-6-v2") or a local model folder. */
  model: string;
  cacheDir: string;
  /** When false, a hub model that is not already cached fails with AppError("unavailable"). */
  allowDownload: boolean;
  onProgress?: ProgressReporter;
  dtype?: ModelDtype;
  /** ONNX Runtime intra-op threads (default: ORT's choice). */
  threads?: number;
  /** Pairs per inference call (default 16). */
  batchSize?: number;
  /** Token limit per pair, special tokens included (default: the tokenizer's model_max_length, capped by max_position_embeddings and 512). */
  maxTokens?: number;
  remoteHost?: string;
}

interface SequenceClassifier {
  (inputs: Record<string, TjsTensor>): Promise<{ logits: TjsTensor }>;
  readonly config?: Record<string, unknown>;
  dispose(): Promise<unknown>;
}

const DEFAULT_BATCH = 16;

export async function isCrossEncoderModelCached(model: string, cacheDir: string, dtype?: ModelDtype): Promise<boolean> {
  return isModelAvailableOffline(model, cacheDir, dtype);
}

function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export async function createCrossEncoderReranker(spec: CrossEncoderRerankerSpec): Promise<Reranker> {
  const advice = (source: Parameters<typeof offlineSuggestion>[0]) =>
    offlineSuggestion(source, "search without reranking", () => "give that folder as the reranker model");
  const prepared = await prepareModel(spec, "reranker model", advice);
  const { lib, source, dtype } = prepared;
  const displayName = source.kind === "hub" ? source.id : source.dir;

  let tokenizer: TjsTokenizer;
  let model: SequenceClassifier;
  try {
    [tokenizer, model] = await Promise.all([
      lib.AutoTokenizer.from_pretrained(prepared.loadPath, prepared.options),
      lib.AutoModelForSequenceClassification.from_pretrained(prepared.loadPath, prepared.options) as Promise<SequenceClassifier>,
    ]);
  } catch (error) {
    throw loadError(error, "reranker model", displayName, advice(source));
  }

  const id = await modelId("cross-encoder", source, dtype);

  const config = model.config ?? {};
  const maxPositions = typeof config["max_position_embeddings"] === "number" ? config["max_position_embeddings"] : 512;
  const tokenizerMax = Number.isFinite(tokenizer.model_max_length) ? tokenizer.model_max_length : 512;
  const maxTokens = Math.max(16, Math.min(spec.maxTokens ?? Infinity, tokenizerMax, maxPositions, 512));
  const pairSpecials =
    tokenizer.encode("a", { text_pair: "b" }).length -
    tokenizer.encode("a", { add_special_tokens: false }).length -
    tokenizer.encode("b", { add_special_tokens: false }).length;
  const batchSize = Math.max(1, Math.floor(spec.batchSize ?? DEFAULT_BATCH));
  const budget = maxTokens - pairSpecials;

  /** Shortens text to at most `limit` tokens (keeping the start), by tokens rather than by cutting the pair's tail. */
  const clip = (text: string, limit: number): { text: string; tokens: number } => {
    const ids = tokenizer.encode(text, { add_special_tokens: false });
    if (ids.length <= limit) return { text, tokens: ids.length };
    return { text: tokenizer.decode(ids.slice(0, limit), { skip_special_tokens: true }), tokens: limit };
  };

  let closed = false;

  return {
    id,
    async rerank(query: string, passages: string[]): Promise<number[]> {
      if (closed) throw new AppError("internal", `reranker ${id} is closed`);
      if (passages.length === 0) return [];
      // The query keeps at most half the budget; each passage gets the rest.
      const q = clip(query, Math.floor(budget / 2));
      const scores: number[] = [];
      for (let start = 0; start < passages.length; start += batchSize) {
        const batch = passages.slice(start, start + batchSize).map((p) => clip(p, budget - q.tokens).text);
        const inputs = tokenizer(
          batch.map(() => q.text),
          { text_pair: batch, padding: true, truncation: true, max_length: maxTokens },
        );
        const { logits } = await model(inputs);
        try {
          const [rows, labels] = logits.dims;
          if (rows !== batch.length || labels === undefined || labels < 1) {
            throw new AppError("internal", `reranker returned logits of shape [${logits.dims.join(", ")}]`);
          }
          const data = logits.data;
          for (let r = 0; r < rows; r++) {
            if (labels === 1) {
              scores.push(sigmoid(Number(data[r])));
            } else {
              let max = -Infinity;
              for (let c = 0; c < labels; c++) max = Math.max(max, Number(data[r * labels + c]));
              let sum = 0;
              for (let c = 0; c < labels; c++) sum += Math.exp(Number(data[r * labels + c]) - max);
              scores.push(Math.exp(Number(data[r * labels + labels - 1]) - max) / sum);
            }
          }
        } finally {
          logits.dispose?.();
          for (const tensor of Object.values(inputs)) tensor.dispose?.();
        }
      }
      return scores;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await model.dispose();
    },
  };
}
