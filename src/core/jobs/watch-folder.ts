import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isSessionLog, type ExportFormat } from "../../importers/index.js";
import { unreadableReason } from "../../shared/file-errors.js";
import { waitForProcessLock } from "../../store/process-lock.js";
import type { ImportSummary } from "./import-file.js";
import { conversationsOutcome, conversationsRead, memoriesOutcome } from "./import-outcome.js";
import { exportFormat, fileSignature, sessionWatch } from "./watch-sessions.js";

/**
 * Watching a folder (~/Downloads) for chat exports: each new zip or JSON file that is an app's chat
 * export is imported once it has finished downloading, and at most once per content.
 *
 * - Finished: browsers download under another name (.crdownload, .part) and rename at the end, and
 *   some write in place; so a file is looked at once its size and time have not changed for
 *   `stableMs`. A zip whose download stalled is not complete (its directory is at its end): the
 *   importer cannot open it, and it is looked at again when it changes.
 * - What is an export is the importers' word (openExport), not the name: the rest is left alone,
 *   silently. mnemo's own upload shape and backups are not imported from a folder.
 * - New: the files a folder holds when it is first watched are left alone (an old export imported
 *   over newer data would replace conversations with their older state); later ones are imported,
 *   also those that arrived while nothing watched.
 * - Once per content: the SHA-256 of each imported file is kept in the data dir (`watch.json`), so a
 *   second download of the same export ("export (1).zip") is not imported again.
 * - Coding agents' session logs below the folder are imported as they change, and the databases apps
 *   write their chats into (watch-sessions.ts); the folder may be such a database itself (Zed's threads.db).
 * - One watch.json for every watcher on the store, in this process or another (a terminal's `mnemo
 *   watch` beside the service's): it is read as it stands when needed, and each change is written
 *   under its lock into what the file holds then (changeState), never a copy kept in memory.
 */

/** The one format a watched folder does not import: mnemo's own upload shape is written by a program, not downloaded. */
const UNWATCHED_FORMATS: ReadonlySet<ExportFormat> = new Set(["upload"]);
/** Files looked at: exports come as zips, or as a conversations.json. */
const CANDIDATE = /^[^.].*\.(?:zip|json)$/i;
/** Imports remembered for `mnemo service status`, newest last. */
const KEEP_IMPORTS = 1_000;

export interface WatchOptions {
  /** The folder, or an app's one database file (`--apps`: Zed's threads.db). */
  folder: string;
  /** The data dir's watch.json. */
  stateFile: string;
  /** Imports one export file (into the store, or through a server) and says what it stored. */
  importFile(file: string): Promise<ImportSummary>;
  /** Whether importFile reads the files of a session beside the one given (Importer.companionFiles): an import here does, an upload sends that one file. */
  readsSessionFilesBeside?: boolean;
  /** Moves conversations to the trash: a Claude Code session's, once the file it was resumed in is stored (watch-sessions.ts). */
  trash(conversationIds: string[]): Promise<void>;
  /** Lines for the log: what was imported (notice), and what could not be (warn). */
  log: { notice(text: string): void; warn(text: string): void };
  intervalMs?: number;
  stableMs?: number;
  /** How long a session log must hold still before it is imported again (a session paused). */
  sessionStableMs?: number;
  /** The app whose sessions the folder is (~/.continue/sessions: Continue), as the log says what it watches for. */
  sessionsOf?: string | undefined;
  /**
   * The format of the app found there (`--apps`): a watched path that is a file is that format's
   * database whatever its name (OpenCode's moved by OPENCODE_DB to ~/work/oc.sqlite), not only one named as the format names its own.
   */
  format?: string | undefined;
}

/** One import of a watched folder, as watch.json keeps it. */
export interface WatchedImport {
  file: string;
  sha256: string;
  format: ExportFormat;
  importedAt: string;
  conversations: number;
  new: number;
  updated: number;
  /** Absent in the records of versions before it was kept: read as those neither new nor updated. */
  unchanged?: number;
  importIds: string[];
}

interface WatchState {
  /** Per folder: when watching began, and the files it held then ("name size mtime"). */
  folders: Record<string, { since: string; present: string[] }>;
  imports: WatchedImport[];
  /** Session logs imported, by path: their size and time then (watch-sessions.ts). */
  sessions: Record<string, string>;
  /** The conversations each session log's last import stored, by path (watch-sessions.ts). */
  sessionConversations: Record<string, string[]>;
}

