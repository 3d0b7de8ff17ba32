import fs from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { AppError } from "../shared/errors.js";
import { processIo, type CliIo, type OutStream } from "./io.js";
import { createOutput } from "./output.js";
import type { MnemoService } from "../core/index.js";
import { withApp, withService, type GlobalOptions } from "./session.js";
import { runInThread, serveThread, type ThreadListener } from "./thread.js";

export interface ExportJob {
  globals: GlobalOptions;
  /** A file name, or `-` for stdout. */
  target: string;
  allUsers: boolean;
  vectors: boolean;
}

/**
 * The export thread's old generation, in MB. An export keeps little alive (a step of 100
 * conversations with their chunks, a few MB) but makes a lot of garbage (rows, vectors, base64,
 * JSON), which V8 lets pile up under its default limit: on the 50 MB-export store the export's
 * process reached 300 MB with this work on the main thread, 200 MB under a 128 MB heap limit.
 * 256 MB leaves room for a line of a 10 MB image (its base64 and JSON, ~60 MB at once).
 */
const EXPORT_HEAP_MB = 256;
/** Its young generation (V8 grows it to 32 MB by default): at 8 MB the export took half again as long, at 32 MB its peak was 20 MB higher. */
const EXPORT_YOUNG_MB = 16;

/** Runs `mnemo export` in a worker thread with a heap limit of its own; the records written, by type. */
export function exportInThread(job: ExportJob, on: ThreadListener, io: CliIo): Promise<Record<string, number>> {
  return runInThread(
    {
      module: new URL(import.meta.url),
      job,
      oldGenerationMb: EXPORT_HEAP_MB,
      youngGenerationMb: EXPORT_YOUNG_MB,
      outOfMemory: () =>
        new AppError("internal", `The export ran out of memory (its limit is ${EXPORT_HEAP_MB} MB); the file was not written`),
      what: "the export",
    },
    on,
    io,
  );
}

/** The export as the thread runs it: the lines from the store (or a server) into the file. */
async function runExport(job: ExportJob, on: ThreadListener): Promise<Record<string, number>> {
  // This thread's environment and stdio are the run's (runInThread).
  const io = processIo();
  const out = { ...createOutput({ json: Boolean(job.globals.json), io }), notice: on.notice };
  const session = { out, options: job.globals, io };
  const write = (lines: AsyncIterable<string>) => writeLines(lines, job.target, on.status, io.stdout);
  const query = { vectors: job.vectors };
  if (job.allUsers) {
    const { exportAllUsers } = await import("../core/index.js");
    return withApp(
      session,
      async (app) => {
        const records = await write(await exportAllUsers(app, query));
        const services = await Promise.all((await app.users.list()).map((user) => app.service(user.name)));
        noteTrashLeftOut(session.out, await trashHeld(services));
        return records;
      },
      { existing: true },
    );
  }
  return withService(
    session,
    async (service) => {
      const records = await write(await service.export(query));
      noteTrashLeftOut(session.out, await trashHeld([service]));
      return records;
    },
    { existing: true },
  );
}

/** How many entries the trash of these users holds (0 when it cannot be read: the file is written already). */
async function trashHeld(services: Pick<MnemoService, "trash">[]): Promise<number> {
  const lists = await Promise.all(services.map((service) => service.trash.list({ pageSize: 1 }))).catch(() => []);
  return lists.reduce((sum, list) => sum + list.total, 0);
}

/** The trash is not exported (its entries are gone from the store until restored): a user told so can restore first. */
function noteTrashLeftOut(out: { notice(text: string): void }, held: number): void {
  if (held === 0) return;
  out.notice(
    `The trash's ${held === 1 ? "entry is" : `${held} entries are`} not in the file: \`mnemo trash\` shows ${held === 1 ? "it" : "them"}, \`mnemo trash restore <id>\` puts back what the backup should hold.`,
  );
}

/**
 * Streams the lines into the file (through gzip for a .gz name); the file appears under its name
 * only once whole, readable by its owner only. Returns the records written, by type.
 */
async function writeLines(
  lines: AsyncIterable<string>,
  target: string,
  status: (text: string) => void,
  stdout: OutStream,
): Promise<Record<string, number>> {
  const tally = new LineTally(status);
  const source = Readable.from(tally.count(lines));
  if (target === "-") {
    await pipeline(source, stdout, { end: false });
    return tally.records;
  }
  const partial = `${target}.partial`;
  try {
    const file = fs.createWriteStream(partial, { mode: 0o600 });
    if (target.endsWith(".gz")) await pipeline(source, createGzip(), file);
    else await pipeline(source, file);
    fs.renameSync(partial, target);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  return tally.records;
}

/** Counts the lines as they pass: for the progress bar (the header says how many to expect) and the summary (the end record). */
class LineTally {
  records: Record<string, number> = {};
  private expected = 0;
  private done = 0;
  private shownAt = 0;

  constructor(private readonly status: (text: string) => void) {}

  async *count(lines: AsyncIterable<string>): AsyncGenerator<string> {
    let first = true;
    for await (const line of lines) {
      if (first) this.expected = sumOf((JSON.parse(line) as { expected?: Record<string, number> }).expected ?? {});
      else if (line.startsWith('{"type":"end"')) this.records = (JSON.parse(line) as { records: Record<string, number> }).records;
      else this.done++;
      first = false;
      this.show();
      yield line;
    }
  }

  private show(): void {
    const now = Date.now();
    if (now - this.shownAt < 100) return;
    this.shownAt = now;
    const share = this.expected > 0 ? Math.min(1, this.done / this.expected) : 0;
    this.status(
      `Exporting ${bar(share)} ${Math.round(share * 100)}% · ${this.done.toLocaleString("en")} of ${this.expected.toLocaleString("en")} records`,
    );
  }
}

function bar(share: number, width = 24): string {
  const filled = Math.round(share * width);
  return `▕${"█".repeat(filled)}${"░".repeat(width - filled)}▏`;
}

function sumOf(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

serveThread(runExport);
