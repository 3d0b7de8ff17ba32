import os from "node:os";
import { Worker } from "node:worker_threads";
import { AppError } from "../../shared/errors.js";
import { giveBackFreeMemory, keepHeapSmallAfter } from "../../shared/lean-allocator.js";
import type { Embedder } from "../embedder.js";
import type { LocalModelOptions } from "./local-models.js";
import type { ModelWorkerData, WorkerError, WorkerReply, WorkerRequest } from "./model-protocol.js";
import type { ImageCaptioner } from "../transformers/image-captioner.js";
import type { Reranker } from "../reranker.js";

// The worker runs compiled code: the integration tests, which start workers, run on dist/ too.
const WORKER_URL = new URL("./model-worker.js", import.meta.url);
const BATCH_SIZE = 32;
/**
 * A model's work is native (ONNX Runtime); its JavaScript allocates little. A small young
 * generation took ~45 MB off each worker's resident memory at the same speed (measured with the
 * bundled model when it ran on TensorFlow.js, 2 workers).
 */
const YOUNG_GENERATION_MB = 4;
/**
 * A model worker's stack. ONNX Runtime recurses deeper the longer the process's command line
 * (its longest argument, it seems): one argument of 13 KB, a memory given as `mnemo remember "…"`,
 * overflowed Node's default 4 MB and killed the process (SIGSEGV, tens of thousands of frames in
 * libonnxruntime). 64 MB holds the longest argument Linux allows (128 KB); it is address space,
 * only the pages used become memory.
 */
const STACK_MB = 64;
/** Most waiting queries embedded in one call: a batch of 4 costs a query half of what it costs alone. */
const QUERY_BATCH = 8;
/** How long a closing worker may take to finish its job and release its model before it is terminated. */
const CLOSE_TIMEOUT_MS = 5_000;

export interface PoolOptions extends LocalModelOptions {
  /** Most worker threads to run; each holds its own copy of the model. */
  workers: number;
}

type Job = {
  request: Exclude<WorkerRequest, { type: "close" }>;
  urgent: boolean;
  resolve(value: Float32Array[] | number[] | string): void;
  reject(error: Error): void;
};

interface Slot {
  worker: Worker;
  /** The jobs in flight: one, or several queries embedded together. */
  jobs: Job[];
}

/**
 * An Embedder whose model runs in worker threads, so embedding never blocks the event loop
 * (spinners keep spinning, the server keeps answering). Workers start lazily up to `workers`
 * while batches are waiting; queries jump the queue ahead of document batches, and queries that
 * wait together are embedded together.
 */
export async function createEmbedderPool(spec: string, options: PoolOptions): Promise<Embedder> {
  const pool = new ModelPool({ kind: "embedder", spec, cacheDir: options.cacheDir, allowDownload: options.allowDownload }, options);
  const { id, dims } = await pool.start();
  const embed = (texts: string[], query: boolean) => pool.submit({ type: "embed", texts }, query) as Promise<Float32Array[]>;
  return {
    id,
    dims,
    embedDocuments: async (texts, options) => {
      const batches: Promise<Float32Array[]>[] = [];
      for (let start = 0; start < texts.length; start += BATCH_SIZE) {
        batches.push(embed(texts.slice(start, start + BATCH_SIZE), options?.urgent ?? false));
      }
      return (await Promise.all(batches)).flat();
    },
    embedQuery: async (text) => (await embed([text], true))[0]!,
    close: () => pool.close(),
  };
}

/** A cross-encoder reranker in one worker thread (ONNX Runtime would otherwise block the event loop). */
export async function createRerankerPool(spec: string, options: LocalModelOptions): Promise<Reranker> {
  const pool = new ModelPool(
    { kind: "reranker", spec, cacheDir: options.cacheDir, allowDownload: options.allowDownload },
    { ...options, workers: 1 },
  );
  const { id } = await pool.start();
  return {
    id,
    rerank: (query, passages) => pool.submit({ type: "rerank", query, passages }, true) as Promise<number[]>,
    close: () => pool.close(),
  };
}

class ModelPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  /** Every worker not yet exited, loading or ready. */
  private readonly workers = new Set<Worker>();
  private spawning = false;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly data: Omit<ModelWorkerData, "threads">,
    private readonly options: PoolOptions,
  ) {}

  start(): Promise<{ id: string; dims: number }> {
    return this.spawn();
  }

  submit(request: Job["request"], urgent: boolean): Promise<Float32Array[] | number[] | string> {
    if (this.closed) return Promise.reject(new AppError("internal", "The model was closed"));
    clearTimeout(this.idleTimer);
    return new Promise((resolve, reject) => {
      const job = { request, urgent, resolve, reject };
      // Urgent jobs (queries) go ahead of document batches, but in arrival order among themselves.
      const firstBatch = this.waiting.findIndex((waiting) => !waiting.urgent);
      if (urgent && firstBatch >= 0) this.waiting.splice(firstBatch, 0, job);
      else this.waiting.push(job);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const job of this.waiting.splice(0)) job.reject(new AppError("internal", "The model was closed"));
    await Promise.all([...this.workers].map(stopWorker));
    this.slots.length = 0;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.jobs.length > 0 || this.waiting.length === 0) continue;
      slot.jobs = this.next();
      slot.worker.ref();
      slot.worker.postMessage(slot.jobs.length === 1 ? slot.jobs[0]!.request : mergedQueries(slot.jobs));
    }
    if (this.waiting.length > 0 && !this.spawning && this.slots.length < this.options.workers) {
      this.spawn().catch((error: unknown) => {
        // The workers we already have carry on; with none (the model unloaded while idle, and now
        // failing to load again) the waiting jobs would wait for ever.
        if (this.slots.length === 0) for (const job of this.waiting.splice(0)) job.reject(asError(error));
      });
    }
    if (this.options.idleMs !== undefined && this.waiting.length === 0 && this.slots.every((slot) => slot.jobs.length === 0)) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => this.unload(), this.options.idleMs).unref();
    }
  }

  /**
   * Stops the idle workers, which release their models, then gives the freed memory back to the
   * system (glibc keeps it otherwise). A job that comes meanwhile starts a new worker.
   */
  private unload(): void {
    if (this.closed || this.spawning || this.waiting.length > 0 || this.slots.some((slot) => slot.jobs.length > 0)) return;
    const idle = this.slots.splice(0);
    void Promise.all(idle.map((slot) => stopWorker(slot.worker))).then(giveBackFreeMemory);
  }

  /** The next job, or the queries waiting at the head of the queue (up to QUERY_BATCH). */
  private next(): Job[] {
    const jobs = [this.waiting.shift()!];
    while (isQuery(jobs[0]!) && jobs.length < QUERY_BATCH && this.waiting[0] && isQuery(this.waiting[0])) jobs.push(this.waiting.shift()!);
    return jobs;
  }

  private finish(slot: Slot): Job[] {
    const jobs = slot.jobs;
    slot.jobs = [];
    slot.worker.unref();
    this.pump();
    return jobs;
  }

  private spawn(): Promise<{ id: string; dims: number }> {
    this.spawning = true;
    const threads = this.options.threads ?? Math.max(1, Math.floor(os.availableParallelism() / this.options.workers));
    const workerData: ModelWorkerData = { ...this.data, threads };
    const worker = new Worker(WORKER_URL, {
      workerData,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, stackSizeMb: STACK_MB },
    });
    keepHeapSmallAfter(worker);
    this.workers.add(worker);
    worker.once("exit", () => this.workers.delete(worker));
    return new Promise((resolve, reject) => {
      const slot: Slot = { worker, jobs: [] };
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
            this.options.onProgress?.(reply);
            return;
          case "result": {
            const jobs = this.finish(slot);
            if (jobs.length === 1) jobs[0]!.resolve(reply.value);
            else jobs.forEach((job, i) => job.resolve([(reply.value as Float32Array[])[i]!]));
            return;
          }
          case "error":
            if (reply.during === "load") {
              this.spawning = false;
              reject(toAppError(reply.error));
              void worker.terminate();
            } else {
              for (const job of this.finish(slot)) job.reject(toAppError(reply.error));
            }
        }
      });
      worker.on("error", (error) => {
        this.spawning = false;
        this.remove(slot);
        for (const job of slot.jobs) job.reject(new AppError("internal", `The model worker failed: ${error.message}`, { cause: error }));
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

/**
 * Asks a worker to release its model and exit, after the job it is running (or its loading). Only
 * one that does not answer is terminated: terminating a worker while ONNX Runtime holds a session
 * in it can abort the whole process (`terminate called after throwing an instance of
 * 'Napi::Error'`), as a command that failed while its model was loading did about one time in three.
 */
function stopWorker(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage({ type: "close" } satisfies WorkerRequest);
  });
}

/** A single urgent text: such jobs waiting together are embedded together (an urgent batch goes alone). */
const isQuery = (job: Job) => job.urgent && job.request.type === "embed" && job.request.texts.length === 1;

function mergedQueries(jobs: Job[]): WorkerRequest {
  return { type: "embed", texts: jobs.flatMap((job) => (job.request.type === "embed" ? job.request.texts : [])) };
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new AppError("internal", String(error)));

function toAppError(error: WorkerError): AppError {
  return new AppError(error.code, error.message, error.suggestion === undefined ? {} : { suggestion: error.suggestion });
}

/** An image-to-text model in one worker thread. */
export async function createCaptionerPool(spec: string, options: LocalModelOptions): Promise<ImageCaptioner> {
  const pool = new ModelPool({ kind: "captioner", spec, cacheDir: options.cacheDir, allowDownload: false }, { ...options, workers: 1 });
  const { id } = await pool.start();
  return {
    id,
    caption: (image) => pool.submit({ type: "caption", image: new Uint8Array(image) }, true) as Promise<string>,
    close: () => pool.close(),
  };
}
