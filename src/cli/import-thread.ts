import { importHeapMb } from "../config/import-heap.js";
import { AppError, isAppError } from "../shared/errors.js";
import type { App, ImportProgress, ImportSummary, MnemoService, RestoreSummary } from "../core/index.js";
import { processIo, type CliIo } from "./io.js";
import { counted, createOutput } from "./output.js";
import { withApp, withService, type GlobalOptions, type Session } from "./session.js";
import { runInThread, serveThread, type ThreadListener } from "./thread.js";

export interface ImportCommandOptions {
  platform?: string | undefined;
  dryRun?: boolean | undefined;
  wait: boolean;
}

interface Job {
  globals: GlobalOptions;
  paths: string[];
  options: ImportCommandOptions;
}

/**
 * Its young generation, in MB (V8 grows the new space to 32 MB by default). Most of what an import
 * allocates is garbage within one batch, so a smaller one costs little: storing a 50 MB export took
 * ~5% longer, and the first minute of the 600 MB import peaked ~50 MB lower.
 */
const IMPORT_YOUNG_MB = 8;

/**
 * Runs `mnemo import` in a worker thread: the reading, storing and processing, with the store and
 * the model pool opened there. A thread is the one documented way to give that work its own heap
 * limit without starting a second process. Progress comes back as status lines.
 */
export function importInThread(job: Job, on: ThreadListener, io: CliIo): Promise<ImportSummary> {
  const heapMb = importHeapMb(io.env);
  return runInThread(
    {
      module: new URL(import.meta.url),
      job,
      oldGenerationMb: heapMb,
      youngGenerationMb: IMPORT_YOUNG_MB,
      outOfMemory: () =>
        new AppError("internal", `The import ran out of memory (its limit is ${heapMb} MB); what was stored before stays stored`, {
          suggestion: `Run it again with a higher limit, e.g. MNEMO_IMPORT_HEAP_MB=${heapMb * 2} mnemo import …, or import the export's files one at a time.`,
        }),
      what: "the import",
    },
    on,
    io,
  );
}

/** The import itself, as the thread runs it: the embedded store (processing while it waits) or a server. */
async function runImport(job: Job, on: ThreadListener): Promise<ImportSummary> {
  const { globals, paths, options } = job;
  const { importExports, isMnemoExport } = await import("../core/index.js");
  const status = on.status;
  // Notices (the embedder a new store chose) go through the same channel as the rest, in order.
  // This thread's environment and stdio are the run's (runInThread).
  const io = processIo();
  const out = { ...createOutput({ json: Boolean(globals.json), io }), notice: on.notice };
  const session = { out, options: globals, io };
  const backups: string[] = [];
  for (const path of paths) if (await isMnemoExport(path)) backups.push(path);
  if (backups.length > 0) return runRestore(job, session, backups, status);
  // A dry run makes no store: where there is none, everything it reads is new.
  return storeImport(job, session, status, on.notice).catch(async (error: unknown) => {
    withoutStore(error, options, on.notice);
    const { loadConfig } = await import("../config/load-config.js");
    const { embedder } = loadConfig({ store: globals.store, user: globals.user, embedder: globals.embedder }, io.env);
    const onProgress = (p: ImportProgress) => status(importStatus(p));
    return importExports(undefined, paths, { ...importOptions(options, io.env), newStoreEmbedder: embedder, onProgress });
  });
}

async function storeImport(
  { paths, options }: Job,
  session: Session,
  status: (text: string) => void,
  notice: (text: string) => void,
): Promise<ImportSummary> {
  const { importExports, uploadExports, waitForProcessing } = await import("../core/index.js");
  return withService(
    session,
    async (service, via) => {
      // Through a server, each file goes whole to its upload endpoint, imported (and indexed) there.
      // One found running on the store that stops meanwhile leaves the import to this process: run
      // again, it adds only what the server had not stored.
      if (via === "server") {
        const uploaded = uploadExports(service, paths, {
          platform: options.platform,
          dryRun: Boolean(options.dryRun),
          wait: options.wait,
          onUpload: (p) => status(`Uploading ${p.file}: ${percent(p.sent, p.total)}`),
          onReading: (p) =>
            status(
              `The server is importing ${p.file}: ${counted(p.conversations, "conversation")} · ${percent(p.bytesRead, p.totalBytes)}`,
            ),
          onIndexing: ({ ready, pending }) => status(`Indexing: ${ready} ready, ${pending} to go`),
        });
        const summary = await uploaded.catch((error: unknown) => {
          if (isAppError(error) && error.details["fellBack"] === true) return undefined;
          throw error;
        });
        if (summary) return summary;
      }
      const wait = options.wait && !options.dryRun;
      const leftOver = wait ? await leftToIndex(service, notice) : 0;
      const result = await importExports(service, paths, {
        ...importOptions(options, session.io.env),
        onProgress: (p) => status(importStatus(p)),
      });
      if (leftOver > 0) result.indexedFromBefore = leftOver;
      if (wait) {
        await waitForProcessing(service, result, {
          onProgress: ({ ready, pending }) => status(`Indexing: ${ready} ready, ${pending} to go`),
        });
      }
      return result;
    },
    { index: options.wait && !options.dryRun, existing: Boolean(options.dryRun) },
  );
}

