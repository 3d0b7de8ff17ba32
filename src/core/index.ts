/**
 * The core's one door: the faces (cli, http, client, mcp, web) import the core from here only.
 *
 * Importing it is cheap. What reaches LanceDB or a model (the App, reindex, the users table) is
 * loaded when one of the functions below is first called, so `mnemo --help`, a command sent to a
 * server and an MCP client's first request do not pay for the store.
 */
import type { Config } from "../config/load-config.js";
import type { App, AppOptions } from "./app.js";
import type { ReindexProgress, ReindexResult } from "./jobs/reindex.js";

export type { App, AppOptions } from "./app.js";
export type { CoreContext } from "./context.js";
export type { MnemoService } from "./service.js";
export type { UserInfo } from "./users.js";
export type { ReindexProgress, ReindexResult } from "./jobs/reindex.js";
export { checkPlatform } from "../importers/index.js";
export { importExports, waitForProcessing, waitForQueue } from "./jobs/import-file.js";
export { uploadExports, type UploadExportsOptions } from "./jobs/upload-exports.js";
export type { ImportOptions, ImportProblem, ImportProgress, ImportSummary, ProcessingProgress } from "./jobs/import-file.js";
export { checkImage } from "./memories/image-types.js";
export { imageSecret, signedImageUrl, verifyImageSignature } from "./memories/image-urls.js";
export { lockOutReindexToServe } from "./operations/reindex-lock.js";
export { removeServerInfo, runningServer, writeServerInfo, type ServerInfo } from "./operations/server-info.js";

/** Opens the store (creating it on first use) with its embedder and the rest of the service. */
export async function createApp(config: Config, options?: AppOptions): Promise<App> {
  return (await import("./app.js")).createApp(config, options);
}

/** Re-embeds every stored vector with `target` (or the store's own embedder). */
export async function reindexApp(
  app: App,
  target: string | undefined,
  onProgress?: (progress: ReindexProgress) => void,
): Promise<ReindexResult> {
  return (await import("./jobs/reindex.js")).reindexApp(app, target, onProgress);
}

/** Refuses to remove the default user. */
export async function checkRemovable(name: string): Promise<void> {
  (await import("./users.js")).checkRemovable(name);
}

/** The stored file behind an image memory, for the image route (its signature already checked). */
export async function imageFile(app: App, memoryId: string): Promise<{ path: string; mime: string }> {
  return (await import("./memories/images.js")).imageFile(app.context, memoryId);
}

/** LanceDB with fewer I/O threads, for maintenance: call before the process's first read. */
export async function useFewerIoThreads(): Promise<void> {
  (await import("./operations/maintenance.js")).useFewerIoThreads();
}
