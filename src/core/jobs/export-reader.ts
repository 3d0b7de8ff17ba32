import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import type { ExportReader, OpenExportOptions, RepairedRecord, SkippedCount, UnreadableRecord } from "../../importers/index.js";
import { AppError, revivedError } from "../../shared/errors.js";
import type { ExportItem, ExportReply, ExportRequest } from "./export-reading-protocol.js";

const READING_PROCESS = fileURLToPath(new URL("./export-reading-process.js", import.meta.url));
/** Its young generation's semi-space, in MB: what an import allocates is garbage within a batch (cli/import-thread.ts). */
const SEMI_SPACE_MB = 4;
/**
 * An idle process is ended after this long: starting one took ~1 s on a busy 2-core machine (node, the importers), and
 * one that has read a large export keeps what its heap grew to until it ends.
 */
const IDLE_MS = 30_000;
/**
 * A folder is read in one process, its batch of the files before held there: one file too big fails
 * them all, unnamed. Each file imported on its own is read apart, and that one fails alone.
 */
const FOLDER_APART = ", or import the folder's files one at a time (mnemo import <folder>/*): the one too big then fails alone";
/** The end of its stderr kept, for what V8 says there as it aborts. */
const STDERR_CHARS = 4096;

/**
 * A server's uploaded exports are read (openExport) in a child process with a heap limit of its own,
 * so one that needs more memory than that (a 1 MB zip can expand to a GB of rows) ends that process,
 * and its import, with an error naming the file, never the server. Not a worker thread with
 * `resourceLimits`: a thread whose one allocation passes its limit (JSON.parse of a 100 MB record)
 * aborts the whole process (nodejs/node#47224; so did this test's upload), where a process of its own
 * is all that ends. The records come back a batch at a time, each asked for once the one before is
 * stored (the process reads the next meanwhile), so the server holds a batch, not the export. The
 * process reads one export at a time, is kept for the next upload, and ends once idle (the pattern of
 * operations/health-child.ts). `mnemo import` reads each of its files in one too (import-file.ts's
 * `readApart`), started for the import and let go at its end: its thread has a heap limit of its own
 * as well, and one huge allocation there would abort the command the same way.
 */
export class ExportReadingProcess {
  private child: ChildProcess | undefined;
  /** The export being read; replies of an earlier one are dropped. */
  private file = 0;
  private readonly replies: ExportReply[] = [];
  private waiting: { resolve: (reply: ExportReply) => void; reject: (error: Error) => void } | undefined;
  /** Why the process ended, for what was asked of it. */
  private ended: Error | undefined;
  private idle: NodeJS.Timeout | undefined;
  /** The export's name, as the user knows it. */
  private name = "";
  /** Whether the export is a folder, read whole in the one process: a file too big in it fails all of it. */
  private folder = false;

  constructor(
    private readonly heapMb: number,
    private readonly env: NodeJS.ProcessEnv,
    /** Whose reading it is, for how the user raises the limit: a server's uploads, or `mnemo import`'s files. */
    private readonly reads: "uploads" | "imports" = "uploads",
  ) {}

  /** openExport, read in the process. */
  async open(path: string, options: OpenExportOptions): Promise<ExportReader> {
    this.folder = (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
    const file = this.start(path, options);
    this.send({ type: "open", file, export: { path, platform: options.platform, name: options.name } });
    const opened = await this.reply();
    if (opened.type !== "opened") throw opened.type === "failed" ? revivedError(opened.error) : unexpected(opened);
    let bytesRead = 0;
    let skipped: SkippedCount[] = [];
    let repaired: RepairedRecord[] = [];
    /** Each item of the records asked for, in order; the reading's error after the last. */
    const items = async function* (reader: ExportReadingProcess, type: "conversations" | "memories"): AsyncGenerator<ExportItem> {
      for (;;) {
        reader.send({ type, file });
        const reply = await reader.reply();
        if (reply.type !== "items") throw reply.type === "failed" ? revivedError(reply.error) : unexpected(reply);
        ({ skipped, repaired } = reply);
        yield* reply.items;
        if (reply.error) throw revivedError(reply.error);
        if (reply.done) return;
      }
    };
    const reader = this;
    return {
      format: opened.format,
      formats: opened.formats,
      unreadable: opened.unreadable.map((problem) => revivedError(problem) as AppError),
      totalBytes: opened.totalBytes,
      memoryFiles: opened.memoryFiles,
      bytesRead: () => bytesRead,
      skipped: () => skipped,
      repaired: () => repaired,
      async *conversations() {
        for await (const item of items(reader, "conversations")) {
          unreadableOf(item, options.onUnreadable);
          if ("conversation" in item) {
            bytesRead = item.bytesRead;
            yield item.conversation;
          }
        }
      },
      async *memories(onUnreadable) {
        for await (const item of items(reader, "memories")) {
          unreadableOf(item, onUnreadable);
          if ("memory" in item) yield item.memory;
        }
      },
    };
  }

  /** The export's reading is over (read through or not): the process forgets it, and ends if no other comes soon. */
  done(): void {
    if (!this.child) return;
    this.send({ type: "close", file: this.file });
    this.hold(false);
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(), IDLE_MS).unref();
  }

