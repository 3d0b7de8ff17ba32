import type { ErrorCode } from "../../shared/errors.js";

/** What a model worker hosts: an embedder or a reranker, by spec. */
export interface ModelWorkerData {
  kind: "embedder" | "reranker" | "captioner";
  spec: string;
  cacheDir: string;
  allowDownload: boolean;
  /** Threads the model may use for one job: the cores shared out among the workers. */
  threads: number;
}

/** Messages between model-pool.ts (main thread) and model-worker.ts: one job at a time per worker. */
export type WorkerRequest =
  | { type: "embed"; texts: string[] }
  | { type: "rerank"; query: string; passages: string[] }
  | { type: "caption"; image: Uint8Array }
  | { type: "close" };

export interface WorkerError {
  code: ErrorCode;
  message: string;
  suggestion?: string | undefined;
}

export type WorkerReply =
  | { type: "ready"; id: string; dims: number }
  | { type: "progress"; file: string; loaded: number; total: number }
  | { type: "result"; value: Float32Array[] | number[] | string }
  /** `during: "load"` means the worker could not start; "job" fails only the current job. */
  | { type: "error"; during: "load" | "job"; error: WorkerError };
