/**
 * The core's one door: the faces (cli, http, client, mcp, web) import the core from here only.
 *
 * Importing it is cheap. What reaches LanceDB, a model, the importers or the schemas (the App,
 * reindex, the users table, import jobs) is loaded when one of the functions below is first called,
 * so `mnemo --help`, a command sent to a server and an MCP client's first request do not pay for it.
 */
import type { Config } from "../config/load-config.js";
import { AppError } from "../shared/errors.js";
import type { MnemoService } from "./service-types.js";
import type { App, AppOptions } from "./app.js";
import type { ImportOptions, ImportSummary, QueueWait } from "./jobs/import-file.js";
import type { ReindexProgress, ReindexRequest, ReindexResult } from "./jobs/reindex.js";
import type { UploadExportsOptions } from "./jobs/upload-exports.js";
import type { RestoreOptions, RestoreSummary } from "./jobs/restore.js";
import type { Diagnosis, DoctorProgress } from "./operations/doctor.js";
import type { RepairOptions, RepairResult } from "./operations/doctor-repair.js";
import type { ExportQuery } from "../schemas/export.js";
import type { QueueStatus } from "../schemas/chat-history.js";
import type { ImageCheck } from "./memories/image-types.js";
import type { ImportedSession, WatchedImport, WatchOptions } from "./jobs/watch-folder.js";
import type { ReleaseLock } from "../store/process-lock.js";

export type { App, AppOptions } from "./app.js";
export type { Embedder } from "../providers/embedder.js";
export type { CoreContext } from "./context.js";
export type { MnemoService } from "./service.js";
export type { UserInfo } from "./users.js";
export type { ReindexProgress, ReindexRequest, ReindexResult } from "./jobs/reindex.js";
export type { RestoreOptions, RestoreProgress, RestoreSummary } from "./jobs/restore.js";
export type { Diagnosis, Finding } from "./operations/doctor.js";
export type { RepairResult } from "./operations/doctor-repair.js";
export { checkPlatform } from "../importers/platform.js";
export {
  appFolderLines,
  appsLookedFor,
  appsNotWatched,
  appsOn,
  databasesWatched,
  foundApps,
  withAppFolders,
  type AppsFound,
  type FoundApp,
} from "../importers/app-folders.js";
export { chatAppNames, FORMATS, fileTypes, formatLines, formatNames, type FormatWords } from "../importers/words.js";
export type { UploadExportsOptions } from "./jobs/upload-exports.js";
export type { ImportOptions, ImportProblem, ImportProgress, ImportSummary, ProcessingProgress, QueueWait } from "./jobs/import-file.js";
export type { ImageCheck } from "./memories/image-types.js";
export type { ImportedSession, WatchedImport, WatchOptions } from "./jobs/watch-folder.js";
export { imageSecret, signedImageUrl, verifyImageSignature } from "./memories/image-urls.js";
export { probablyUnrelated } from "./retrieval/relevance.js";
export { conversationsOutcome, conversationsRead, memoriesOutcome } from "./jobs/import-outcome.js";

/** Reads chat exports and stores their conversations through a service (core/jobs/import-file.ts). */
export async function importExports(service: MnemoService | undefined, paths: string[], options?: ImportOptions): Promise<ImportSummary> {
  return (await import("./jobs/import-file.js")).importExports(service, paths, options);
}

/** `mnemo import` through a server: each export file streamed whole to it, which imports it (core/jobs/upload-exports.ts). */
export async function uploadExports(service: MnemoService, paths: string[], options: UploadExportsOptions): Promise<ImportSummary> {
  return (await import("./jobs/upload-exports.js")).uploadExports(service, paths, options);
}

/** Waits until none of the user's conversations is queued or processing; the queue's final status. */
export async function waitForQueue(service: MnemoService, wait?: QueueWait): Promise<QueueStatus> {
  return (await import("./jobs/import-file.js")).waitForQueue(service, wait);
}

/** Waits for the queue, then counts how an import's conversations ended (rejected or failed, with reasons). */
export async function waitForProcessing(service: MnemoService, summary: ImportSummary, wait?: QueueWait): Promise<void> {
  return (await import("./jobs/import-file.js")).waitForProcessing(service, summary, wait);
}

/** Whether the bytes are a whole image of a kind mnemo keeps (core/memories/image-types.ts). */
export async function checkImage(data: Uint8Array): Promise<ImageCheck> {
  return (await import("./memories/image-types.js")).checkImage(data);
}

/** Imports each new chat export that appears in a folder (core/jobs/watch-folder.ts); `stop` ends it. */
export async function watchFolder(options: WatchOptions): Promise<{ stop(): Promise<void> }> {
  return (await import("./jobs/watch-folder.js")).watchFolder(options);
}

/** The session logs below watched folders as a watcher sees them, taken before an import reads the folders (watch-sessions.ts). */
export async function sessionsAsTheyStand(folders: readonly { folder: string; format?: string }[]): Promise<ImportedSession[]> {
  const { sessionSignatures } = await import("./jobs/watch-sessions.js");
  return folders.flatMap(({ folder, format }) => [...sessionSignatures(folder, format)].map(([file, signature]) => ({ file, signature })));
}

