import fs from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseInput } from "../../schemas/parse.js";
import { MAX_UPLOAD_BYTES, UploadImportQuery, type ImportJob } from "../../schemas/imports.js";
import { AppError, isAppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { diskFullOr } from "../../store/write-lock.js";
import type { CoreContext } from "../context.js";
import type { MnemoService } from "../service-types.js";
import { importHeapMb } from "../../config/import-heap.js";
import { ExportReadingProcess } from "./export-reader.js";
import { importExports, waitForProcessing, type ImportSummary } from "./import-file.js";
import { conversationsOutcome, conversationsRead, memoriesOutcome } from "./import-outcome.js";
import { shownId } from "../../text/cut-text.js";

/** Finished jobs are kept this long for their summary, then forgotten. */
const KEEP_FINISHED_MS = 24 * 60 * 60 * 1000;
/** At most this many jobs kept per user (the oldest finished ones go first). */
const KEEP_PER_USER = 50;
/** An upload file older than this in the uploads folder was left by a server that stopped mid-import. */
const STALE_UPLOAD_MS = 24 * 60 * 60 * 1000;

interface Job {
  userId: string;
  view: ImportJob;
  file: string;
}

/**
 * Imports of export files uploaded to the server (POST /api/chat-history/imports): the body is
 * streamed to `<data dir>/uploads`, never held in memory, then read by the same importer as
 * `mnemo import` (importExports), one import at a time, the file read in a process of its own whose
 * heap limit an export past it costs that import, not the server (export-reader.ts), and the queue waited for. Progress lives
 * in memory: a restarted server forgets its jobs (what they stored stays stored).
 */
export class ImportJobs {
  private readonly jobs = new Map<string, Job>();
  /** Imports run one after another: two large ones at once would only compete for the embedder. */
  private queue: Promise<void> = Promise.resolve();
  /** Imports queued or running: an upload waits only when one is (it was "waiting" behind none). */
  private unfinished = 0;
  /** Where each upload is read: its heap limit is the import's, not the server's (export-reader.ts). */
  private reading: ExportReadingProcess | undefined;

  constructor(private readonly ctx: CoreContext) {
    removeStaleUploads(this.folder());
  }

  /** Stores the upload, queues its import, and answers once the file is stored (the import goes on). */
  async upload(userId: string, service: MnemoService, body: AsyncIterable<Uint8Array>, input: unknown): Promise<ImportJob> {
    const options = parseInput(UploadImportQuery, input);
    const id = newId("job");
    const job: Job = { userId, file: path.join(this.folder(), `${id}.upload`), view: newView(id, options, this.ctx.now()) };
    this.remember(job);
    try {
      await receive(body, job, options.size);
      if (options.lastModified !== undefined) fs.utimesSync(job.file, new Date(options.lastModified), new Date(options.lastModified));
    } catch (error) {
      fs.rmSync(job.file, { force: true });
      this.jobs.delete(id);
      throw diskFullOr(error, this.folder());
    }
    job.view.state = this.unfinished > 0 ? "waiting" : "reading";
    this.unfinished++;
    this.queue = this.queue.then(() => this.run(job, service, options)).finally(() => this.unfinished--);
    return snapshot(job.view);
  }

  get(userId: string, jobId: string): ImportJob {
    const job = this.jobs.get(jobId);
    if (!job || job.userId !== userId) {
      throw new AppError("not_found", `import ${shownId(jobId)} not found`, {
        details: { field: "jobId" },
        suggestion: "The server keeps an import's progress for a day, and forgets it when it restarts (what it stored stays stored).",
      });
    }
    return snapshot(job.view);
  }

  /** The user's imports, newest first. */
  list(userId: string): ImportJob[] {
    return [...this.jobs.values()]
      .filter((job) => job.userId === userId)
      .map((job) => snapshot(job.view))
      .reverse();
  }

  private async run(job: Job, service: MnemoService, options: ReturnType<typeof UploadImportQuery.parse>): Promise<void> {
    const { view } = job;
    try {
      view.state = "reading";
      const reading = (this.reading ??= new ExportReadingProcess(importHeapMb(this.ctx.config.env), this.ctx.config.env));
      const summary = await importExports(service, [job.file], {
        open: (file, openOptions) => reading.open(file, openOptions),
        platform: options.platform,
        name: view.filename,
        dryRun: options.dryRun,
        onProgress: (p) => {
          view.reading = { bytesRead: p.bytesRead, totalBytes: p.totalBytes, conversations: p.conversations, format: p.format };
        },
      }).finally(() => reading.done());
      fs.rmSync(job.file, { force: true });
      view.reading.bytesRead = view.reading.totalBytes || view.bytesReceived;
      view.reading.format = summary.files[0]?.format ?? view.reading.format;
      view.reading.conversations = summary.files[0]?.conversations ?? view.reading.conversations;
      // What was stored is known now; rejections and failures are added once the queue has run.
      view.summary = named(summary, job.file, view.filename);
      if (!options.dryRun) {
        view.state = "indexing";
        await waitForProcessing(service, summary, { onProgress: (progress) => (view.indexing = progress), pollMs: 250 });
        view.summary = named(summary, job.file, view.filename);
      }
      view.state = "done";
    } catch (error) {
      view.state = "failed";
      view.error = isAppError(error)
        ? { message: error.message, ...(error.suggestion ? { suggestion: error.suggestion } : {}) }
        : { message: "The import failed: see the server's log" };
      // A job still waiting for the index when the server stops ends with the store's close: no fault.
      if (!isAppError(error) && !this.ctx.store.isClosed) console.error(error);
    } finally {
      fs.rmSync(job.file, { force: true });
      view.finishedAt = this.ctx.now().toISOString();
    }
  }

  private folder(): string {
    return path.join(this.ctx.config.paths.dataDir, "uploads");
  }

  private remember(job: Job): void {
    const now = this.ctx.now().getTime();
    for (const [id, old] of this.jobs) {
      if (old.view.finishedAt && now - Date.parse(old.view.finishedAt) > KEEP_FINISHED_MS) this.jobs.delete(id);
    }
    const mine = [...this.jobs.values()].filter((old) => old.userId === job.userId && old.view.finishedAt);
    for (const old of mine.slice(0, Math.max(0, mine.length - KEEP_PER_USER + 1))) this.jobs.delete(old.view.id);
    this.jobs.set(job.view.id, job);
  }
}

const registries = new WeakMap<CoreContext, ImportJobs>();

/** The import jobs of this process's store (one registry per App). */
export function importJobs(ctx: CoreContext): ImportJobs {
  let jobs = registries.get(ctx);
  if (!jobs) registries.set(ctx, (jobs = new ImportJobs(ctx)));
  return jobs;
}

function newView(id: string, options: ReturnType<typeof UploadImportQuery.parse>, now: Date): ImportJob {
  return {
    id,
    filename: path.basename(options.filename),
    state: "receiving",
    dryRun: options.dryRun,
    bytesReceived: 0,
    reading: { bytesRead: 0, totalBytes: 0, conversations: 0, format: null },
    indexing: { ready: 0, pending: 0 },
    createdAt: now.toISOString(),
  };
}

/** Streams the body to the job's file, counting bytes, and refuses one over the limit or other than its declared size. */
async function receive(body: AsyncIterable<Uint8Array>, job: Job, size: number | undefined): Promise<void> {
  fs.mkdirSync(path.dirname(job.file), { recursive: true, mode: 0o700 });
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      job.view.bytesReceived += chunk.length;
      if (size !== undefined && job.view.bytesReceived > size) {
        return done(AppError.invalid("body", `is longer than the ${size} bytes its size parameter gives`));
      }
      if (job.view.bytesReceived > MAX_UPLOAD_BYTES) {
        return done(
          new AppError("payload_too_large", `The upload is over the ${MAX_UPLOAD_BYTES / 1024 ** 3} GB limit of an export file`, {
            suggestion: "Import it on the server's machine with `mnemo import <file>`, which has no limit.",
          }),
        );
      }
      done(null, chunk);
    },
  });
  // Opened here, not by the stream: a stream still opening when the body fails at once (over its size)
  // would create the file after the caller removed it, and leave it in the uploads folder.
  const out = fs.createWriteStream(job.file, { fd: fs.openSync(job.file, "w", 0o600) });
  await pipeline(body, count, out);
  if (job.view.bytesReceived === 0) throw AppError.invalid("body", "is empty: send the export file as the request body");
  if (size !== undefined && job.view.bytesReceived < size) {
    throw AppError.invalid(
      "body",
      `ended after ${job.view.bytesReceived} of the ${size} bytes its size parameter gives: the upload was cut short`,
      "Send the file again.",
    );
  }
}

