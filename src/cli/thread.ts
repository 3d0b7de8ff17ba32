import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { AppError, isAppError, type ErrorCode } from "../shared/errors.js";

/**
 * A command's work in a worker thread of its own, for a heap limit of its own (the one documented
 * way without a second process): the thread reports status lines and notices, then its result or
 * its error, which comes back as the AppError it was.
 */
type Report<T> =
  | { kind: "status"; text: string }
  | { kind: "notice"; text: string }
  | { kind: "done"; value: T }
  | { kind: "error"; error: { message: string; code?: ErrorCode; suggestion?: string; details?: Record<string, unknown> } };

export interface ThreadListener {
  status(text: string): void;
  notice(text: string): void;
}

export interface ThreadOptions<J> {
  /** The module that calls `serveThread` for this `job`. */
  module: URL;
  job: J;
  oldGenerationMb: number;
  youngGenerationMb: number;
  /** What the user is told when the thread reaches its heap limit. */
  outOfMemory: () => AppError;
  /** What it is called in the message when the thread dies without a word ("the import"). */
  what: string;
}

/** Starts the thread and waits for its result. */
export function runInThread<J, T>(options: ThreadOptions<J>, on: ThreadListener): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(options.module, {
      workerData: { threadJob: options.job },
      resourceLimits: { maxOldGenerationSizeMb: options.oldGenerationMb, maxYoungGenerationSizeMb: options.youngGenerationMb },
    });
    let settled = false;
    worker.on("message", (report: Report<T>) => {
      if (report.kind === "status") return on.status(report.text);
      if (report.kind === "notice") return on.notice(report.text);
      settled = true;
      if (report.kind === "done") resolve(report.value);
      else reject(revive(report.error));
    });
    worker.on("error", (error: Error & { code?: string }) => {
      settled = true;
      reject(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? options.outOfMemory() : error);
    });
    worker.on("exit", (code) => {
      if (!settled) reject(new AppError("internal", `${capitalised(options.what)} stopped unexpectedly (exit code ${code})`));
    });
  });
}

/** In the thread: runs `work` on the job `runInThread` passed, if this is such a thread. */
export function serveThread<J, T>(work: (job: J, on: ThreadListener) => Promise<T>): void {
  const job = (workerData as { threadJob?: J } | undefined)?.threadJob;
  if (isMainThread || !parentPort || job === undefined) return;
  const port = parentPort;
  const send = (report: Report<T>) => port.postMessage(report);
  const on = { status: (text: string) => send({ kind: "status", text }), notice: (text: string) => send({ kind: "notice", text }) };
  work(job, on).then(
    (value) => send({ kind: "done", value }),
    (error: unknown) => send({ kind: "error", error: plain(error) }),
  );
}

function plain(error: unknown): Extract<Report<unknown>, { kind: "error" }>["error"] {
  if (!isAppError(error)) return { message: error instanceof Error ? error.message : String(error) };
  return {
    message: error.message,
    code: error.code,
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    details: error.details,
  };
}

function revive(error: Extract<Report<unknown>, { kind: "error" }>["error"]): Error {
  if (!error.code) return new Error(error.message);
  return new AppError(error.code, error.message, {
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    details: error.details ?? {},
  });
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
