import os from "node:os";
import path from "node:path";

/** A store location LanceDB opens itself (s3://, gs://, az://…) rather than a local folder. */
export function isRemoteUri(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !location.startsWith("file://");
}

/** The default data dir: $XDG_DATA_HOME/mnemo when XDG_DATA_HOME is set, else ~/.mnemo. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env["XDG_DATA_HOME"];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "mnemo");
  // $HOME as os.homedir() reads it, but from this environment (the CLI runs in process in tests).
  return path.join(env["HOME"] || os.homedir(), ".mnemo");
}

/**
 * Files and folders kept in the local data dir next to (or, for a remote store, instead of) the
 * database; the models in `modelsDir` when given ($MNEMO_MODELS: one folder for several stores).
 */
export function dataPaths(dataDir: string, modelsDir?: string) {
  return {
    dataDir,
    database: path.join(dataDir, "db"),
    config: path.join(dataDir, "config.json"),
    models: modelsDir ? path.resolve(modelsDir) : path.join(dataDir, "models"),
    images: path.join(dataDir, "images"),
    writeLock: path.join(dataDir, "write"),
    /** The write-ahead journal of memory writes, absorbed into the database (store/journal.ts). */
    journal: path.join(dataDir, "journal"),
    maintenanceLock: path.join(dataDir, "maintenance"),
    reindexLock: path.join(dataDir, "reindex"),
    serverInfo: path.join(dataDir, "server.json"),
    /** What watched folders hold and what was imported from them (core/jobs/watch-folder.ts). */
    watchState: path.join(dataDir, "watch.json"),
    tokenFile: path.join(dataDir, "token"),
    secret: path.join(dataDir, "secret"),
    /** The meta record and users, kept for a repair of those tables (store/recovery-record.ts). */
    recoveryRecord: path.join(dataDir, "recovery.json"),
    /** CRC-32s of the store's files that never change once written, for the health check (store/checksums.ts). */
    checksums: path.join(dataDir, "checksums.json"),
  };
}
export type DataPaths = ReturnType<typeof dataPaths>;