/** Session logs are looked for at most this often: that walks the whole tree below the folder. */
const SESSION_LOOK_MS = 10_000;
/** A session log is imported again once it has held still this long: a paused session, not one mid-answer. */
const SESSION_STABLE_MS = 30_000;

/** Starts watching; `stop` ends it after the file being imported, if any. */
export function watchFolder(options: WatchOptions): { stop(): Promise<void> } {
  const folder = path.resolve(options.folder);
  const intervalMs = options.intervalMs ?? 2_000;
  const stableMs = options.stableMs ?? 3_000;
  /** Files seen changing: their signature and since when it has not changed. */
  const seen = new Map<string, { signature: string; since: number }>();
  /** Files dealt with (imported, not an export, failed), by signature: looked at again only when they change. */
  const done = new Map<string, string>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const sessionStableMs = options.sessionStableMs ?? SESSION_STABLE_MS;
  // Looked at twice within the time a session must hold still (a test's second), every 10 s at most.
  const sessionLookEvery = Math.max(1, Math.round(Math.min(sessionStableMs, SESSION_LOOK_MS) / intervalMs));
  const { stateFile } = options;
  const sessions = sessionWatch({
    folder,
    format: options.format,
    stableMs: sessionStableMs,
    imported: () => readState(stateFile).sessions,
    storedFrom: () => readState(stateFile).sessionConversations,
    record: (sessions) => keepImportedSessions(stateFile, sessions),
    trash: options.trash,
    importFile: options.importFile,
    readsSessionFilesBeside: options.readsSessionFilesBeside ?? true,
    log: options.log,
  });
  let looks = 0;
  let present: Set<string> | undefined;
  /** What the folder held when it was first watched; undefined while it cannot be read (a disk not plugged in). */
  let unreadableSaid = false;
  const startingPoint = async (): Promise<Set<string> | undefined> => {
    if (present) return present;
    // An app's one database (Zed's threads.db, `--apps`): watched as the sessions' watcher watches databases, no exports beside it.
    if (fs.statSync(folder, { throwIfNoEntry: false })?.isFile()) {
      options.log.notice(`Watching ${folder} for ${options.sessionsOf ?? "its app"}'s chats, imported as they change`);
      present = new Set();
      return present;
    }
    const listed = listCandidates(folder);
    if (!listed) {
      // Said once: a folder it may not read would otherwise be watched in silence, its sessions never imported.
      const problem = unreadableProblem(folder);
      if (problem !== undefined && !unreadableSaid)
        options.log.warn(`Cannot watch ${folder}: ${problem}; it is looked at again until it can be read`);
      unreadableSaid ||= problem !== undefined;
      return undefined;
    }
    let known = readState(stateFile).folders[folder];
    if (!known) {
      const first = { since: new Date().toISOString(), present: listed.map(({ name, signature }) => `${name} ${signature}`) };
      // Another process may have begun watching the folder meanwhile: its starting point stands.
      const merged = await changeState(stateFile, (state) => {
        state.folders[folder] ??= first;
      });
      known = merged.folders[folder] ?? first;
    }
    const held = known.present.length;
    // An app's sessions folder holds its sessions, which are imported (watch-sessions.ts), not left alone as old exports.
    options.log.notice(
      options.sessionsOf !== undefined
        ? `Watching ${folder} for ${options.sessionsOf}'s sessions, imported as they go on`
        : `Watching ${folder} for chat exports${held > 0 ? ` (the ${held} zip and JSON files it held at first are left alone)` : ""}`,
    );
    present = new Set(known.present);
    return present;
  };

  const tick = async () => {
    const skip = await startingPoint();
    if (!skip) return;
    const now = Date.now();
    for (const { name, signature } of listCandidates(folder) ?? []) {
      if (stopped) return;
      if (skip.has(`${name} ${signature}`) || done.get(name) === signature) continue;
      const known = seen.get(name);
      if (known?.signature !== signature) {
        seen.set(name, { signature, since: now });
        continue;
      }
      if (now - known.since < stableMs) continue;
      seen.delete(name);
      done.set(name, signature);
      await consider(path.join(folder, name), options);
    }
    if (!stopped && looks++ % sessionLookEvery === 0) await sessions(now);
  };
  const loop = () => {
    current = tick()
      .catch((error: unknown) => options.log.warn(`Watching ${folder}: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  };
  loop();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/** Imports the file if it is an export of a watched format whose content was never imported. */
async function consider(file: string, options: WatchOptions): Promise<void> {
  const format = await exportFormat(file);
  // A session log (a Gemini CLI session's .json) is the sessions' watcher's: imported as it goes on, not once.
  if (!format || UNWATCHED_FORMATS.has(format) || isSessionLog(format)) return;
  const sha256 = await hashOf(file);
  const before = readState(options.stateFile).imports.find((entry) => entry.sha256 === sha256);
  if (before) {
    options.log.notice(`${path.basename(file)} is ${before.file} again, imported on ${before.importedAt}: left alone`);
    return;
  }
  let summary: ImportSummary;
  try {
    summary = await options.importFile(file);
  } catch (error) {
    options.log.warn(`Could not import ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const record: WatchedImport = {
    file,
    sha256,
    format,
    importedAt: new Date().toISOString(),
    conversations: conversationsRead(summary.files),
    new: summary.new,
    updated: summary.updated,
    unchanged: summary.unchanged,
    importIds: summary.importIds,
  };
  await changeState(options.stateFile, (state) => {
    state.imports.push(record);
    state.imports.splice(0, Math.max(0, state.imports.length - KEEP_IMPORTS));
  });
  const { memories } = summary;
  const remembered = memoriesOutcome(memories);
  const memoryLine = remembered === undefined ? "" : `; memories: ${remembered}`;
  const hint = summary.languageHint ? `. ${summary.languageHint}` : "";
  const line = `From ${file} (${format}): ${conversationsOutcome(summary)}${memoryLine}${hint}`;
  if (summary.rejected + summary.failed + memories.failed > 0) options.log.warn(line);
  else options.log.notice(line);
}

/** Why a folder that is there cannot be listed (its permissions); undefined when it is not there (a disk not plugged in). */
function unreadableProblem(folder: string): string | undefined {
  try {
    fs.readdirSync(folder);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : unreadableReason(error);
  }
}

/** The zip and JSON files in the folder, with their size and time; undefined when it cannot be read (it is looked at again). */
function listCandidates(folder: string): { name: string; signature: string }[] | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return undefined;
  }
  return entries.flatMap((entry) => {
    if (!entry.isFile() || !CANDIDATE.test(entry.name)) return [];
    const info = fs.statSync(path.join(folder, entry.name), { throwIfNoEntry: false });
    return info ? [{ name: entry.name, signature: fileSignature(info) }] : [];
  });
}

async function hashOf(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A session log as imported: its signature then, and the conversations stored from it (undefined: those kept before stand). */
export interface ImportedSession {
  file: string;
  signature: string;
  conversationIds?: string[] | undefined;
}

/**
 * Keeps session logs as imported in watch.json (`sessions`), so that a watcher imports each again only
 * once it changes: the watcher's record of each import, and `mnemo import --apps`'s of all it read.
 */
export async function keepImportedSessions(stateFile: string, sessions: readonly ImportedSession[]): Promise<void> {
  if (sessions.length === 0) return;
  await changeState(stateFile, (state) => {
    for (const { file, signature, conversationIds } of sessions) {
      state.sessions[file] = signature;
      if (conversationIds === undefined) continue;
      if (conversationIds.length > 0) state.sessionConversations[file] = conversationIds;
      else delete state.sessionConversations[file];
    }
  });
}

/** The imports of watched folders, newest last (`mnemo service status`). */
export function watchedImports(stateFile: string): WatchedImport[] {
  return readState(stateFile).imports;
}

/** How long watch.json's lock lives unrenewed, and how often it is renewed (ms): a change takes milliseconds. */
const STATE_LOCK = { stale: 10_000, update: 2_000 };

/**
 * Changes watch.json as it stands on disk, under its lock, and returns what was written: every
 * watcher (of this process or another: `mnemo watch ~/Downloads` beside the service watching
 * ~/.claude/projects) writes only its own change into what the others wrote meanwhile, where each
 * writing its own copy whole had dropped the others' records (a session log then imported again,
 * an export's content no longer known).
 */
async function changeState(file: string, change: (state: WatchState) => void): Promise<WatchState> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const release = await waitForProcessLock(file, STATE_LOCK);
  try {
    const state = readState(file);
    change(state);
    writeState(file, state);
    return state;
  } finally {
    await release().catch(() => undefined);
  }
}

function readState(file: string): WatchState {
  try {
    const state = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<WatchState>;
    return {
      folders: state.folders ?? {},
      imports: state.imports ?? [],
      sessions: state.sessions ?? {},
      sessionConversations: state.sessionConversations ?? {},
    };
  } catch {
    return { folders: {}, imports: [], sessions: {}, sessionConversations: {} };
  }
}

function writeState(file: string, state: WatchState): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}
