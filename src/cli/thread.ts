import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { AppError, plainError, revivedError, type PlainError } from "../shared/errors.js";
import { recordThreadEnded } from "../shared/processes.js";
import type { CliIo, OutStream } from "./io.js";

/**
 * A command's work in a worker thread of its own, for a heap limit of its own (the one documented
 * way without a second process): the thread reports status lines and notices, then its result or
 * its error, which comes back as the AppError it was.
 */
type Report<T> =
  | { kind: "status"; text: string }
  | { kind: "notice"; text: string }
  | { kind: "done"; value: T }
  | { kind: "error"; error: PlainError };

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

/**
 * Starts the thread and waits for its result, and for its end: nothing it started outlives the
 * command. The thread's environment is the run's, and what it writes goes to the run's stdout and stderr.
 */
export function runInThread<J, T>(options: ThreadOptions<J>, on: ThreadListener, io: CliIo): Promise<T> {
  const worker = new Worker(options.module, {
    workerData: { threadJob: options.job },
    env: Object.fromEntries(Object.entries(io.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: options.oldGenerationMb, maxYoungGenerationSizeMb: options.youngGenerationMb },
  });
  const written = Promise.all([copied(worker.stdout, io.stdout), copied(worker.stderr, io.stderr)]);
  const thread = worker.threadId;
  return new Promise((resolve, reject) => {
    let outcome: { value: T } | { error: Error } | undefined;
    worker.on("message", (report: Report<T>) => {
      if (report.kind === "status") return on.status(report.text);
      if (report.kind === "notice") return on.notice(report.text);
      outcome ??= report.kind === "done" ? { value: report.value } : { error: revivedError(report.error) };
    });
    worker.on("error", (error: Error & { code?: string }) => {
      outcome ??= { error: error.code === "ERR_WORKER_OUT_OF_MEMORY" ? options.outOfMemory() : error };
    });
    worker.on("exit", (code) => {
      // A store lease its release could not give back (an outage) is then known to be nobody's.
      recordThreadEnded(thread);
      void written.then(() => {
        if (outcome === undefined)
          reject(new AppError("internal", `${capitalised(options.what)} stopped unexpectedly (exit code ${code})`));
        else if ("value" in outcome) resolve(outcome.value);
        else reject(outcome.error);
      });
    });
  });
}

/** Everything the thread writes to one of its streams, passed on; resolves when the thread has closed it. */
function copied(from: Readable, to: OutStream): Promise<void> {
  from.pipe(to, { end: false });
  return finished(from).catch(() => undefined);
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
    (error: unknown) => send({ kind: "error", error: plainError(error) }),
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
