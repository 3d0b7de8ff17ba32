import fs from "node:fs";
import { basename } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { checkPlatform, MAX_DATABASE_BYTES, startsAsSqlite, withWal } from "../../importers/index.js";
import type { ImportJob } from "../../schemas/imports.js";
import { AppError } from "../../shared/errors.js";
import type { MnemoService } from "../service-types.js";
import { addMemoryCounts, emptySummary, importExports, type ImportSummary, type ProcessingProgress } from "./import-file.js";

export interface UploadExportsOptions {
  platform?: string | undefined;
  dryRun?: boolean;
  /** Wait until the server has indexed what it stored (else return once it is stored). */
  wait: boolean;
  /** Bytes of the file sent so far. */
  onUpload?: (progress: { file: string; sent: number; total: number }) => void;
  /** The server reading the export. */
  onReading?: (progress: { file: string; conversations: number; bytesRead: number; totalBytes: number }) => void;
  onIndexing?: (progress: ProcessingProgress) => void;
  pollMs?: number;
}

/**
 * `mnemo import --remote`: each export file is streamed whole to the server's upload endpoint, which
 * runs the same importer there (one request per file instead of one per conversation), and its
 * summary comes back. A folder is not one file: its conversations go one request each (importExports).
 */
export async function uploadExports(service: MnemoService, paths: string[], options: UploadExportsOptions): Promise<ImportSummary> {
  checkPlatform(options.platform);
  const summaries: ImportSummary[] = [];
  // A folder, a path that is not there, or an empty file (which the upload endpoint refuses as a
  // request, ending the whole import): importExports reports each as the CLI always has.
  for (const path of paths) {
    summaries.push(
      isUploadable(path)
        ? await uploadOne(service, path, options)
        : await importExports(service, [path], { platform: options.platform, dryRun: Boolean(options.dryRun) }),
    );
  }
  return merge(summaries, Boolean(options.dryRun));
}

async function uploadOne(service: MnemoService, file: string, options: UploadExportsOptions): Promise<ImportSummary> {
  const stat = fs.statSync(file);
  const withItsWal = databaseWithWal(file, stat.size);
  const size = withItsWal?.length ?? stat.size;
  let sent = 0;
  async function* read(): AsyncIterable<Uint8Array> {
    const chunks = withItsWal ? [withItsWal] : fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
    for await (const chunk of chunks) {
      sent += (chunk as Buffer).length;
      options.onUpload?.({ file, sent, total: size });
      yield chunk as Buffer;
    }
  }
  let job = await service.imports.upload(read(), {
    filename: file,
    size,
    lastModified: Math.floor(stat.mtimeMs), // a conversation without a date takes the file's, as it would here
    ...(options.platform ? { platform: options.platform } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  for (;;) {
    if (job.state === "reading") options.onReading?.({ file, ...job.reading });
    if (job.state === "indexing") options.onIndexing?.(job.indexing);
    if (job.state === "failed") {
      const { message = "The import failed on the server", suggestion } = job.error ?? {};
      throw new AppError("internal", message, suggestion ? { suggestion } : {});
    }
    if (finished(job, options.wait)) return withPath(job.summary!, file);
    await sleep(options.pollMs ?? 250);
    job = await service.imports.get(job.id);
  }
}

/** Done, or (when not waiting for the index) stored and being indexed: its summary is known either way. */
function finished(job: ImportJob, wait: boolean): boolean {
  return job.summary !== undefined && (job.state === "done" || (!wait && job.state === "indexing"));
}

/**
 * The summary with the path the user gave (the server knows only the file's name), as an import
 * here words it: the file itself by that path, an entry of a zip as "conversations.json (in export.zip)".
 */
function withPath(summary: ImportJob["summary"] & object, file: string): ImportSummary {
  const label = (name: string) => (name === basename(file) ? file : name);
  return {
    ...summary,
    files: summary.files.map((entry) => ({
      ...entry,
      path: file,
      format: entry.format as ImportSummary["files"][number]["format"],
      formats: (entry.formats ?? (entry.format === null ? [] : [entry.format])) as ImportSummary["files"][number]["formats"],
    })),
    problems: summary.problems.map((problem) => ({ ...problem, file: problem.file ? file : problem.file })),
    skipped: summary.skipped.map((entry) => ({ ...entry, file: label(entry.file) })),
    repaired: summary.repaired.map((entry) => ({ ...entry, file: label(entry.file) })),
    inParts: summary.inParts.map((entry) => ({ ...entry, file })),
    restored: [],
  };
}

function merge(summaries: ImportSummary[], dryRun: boolean): ImportSummary {
  const total = emptySummary(
    dryRun,
    summaries.every((summary) => summary.comparedWithStore),
  );
  for (const summary of summaries) {
    total.files.push(...summary.files);
    for (const key of ["new", "updated", "unchanged", "rejected", "failed", "unreadableFiles"] as const) total[key] += summary[key];
    total.problems.push(...summary.problems);
    total.skipped.push(...summary.skipped);
    total.repaired.push(...summary.repaired);
    total.inParts.push(...summary.inParts);
    total.languageHint ??= summary.languageHint;
    total.conversationIds.push(...summary.conversationIds);
    addMemoryCounts(total.memories, summary.memories);
    for (const id of summary.importIds) if (!total.importIds.includes(id)) total.importIds.push(id);
  }
  return total;
}

/**
 * A database with a -wal beside it (OpenCode's, Zed's, while the app runs): its committed pages applied,
 * as the importer applies them on disk, since the server is sent one file and would miss the latest
 * chats (a watched opencode.db's, until OpenCode checkpoints). Undefined for any other file.
 */
function databaseWithWal(file: string, size: number): Buffer | undefined {
  const wal = `${file}-wal`;
  const walSize = fs.statSync(wal, { throwIfNoEntry: false })?.size ?? 0;
  // One over the size mnemo reads goes as it is, for the server to refuse as it refuses any.
  if (walSize === 0 || size + walSize > MAX_DATABASE_BYTES) return undefined;
  const prefix = Buffer.alloc(16);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, prefix, 0, prefix.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return startsAsSqlite(prefix) ? withWal(fs.readFileSync(file), fs.readFileSync(wal)) : undefined;
}

function isUploadable(path: string): boolean {
  try {
    const stat = fs.statSync(path);
    return stat.isFile() && stat.size > 0;
  } catch {
    return false;
  }
}
