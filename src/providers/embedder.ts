/**
 * A text embedder. Vectors are L2-normalised, so a dot product is the cosine similarity.
 * `id` names the model precisely enough that vectors made by two embedders with the same id
 * are interchangeable; the store records it and refuses vectors of another id. Queries and
 * documents are embedded alike (no instruction prefixes): `embedQuery(t)` is
 * `embedDocuments([t])[0]`, which lets the model pool embed waiting queries together.
 */
export interface Embedder {
  readonly id: string;
  readonly dims: number;
  embedDocuments(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}

export interface EmbedOptions {
  /**
   * Someone waits for these (a memory being stored, a recall): they go ahead of bulk work such as
   * indexing an import, whose batches of ~10 s each made a memory write wait up to 13 s.
   */
  urgent?: boolean;
}

/** Reports model download progress: `loaded`/`total` bytes of `file`. */
export type ProgressReporter = (event: { file: string; loaded: number; total: number }) => void;
