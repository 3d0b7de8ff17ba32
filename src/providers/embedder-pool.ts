import { Worker } from "node:worker_threads";
import { AppError } from "../core/errors.js";
import type { WorkerError, WorkerReply, WorkerRequest } from "./embed-protocol.js";
import type { Embedder } from "./embedder.js";
import type { LocalEmbedderOptions } from "./local-embedder.js";

// Always the compiled worker: from src/providers (tests) and dist/providers alike this is dist/providers.
const WORKER_URL = new URL("../../dist/providers/embed-worker.js", import.meta.url);
const BATCH_SIZE = 32;

export interface PoolOptions extends LocalEmbedderOptions {
  /** Most worker threads to run; each holds its own copy of the model. */
  workers: number;
}

interface Job {
  texts: string[];
  query: boolean;
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

/**
 * An Embedder whose model runs in worker threads, so embedding never blocks the event loop
 * (spinners keep spinning, the server keeps answering). Workers start lazily up to `workers`
 * while batches are waiting; queries jump the queue ahead of document batches.
 */
export async function createEmbedderPool(spec: string, options: PoolOptions): Promise<Embedder> {
  const pool = new EmbedderPool(spec, options);
  const { id, dims } = await pool.start();
  return {
    id,
    dims,
    embedDocuments: (texts) => pool.embedDocuments(texts),
    embedQuery: async (text) => (await pool.submit([text], true))[0]!,
    close: () => pool.close(),
  };
}

class EmbedderPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private spawning = false;
  private closed = false;

  constructor(
    private readonly spec: string,
    private readonly options: PoolOptions,
  ) {}

  async start(): Promise<{ id: string; dims: number }> {
    return this.spawn();
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const batches: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < texts.length; start += BATCH_SIZE) {
      batches.push(this.submit(texts.slice(start, start + BATCH_SIZE), false));
    }
    return (await Promise.all(batches)).flat();
  }

  submit(texts: string[], query: boolean): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new AppError("internal", "The embedder was closed"));
    return new Promise((resolve, reject) => {
      const job = { texts, query, resolve, reject };
      if (query) this.waiting.unshift(job);
      else this.waiting.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new AppError("internal", "The embedder was closed"));
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    this.slots.length = 0;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.job || this.waiting.length === 0) continue;
      this.assign(slot, this.waiting.shift()!);
    }
    if (this.waiting.length > 0 && !this.spawning && this.slots.length < this.options.workers) {
      this.spawn().catch(() => undefined); // the workers we already have carry on
    }
  }

  private assign(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref();
    const request: WorkerRequest = { type: "embed", texts: job.texts, query: job.query };
    slot.worker.postMessage(request);
  }

  private finish(slot: Slot): Job | undefined {
    const job = slot.job;
    slot.job = undefined;
    slot.worker.unref();
    this.pump();
    return job;
  }

  private spawn(): Promise<{ id: string; dims: number }> {
    this.spawning = true;
    const { spec, options } = this;
    const worker = new Worker(WORKER_URL, {
      workerData: { spec, cacheDir: options.cacheDir, allowDownload: options.allowDownload },
    });
    return new Promise((resolve, reject) => {
      const slot: Slot = { worker, job: undefined };
      worker.on("message", (reply: WorkerReply) => {
        switch (reply.type) {
          case "ready":
            this.spawning = false;
            this.slots.push(slot);
            worker.unref();
            resolve({ id: reply.id, dims: reply.dims });
            this.pump();
            return;
          case "progress":
            options.onProgress?.(reply);
            return;
          case "result":
            this.finish(slot)?.resolve(reply.vectors);
            return;
          case "error":
            if (reply.during === "load") {
              this.spawning = false;
              reject(toAppError(reply.error));
              void worker.terminate();
            } else {
              this.finish(slot)?.reject(toAppError(reply.error));
            }
        }
      });
      worker.on("error", (error) => {
        this.spawning = false;
        this.remove(slot);
        slot.job?.reject(new AppError("internal", `The embedder worker failed: ${error.message}`, { cause: error }));
        reject(error);
      });
      worker.on("exit", () => this.remove(slot));
    });
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
  }
}

function toAppError(error: WorkerError): AppError {
  return new AppError(error.code, error.message, error.suggestion === undefined ? {} : { suggestion: error.suggestion });
}
