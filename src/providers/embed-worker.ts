import { parentPort, workerData } from "node:worker_threads";
import { isAppError } from "../core/errors.js";
import { createLocalEmbedder, type LocalEmbedderOptions } from "./local-embedder.js";
import type { WorkerReply, WorkerRequest } from "./embed-protocol.js";

/** One embedder in one worker thread; embedder-pool.ts talks to it. */
const { spec, cacheDir, allowDownload } = workerData as { spec: string } & LocalEmbedderOptions;
const port = parentPort!;
const send = (reply: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

function errorReply(error: unknown, during: "load" | "embed"): WorkerReply {
  return {
    type: "error",
    during,
    error: isAppError(error)
      ? { code: error.code, message: error.message, suggestion: error.suggestion }
      : { code: "internal", message: error instanceof Error ? error.message : String(error) },
  };
}

try {
  const embedder = await createLocalEmbedder(spec, {
    cacheDir,
    allowDownload,
    onProgress: (event) => send({ type: "progress", ...event }),
  });
  port.on("message", async (request: WorkerRequest) => {
    if (request.type === "close") {
      await embedder.close();
      port.close();
      return;
    }
    try {
      const vectors = request.query
        ? [await embedder.embedQuery(request.texts[0] ?? "")]
        : await embedder.embedDocuments(request.texts);
      send({ type: "result", vectors }, vectors.map((v) => v.buffer as ArrayBuffer));
    } catch (error) {
      send(errorReply(error, "embed"));
    }
  });
  send({ type: "ready", id: embedder.id, dims: embedder.dims });
} catch (error) {
  send(errorReply(error, "load"));
}
