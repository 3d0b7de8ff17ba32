import type { ErrorCode } from "../core/errors.js";

/** Messages between embedder-pool.ts (main thread) and embed-worker.ts: one job at a time per worker. */
export type WorkerRequest =
  | { type: "embed"; texts: string[]; query: boolean }
  | { type: "close" };

export interface WorkerError {
  code: ErrorCode;
  message: string;
  suggestion?: string | undefined;
}

export type WorkerReply =
  | { type: "ready"; id: string; dims: number }
  | { type: "progress"; file: string; loaded: number; total: number }
  | { type: "result"; vectors: Float32Array[] }
  /** `during: "load"` means the worker could not start; "embed" fails only the current job. */
  | { type: "error"; during: "load" | "embed"; error: WorkerError };
