import { parentPort, workerData } from "node:worker_threads";
import { isAppError } from "../../shared/errors.js";
import type { Embedder } from "../embedder.js";
import type { ImageCaptioner } from "../transformers/image-captioner.js";
import { createLocalCaptioner, createLocalEmbedder, createLocalReranker } from "./local-models.js";
import type { ModelWorkerData, WorkerReply, WorkerRequest } from "./model-protocol.js";
import type { Reranker } from "../reranker.js";

/** One model (an embedder, a reranker or a captioner) in one worker thread; model-pool.ts talks to it. */
const { kind, spec, cacheDir, allowDownload, threads } = workerData as ModelWorkerData;
const port = parentPort!;
const send = (reply: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

function errorReply(error: unknown, during: "load" | "job"): WorkerReply {
  return {
    type: "error",
    during,
    error: isAppError(error)
      ? { code: error.code, message: error.message, suggestion: error.suggestion }
      : { code: "internal", message: error instanceof Error ? error.message : String(error) },
  };
}

type Model = Embedder | Reranker | ImageCaptioner;

async function run(model: Model, request: Exclude<WorkerRequest, { type: "close" }>): Promise<void> {
  if (request.type === "caption" && "caption" in model) {
    send({ type: "result", value: await model.caption(Buffer.from(request.image)) });
  } else if (request.type === "rerank" && "rerank" in model) {
    send({ type: "result", value: await model.rerank(request.query, request.passages) });
  } else if (request.type === "embed" && "embedDocuments" in model) {
    // Queries embed like documents (Embedder), so queries that waited together go in one call.
    const vectors = await model.embedDocuments(request.texts);
    send(
      { type: "result", value: vectors },
      vectors.map((v) => v.buffer as ArrayBuffer),
    );
  } else {
    throw new Error(`a ${kind} worker cannot ${request.type}`);
  }
}

try {
  const options = {
    cacheDir,
    allowDownload,
    threads,
    onProgress: (event: { file: string; loaded: number; total: number }) => send({ type: "progress", ...event }),
  };
  const create = { embedder: createLocalEmbedder, reranker: createLocalReranker, captioner: createLocalCaptioner }[kind];
  const model: Model = await create(spec, options);
  // One request at a time, so that `close` releases the model only after the job before it.
  let queue = Promise.resolve();
  port.on("message", (request: WorkerRequest) => {
    queue = queue.then(async () => {
      if (request.type !== "close") return run(model, request).catch((error: unknown) => send(errorReply(error, "job")));
      await model.close();
      port.close();
    });
  });
  send({ type: "ready", id: model.id, dims: "dims" in model ? model.dims : 0 });
} catch (error) {
  send(errorReply(error, "load"));
}