/**
 * The summary as the user knows the file: by the name they uploaded, not the server's temporary
 * path, which the reader's messages also start with ("…/uploads/job_….upload: invalid JSON…"), or
 * name by its base name alone ("job_….upload: not a readable zip archive", "x.json (in job_….upload)").
 */
function named(summary: ImportSummary, file: string, filename: string): NonNullable<ImportJob["summary"]> {
  const rename = (value: string) => (value === file ? filename : value);
  const reword = (text: string) => text.split(file).join(filename).split(path.basename(file)).join(filename);
  return {
    ...summary,
    files: summary.files.map((entry) => ({
      ...entry,
      path: rename(entry.path),
      ...(entry.error !== undefined ? { error: reword(entry.error) } : {}),
    })),
    problems: summary.problems.map((problem) => ({
      ...problem,
      file: rename(problem.file),
      reason: reword(problem.reason),
      ...(problem.conversation !== undefined ? { conversation: reword(problem.conversation) } : {}),
    })),
    skipped: summary.skipped.map((entry) => ({ ...entry, file: reword(entry.file) })),
    repaired: summary.repaired.map((entry) => ({ ...entry, file: reword(entry.file) })),
    inParts: summary.inParts.map((entry) => ({ ...entry, file: rename(entry.file), conversation: reword(entry.conversation) })),
    outcome: outcomeOf(summary),
  };
}

/** The sentences the web app shows (its script cannot import the helper that words them). */
function outcomeOf(summary: ImportSummary): NonNullable<ImportJob["summary"]>["outcome"] {
  const read = conversationsRead(summary.files);
  if (read === 0 && summary.files.some((file) => file.error)) return { conversations: "Nothing imported: the file could not be read" };
  const conversations = conversationsOutcome(summary, summary.dryRun);
  const memories = memoriesOutcome(summary.memories, { dryRun: summary.dryRun, quotes: ["“", "”"] });
  if (memories === undefined) return { conversations };
  return read > 0 ? { conversations, memories } : { memories };
}

function snapshot(view: ImportJob): ImportJob {
  return structuredClone(view);
}

function removeStaleUploads(folder: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of entries) {
    const file = path.join(folder, name);
    try {
      if (Date.now() - fs.statSync(file).mtimeMs > STALE_UPLOAD_MS) fs.rmSync(file, { force: true });
    } catch {
      // gone already
    }
  }
}