/**
 * The conversations an earlier import stored and left to index (stopped with Ctrl-C, or --no-wait),
 * which this one indexes while it waits: said first, as that can take minutes a terminal or not.
 */
async function leftToIndex(service: MnemoService, notice: (text: string) => void): Promise<number> {
  const { counts } = await service.conversations.status();
  const left = counts.queued + counts.processing;
  if (left > 0) notice(`Also indexing ${counted(left, "conversation")} an earlier import stored and left to index.`);
  return left;
}

/**
 * Each file is read in a process of its own under the heap limit: one that needs more than the limit
 * fails alone, said so, where this thread's own limit would have aborted the command (nodejs/node#47224).
 */
function importOptions(options: ImportCommandOptions, env: NodeJS.ProcessEnv) {
  return { platform: options.platform, dryRun: Boolean(options.dryRun), readApart: { heapMb: importHeapMb(env), env } };
}

function importStatus(p: ImportProgress): string {
  return `Importing ${p.file}: ${counted(p.conversations, "conversation")} · ${percent(p.bytesRead, p.totalBytes)} · ${p.rate.toFixed(1)}/s${p.etaSeconds === undefined ? "" : ` · ETA ${Math.ceil(p.etaSeconds)}s`}`;
}

/**
 * mnemo's own exports are restored into this machine's store (ids, versions and flags kept), then
 * any chat exports among the paths are imported as usual. A restore needs the store itself: through
 * a server it would lose what makes it exact.
 */
async function runRestore(
  { globals, paths, options }: Job,
  session: Session,
  backups: string[],
  status: (text: string) => void,
): Promise<ImportSummary> {
  const { importExports, restoreExport, waitForProcessing, waitForQueue } = await import("../core/index.js");
  if (globals.remote ?? session.io.env["MNEMO_URL"]) {
    throw AppError.invalid(
      "--remote",
      "restoring a mnemo export works on the store of this machine, not through a server",
      "Run `mnemo import <file>` on the server's machine, without --remote (a running `mnemo serve` there carries on meanwhile).",
    );
  }
  const intoUser = globals.user ?? (session.io.env["MNEMO_USER"] || undefined);
  const rest = paths.filter((path) => !backups.includes(path));
  const restoreAll = async (app: App | undefined) => {
    const restored: RestoreSummary[] = [];
    for (const path of backups) {
      restored.push(
        await restoreExport(app, path, {
          intoUser,
          dryRun: Boolean(options.dryRun),
          onProgress: (p) => status(`Restoring ${path}: ${counted(p.records, "record")} · ${percent(p.bytesRead, p.totalBytes)}`),
        }),
      );
    }
    return restored;
  };
  const onProgress = (p: ImportProgress) => status(importStatus(p));
  // A dry run makes no store: where there is none, the backups are read through and the rest is all new.
  const checkWithoutStore = async (error: unknown) => {
    withoutStore(error, options, (text) => session.out.notice(text));
    const restored = await restoreAll(undefined);
    const result = await importExports(undefined, rest, { ...importOptions(options, session.io.env), onProgress });
    result.restored = restored;
    return result;
  };
  return withApp(
    session,
    async (app) => {
      const wait = options.wait && !options.dryRun;
      if (wait) await app.indexer.start();
      const restored = await restoreAll(app);
      const service = await app.service(intoUser);
      const result = await importExports(service, rest, { ...importOptions(options, session.io.env), onProgress });
      result.restored = restored;
      if (wait) {
        for (const name of new Set(restored.flatMap((summary) => summary.users.map((user) => user.name)))) {
          await waitForQueue(await app.service(name), {
            onProgress: ({ ready, pending }) => status(`Indexing ${name}'s conversations: ${ready} ready, ${pending} to go`),
          });
        }
        await waitForProcessing(service, result);
      }
      return result;
    },
    { existing: Boolean(options.dryRun) },
  ).catch(checkWithoutStore);
}

/** Rethrows `error` unless it is a dry run's with no store to compare with (core's noStoreError), which it says. */
function withoutStore(error: unknown, options: ImportCommandOptions, notice: (text: string) => void): void {
  const where = options.dryRun && isAppError(error) ? error.details["noStore"] : undefined;
  if (typeof where !== "string") throw error;
  notice(`No store at ${where} yet (a dry run makes none): everything it reads would be new.`);
}

function percent(done: number, total: number): string {
  return total > 0 ? `${Math.round((done / total) * 100)}%` : "…";
}

serveThread(runImport);
