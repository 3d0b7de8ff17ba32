/**
 * Re-scores search candidates against the query with a model that reads both together (a
 * cross-encoder, or a chat model asked for ratings), which ranks better than comparing separately
 * made embeddings.
 */
export interface Reranker {
  /** Names the model, e.g. `cross-encoder:Xenova/ms-marco-MiniLM-L-6-v2` or `llm:gpt-4o-mini`. */
  readonly id: string;
  /** One score per passage, in the passages' order; higher = more relevant. Scores are in [0, 1]. */
  rerank(query: string, passages: string[]): Promise<number[]>;
  close(): Promise<void>;
}