/** Keeps session logs as imported in watch.json, so that a watcher imports each again only once it changes. */
export async function keepImportedSessions(stateFile: string, sessions: readonly ImportedSession[]): Promise<void> {
  return (await import("./jobs/watch-folder.js")).keepImportedSessions(stateFile, sessions);
}

/** What watched folders imported, newest last. */
export async function watchedImports(stateFile: string): Promise<WatchedImport[]> {
  return (await import("./jobs/watch-folder.js")).watchedImports(stateFile);
}

/** Keeps `mnemo reindex` out while a server runs on the store (core/operations/reindex-lock.ts). */
export async function lockOutReindexToServe(lockPath: string): Promise<ReleaseLock> {
  return (await import("./operations/reindex-lock.js")).lockOutReindexToServe(lockPath);
}

/** Opens the store (creating it on first use) with its embedder and the rest of the service. */
export async function createApp(config: Config, options?: AppOptions): Promise<App> {
  return (await import("./app.js")).createApp(config, options);
}

/** Re-embeds every stored vector with the configured embedder (or the store's own), re-chunking the chat history if asked. */
export async function reindexApp(
  app: App,
  request: ReindexRequest,
  onProgress?: (progress: ReindexProgress) => void,
): Promise<ReindexResult> {
  return (await import("./jobs/reindex.js")).reindexApp(app, request, onProgress);
}

/** `mnemo export --all-users`: every user of the store in mnemo's export format, line by line. */
export async function exportAllUsers(app: App, query?: ExportQuery): Promise<AsyncIterable<string>> {
  return (await import("./jobs/export.js")).exportAllUsers(app.context, query);
}

/** Whether the file is one of mnemo's own exports (which `mnemo import` restores rather than imports). */
export async function isMnemoExport(path: string): Promise<boolean> {
  return (await import("../importers/mnemo-export.js")).isMnemoExport(path);
}

/**
 * Restores one of mnemo's exports into the store (core/jobs/restore.ts). A dry run, which reads the
 * file only, needs no store: `app` undefined where there is none yet.
 */
export async function restoreExport(app: App | undefined, path: string, options?: RestoreOptions): Promise<RestoreSummary> {
  const [{ openMnemoExport }, { restoreExport: restore, checkExport }] = await Promise.all([
    import("../importers/mnemo-export.js"),
    import("./jobs/restore.js"),
  ]);
  const reader = await openMnemoExport(path);
  if (app !== undefined) return restore(app.context, path, reader, options);
  if (!options?.dryRun) throw new AppError("internal", "A restore stores into a store: only a dry run goes without");
  return checkExport(path, reader, options);
}

/** `mnemo doctor`: every table of the store checked (in a child process), with what is wrong and how to recover. */
export async function diagnoseStore(config: Config, onProgress?: DoctorProgress): Promise<Diagnosis> {
  return (await import("./operations/doctor.js")).diagnose(config, onProgress);
}

/** What `mnemo doctor --repair` would do with this diagnosis, one line each (`--dry-run`). */
export async function repairPlan(config: Config, diagnosis: Diagnosis): Promise<string[]> {
  return (await import("./operations/doctor-repair.js")).repairPlan(config, diagnosis);
}

/** `mnemo doctor --repair`: rebuilds what the store can rebuild, then checks it again. */
export async function repairStore(
  config: Config,
  diagnosis: Diagnosis,
  onProgress?: DoctorProgress,
  options?: RepairOptions,
): Promise<RepairResult> {
  return (await import("./operations/doctor-repair.js")).repairStore(config, diagnosis, onProgress, options);
}

/** Refuses to remove the default user. */
export async function checkRemovable(name: string): Promise<void> {
  (await import("./users.js")).checkRemovable(name);
}

/** The stored bytes behind an image memory, for the image route (its signature already checked). */
export async function imageBytes(app: App, memoryId: string): Promise<{ data: Buffer; mime: string }> {
  return (await import("./memories/images.js")).imageBytes(app.context, memoryId);
}

/** An upload's JSON body read as it arrives, its messages past the token limit not kept (chat-history/upload-reader.ts). */
export async function readUploadBody(body: AsyncIterable<Uint8Array>, length?: number): Promise<unknown> {
  return (await import("./chat-history/upload-reader.js")).readUploadBody(body, length);
}

/** Deletes for good what has been in any user's trash over 30 days (core/trash/); a running server does it every few hours. */
export async function purgeExpiredTrash(app: App): Promise<number> {
  return (await import("./trash/trash.js")).purgeExpiredTrash(app.context);
}

/** LanceDB with fewer I/O threads, for maintenance: call before the process's first read. */
export async function useFewerIoThreads(): Promise<void> {
  (await import("./operations/maintenance.js")).useFewerIoThreads();
}