  /** Lets the process go: it ends when its channel closes. */
  stop(): void {
    clearTimeout(this.idle);
    if (this.child?.connected) this.child.disconnect();
  }

  /** The process, started if it is not running, ready for a new export; its number. */
  private start(path: string, options: OpenExportOptions): number {
    clearTimeout(this.idle);
    this.replies.length = 0;
    this.file++;
    this.name = options.name ?? basename(path);
    if (this.child?.connected) {
      this.hold(true);
      return this.file;
    }
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${this.heapMb}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, READING_PROCESS, "--serve"],
      { env: this.env, stdio: ["ignore", "ignore", "pipe", "ipc"], serialization: "advanced" },
    );
    this.child = child;
    this.ended = undefined;
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_CHARS)));
    child.on("message", (reply: ExportReply) => {
      if (reply.file !== this.file || this.child !== child) return;
      if (this.waiting) this.settle().resolve(reply);
      else this.replies.push(reply);
    });
    child.on("error", (error) => this.end(child, error));
    child.on("close", (code, signal) => {
      const outOfMemory = /heap out of memory|Allocation failed/.test(stderr);
      this.end(child, outOfMemory ? this.outOfMemory() : this.stopped(code, signal));
    });
    return this.file;
  }

  private end(child: ChildProcess, error: Error): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.ended ??= error;
    if (this.waiting) this.settle().reject(this.ended);
  }

  private outOfMemory(): AppError {
    const raised = `MNEMO_IMPORT_HEAP_MB=${this.heapMb * 2}`;
    const [what, suggestion] =
      this.reads === "uploads"
        ? [
            "an upload",
            `Start the server with a higher limit (e.g. ${raised} mnemo serve), or import the file on the server's machine with \`mnemo import\`.`,
          ]
        : ["an import", `Import it again with a higher limit (e.g. ${raised} mnemo import …)${this.folder ? FOLDER_APART : ""}.`];
    return new AppError("payload_too_large", `Reading ${this.name} needed more memory than the ${this.heapMb} MB ${what} may take`, {
      suggestion: `${suggestion} What was stored before stays stored.`,
      details: { readingOutOfMemory: true },
    });
  }

  private stopped(code: number | null, signal: NodeJS.Signals | null): AppError {
    return new AppError("internal", `The process reading ${this.name} stopped unexpectedly (${signal ?? `exit code ${code}`})`);
  }

  /** While it reads, the process keeps this one running; idle, it does not. */
  private hold(on: boolean): void {
    const child = this.child;
    for (const handle of [child, child?.stderr as Socket | null | undefined, child?.channel])
      if (on) handle?.ref();
      else handle?.unref();
  }

  private send(request: ExportRequest): void {
    if (this.child?.connected) this.child.send(request);
  }

  private reply(): Promise<ExportReply> {
    const reply = this.replies.shift();
    if (reply) return Promise.resolve(reply);
    if (!this.child) return Promise.reject(this.ended ?? new AppError("internal", "The process reading uploads has stopped"));
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  private settle() {
    const waiting = this.waiting!;
    this.waiting = undefined;
    return waiting;
  }
}

function unreadableOf(item: ExportItem, onUnreadable: UnreadableRecord | undefined): void {
  if ("unreadable" in item) onUnreadable?.(revivedError(item.unreadable) as AppError);
}

function unexpected(reply: ExportReply): Error {
  return new AppError("internal", `The process reading uploads answered ${reply.type} out of turn`);
}
