import fs from "node:fs";
import path from "node:path";
import {
  gigabytes,
  importerOf,
  isSessionFileName,
  isSessionLog,
  isWatchedDatabase,
  MAX_DATABASE_BYTES,
  sameSessionFiles,
  sessionPathOf,
  SMALLER_DATABASE,
  watchedDatabaseOf,
  openExport,
  type ExportFormat,
} from "../../importers/index.js";
import { isAppError } from "../../shared/errors.js";
import type { ImportSummary } from "./import-file.js";
import { conversationsOutcome, conversationsRead } from "./import-outcome.js";
import { resumption } from "./resumed-sessions.js";

/**
 * Watching the session logs of coding agents (~/.claude/projects, ~/.codex/sessions): unlike an
 * export, such a file is written as its session goes on, so it is imported again each time it has
 * changed and then stayed still for `stableMs` (a session paused), and those already there when
 * watching begins are imported too (each file is its session as it stands, never an older copy).
 *
 * - Files: `.jsonl` and `.json` at any depth below the folder (hidden folders and node_modules aside),
 *   and the one name an app gives its log (Aider's `.aider.chat.history.md` in each repository),
 *   whose format is one that writes session logs (Importer.sessionLogs); anything else is left alone.
 *   `.json` too: Gemini CLI's sessions before April 2026 (chats/session-*.json) and VS Code's chat
 *   sessions before 1.109 (chatSessions/*.json) are one JSON object each, rewritten as they go. A
 *   folder may hold thousands of other .json files: each is detected once per signature (`passed`,
 *   from a sample of its start), and at most MAX_FILES are looked at.
 * - A session log that is no session alone (an OpenHands event, a file each) is imported as its
 *   session's folder (Importer.sessionFolder), the folder's other files kept as read with it.
 * - Databases an app writes its chats into as they go on (Importer.watchedDatabase: opencode.db,
 *   Goose's sessions.db…), by the names their formats give them, or the one a watched path is (Zed's
 *   threads.db; an app's found by `--apps`, whatever its name: OPENCODE_DB's): imported again once
 *   the file and its `-wal` (where the app writes first) have held still, and at most once per
 *   DATABASE_MS_PER_MB of its size, as each re-import loads it whole. One over the size mnemo reads
 *   is said once, then left alone.
 * - Once per state: each file's size and time when imported are kept in watch.json (`sessions`), so
 *   a restart imports only what changed meanwhile. A re-import embeds only the chunks that changed.
 * - The log says what changed: an import that stored nothing new is silent, and those of the first
 *   look that imported anything are one line ("41 session files already up to date"), since each
 *   file is imported at first (after an import of the folder by its path) and a line each read as 41
 *   changes. `mnemo import --apps` keeps what it read as imported here, so the first watch after it
 *   imports only what changed since.
 * - A Claude Code session resumed into a new file (resumed-sessions.ts): a file another in its folder
 *   holds whole is left out, and once the longer one is stored whole the shorter one's conversations
 *   (watch.json keeps each file's, `sessionConversations`) go to the trash (30 days), as an import of
 *   the whole folder keeps only the longer. A session imported by a version that did not keep its
 *   conversations stays stored.
 */

/** How deep below the watched folder session logs are looked for (~/.codex/sessions/YYYY/MM/DD/file). */
const MAX_DEPTH = 6;
/** At most this many files are looked at in a folder tree: a watched ~/Downloads may hold a whole project. */
const MAX_FILES = 100_000;
/**
 * A database is imported again at most once per this long per MB of it (and its -wal): a re-import
 * loads it whole, so this bounds what watching costs however often the app writes (the measurement
 * is in src/README.md, "A database an app writes its chats into is watched").
 */
const DATABASE_MS_PER_MB = 500;

export interface SessionWatchOptions {
  folder: string;
  /** The format of the app whose database the folder is, when a file (WatchOptions.format). */
  format?: string | undefined;
  stableMs: number;
  /** Each file's signature ("size:mtime") when it was last imported, as watch.json holds it now (the caller keeps it). */
  imported(): Record<string, string>;
  /** The conversations each file's last import stored, as watch.json holds them now. */
  storedFrom(): Record<string, string[]>;
  /** Keeps files' signatures as imported, and the conversations stored from each (undefined: those kept before stand), in one write. */
  record(sessions: { file: string; signature: string; conversationIds: string[] | undefined }[]): Promise<void>;
  importFile(file: string): Promise<ImportSummary>;
  /** Whether importFile reads the same session's files beside the one it is given (sameSessionFiles). */
  readsSessionFilesBeside: boolean;
  /** Moves conversations to the trash: those of a session now held whole by the file it was resumed in. */
  trash(conversationIds: string[]): Promise<void>;
  log: { notice(text: string): void; warn(text: string): void };
}

/** One look at the folder's session logs: imports those that changed and have since held still. */
export function sessionWatch(options: SessionWatchOptions): (now: number) => Promise<void> {
  /** Files seen changing: their signature and since when it has held. */
  const seen = new Map<string, { signature: string; since: number }>();
  /** Files looked at and not imported (another format), by signature: looked at again when they change. */
  const passed = new Map<string, string>();
  const databases = databaseWatch(options);
  /** Whether a look has imported anything yet: the first to do so sums up those with nothing new. */
  let importedOnce = false;
  return async (now) => {
    const imported = options.imported();
    /** Files read with another imported in this look (the same session's), as they stood then. */
    const readWith = new Map<string, string>();
    const outcomes: ImportOutcome[] = [];
    for (const { file, signature, bytes } of sessionFiles(options.folder, options.format)) {
      if (imported[file] === signature || readWith.get(file) === signature || passed.get(file) === signature) continue;
      const known = seen.get(file);
      if (known?.signature !== signature) {
        seen.set(file, { signature, since: now });
        continue;
      }
      if (now - known.since < options.stableMs) continue;
      if (bytes !== undefined) {
        const done = await databases(file, signature, bytes, now);
        if (done === "later") continue;
        seen.delete(file);
        if (done === "passed") passed.set(file, signature);
        else outcomes.push(done);
        continue;
      }
      seen.delete(file);
      const format = await exportFormat(file);
      if (format === undefined || !isSessionLog(format)) {
        passed.set(file, signature);
        continue;
      }
      const done = await importSession(file, format, signature, options);
      for (const [other, its] of done.readWith) readWith.set(other, its);
      outcomes.push(done.outcome);
    }
    if (outcomes.length === 0 || importedOnce) return;
    importedOnce = true;
    const upToDate = outcomes.filter((outcome) => outcome === "nothing new").length;
    if (upToDate > 0)
      options.log.notice(`From ${options.folder}: ${upToDate} session ${upToDate === 1 ? "file" : "files"} already up to date`);
  };
}

/** What an import of a session file did: stored something or failed (said in the log), or stored nothing new (not said). */
type ImportOutcome = "said" | "nothing new";

/**
 * A database that has held still: imported unless too large to read (said once) or imported too
 * recently for its size ("later": looked at again on the next look); "passed" when no watched format's.
 */
function databaseWatch(options: SessionWatchOptions) {
  /** Each database's format, detected once (detection loads it whole too). */
  const formats = new Map<string, ExportFormat | undefined>();
  /** When each database was last imported by this watcher. */
  const importedAt = new Map<string, number>();
  /** Databases over the size mnemo reads, said once. */
  const refused = new Set<string>();
  return async (file: string, signature: string, bytes: number, now: number): Promise<ImportOutcome | "passed" | "later"> => {
    if (bytes > MAX_DATABASE_BYTES) {
      const command = databaseImporter(file, options)?.smallerDatabase;
      if (!refused.has(file))
        options.log.warn(
          `${file}: the database is ${gigabytes(bytes)}, over the ${gigabytes(MAX_DATABASE_BYTES)} mnemo reads: not watched. ${SMALLER_DATABASE}${command === undefined ? "" : `, with the app closed: ${command}`}`,
        );
      refused.add(file);
      return "passed";
    }
    refused.delete(file);
    if (now - (importedAt.get(file) ?? -Infinity) < (bytes / 1024 ** 2) * DATABASE_MS_PER_MB) return "later";
    if (!formats.has(file)) formats.set(file, await exportFormat(file));
    const format = formats.get(file);
    // The app's own database found by `--apps` is watched whatever its format (Cursor's globalStorage/state.vscdb, AppFolder.watchedDatabase).
    if (format === undefined || !(isWatchedDatabase(format) || isAppsDatabase(file, options))) return "passed";
    const { outcome } = await importSession(file, format, signature, options);
    importedAt.set(file, Date.now());
    return outcome;
  };
}

/** The importer of a watched database: its app's where the watched path is that file (WatchOptions.format), else the one its name says. */
function databaseImporter(file: string, options: SessionWatchOptions) {
  return isAppsDatabase(file, options) ? importerOf(options.format!) : watchedDatabaseOf(path.basename(file));
}

/** Whether the file is the watched path itself, an app's database `--apps` found (WatchOptions.format). */
function isAppsDatabase(file: string, options: SessionWatchOptions): boolean {
  return options.format !== undefined && file === options.folder;
}

/**
 * Imports a session file; returns what it did, and the files of the same session it read too (Kimi
 * CLI's), with their signatures before it did, kept as imported: the app writes them together, and
 * each imported again would import the one change again.
 */
async function importSession(
  file: string,
  format: ExportFormat,
  signature: string,
  options: SessionWatchOptions,
): Promise<{ outcome: ImportOutcome; readWith: Map<string, string> }> {
  const none = { heldBy: undefined, holds: [] };
  // A file that cannot be compared is imported as it is: at worst stored twice, never lost.
  const resumed = format === "claude-code" ? await resumption(file).catch(() => none) : none;
  if (resumed.heldBy !== undefined) {
    // What was stored from it goes only once the longer file's import has stored that (above, as its `holds`).
    options.log.notice(`${file} is a session resumed in ${resumed.heldBy}: left out, imported there`);
    await options.record([{ file, signature, conversationIds: undefined }]);
    return { outcome: "said", readWith: new Map() };
  }
  // A file alone that is no session (an OpenHands event) is imported as its session's folder, whose files are then read.
  const target = sessionPathOf(file, format);
  const readToo =
    target !== file
      ? new Map(sessionFiles(target).flatMap((found) => (found.file === file ? [] : [[found.file, found.signature] as const])))
      : options.readsSessionFilesBeside
        ? signatures(sameSessionFiles(file, format))
        : new Map<string, string>();
  let stored: string[] | undefined;
  let whole = false;
  let outcome: ImportOutcome = "said";
  try {
    const summary = await options.importFile(target);
    if (storedNothingNew(summary)) outcome = "nothing new";
    // A file of a session-log format that holds no chat (Cline's api_conversation_history.json beside its
    // ui_messages.json) is left alone silently, as the exports' watcher leaves files that are no export.
    else if (conversationsRead(summary.files) > 0 || summary.problems.length > 0)
      options.log.notice(`From ${target} (${summary.files[0]?.format ?? format}): ${conversationsOutcome(summary)}`);
    stored = summary.conversationIds;
    whole = summary.failed + summary.rejected === 0 && stored.length > 0;
    await options.record([...readToo].map(([other, its]) => ({ file: other, signature: its, conversationIds: undefined })));
  } catch (error) {
    options.log.warn(`Could not import ${file}: ${error instanceof Error ? error.message : String(error)}`);
    readToo.clear();
  }
  // A file that failed is tried again only once it changes, as an export is.
  await options.record([{ file, signature, conversationIds: stored }]);
  // The older files' conversations go only once this one's are stored, every one of them.
  if (!whole) return { outcome, readWith: readToo };
  const imported = options.imported();
  for (const older of resumed.holds) {
    try {
      await trashStoredFrom(older, imported[older], options);
    } catch (error) {
      options.log.warn(`Could not move ${older}'s conversation to the trash: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { outcome, readWith: readToo };
}

/** Conversations read, each of them already stored as it is, and nothing that went wrong. */
function storedNothingNew(summary: ImportSummary): boolean {
  const problems = summary.problems.length + summary.rejected + summary.failed;
  return summary.unchanged > 0 && summary.new + summary.updated + problems === 0;
}

/** The signatures of those of the files that are there. */
function signatures(files: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files) {
    const info = fs.statSync(file, { throwIfNoEntry: false });
    if (info?.isFile()) found.set(file, fileSignature(info));
  }
  return found;
}

/** The conversations stored from a session file now held whole by another, to the trash; the file is not imported again until it changes. */
async function trashStoredFrom(file: string, signature: string | undefined, options: SessionWatchOptions): Promise<void> {
  const ids = options.storedFrom()[file] ?? [];
  if (ids.length > 0) {
    await options.trash(ids);
    options.log.notice(`The conversation imported from ${file} went to the trash: the session resumed from it holds every message of it`);
  }
  if (signature !== undefined) await options.record([{ file, signature, conversationIds: [] }]);
}

/** The export format of a file, in the importers' word; undefined for anything else (or an archive not yet whole). */
export async function exportFormat(file: string): Promise<ExportFormat | undefined> {
  try {
    return (await openExport(file)).format;
  } catch (error) {
    if (isAppError(error)) return undefined;
    throw error;
  }
}

/** What tells a file's state apart: its size and time, "size:mtime". */
export function fileSignature(info: fs.Stats): string {
  return `${info.size}:${Math.round(info.mtimeMs)}`;
}

/**
 * The signature of each file below a watched folder (or of its one database) as a watcher keys them:
 * taken before `mnemo import --apps` reads the folder, kept as imported once it has (a file changed
 * meanwhile then differs, and is imported again).
 */
export function sessionSignatures(folder: string, format?: string): Map<string, string> {
  return new Map(sessionFiles(path.resolve(folder), format).map(({ file, signature }) => [file, signature]));
}

/**
 * The files below the folder that may be session logs (`.jsonl`, `.json`, Aider's history) or watched
 * databases, with their size and time; a database's with its -wal's, and its bytes. A watched path
 * that is a file (Zed's threads.db) is that database alone: its app's (`format`) whatever its name.
 */
function sessionFiles(folder: string, format?: string): { file: string; signature: string; bytes?: number }[] {
  const found: { file: string; signature: string; bytes?: number }[] = [];
  const add = (at: string, name: string, databaseOfApp = false) => {
    const database = databaseOfApp || watchedDatabaseOf(name) !== undefined;
    if (!database && !isSessionFileName(name)) return;
    const info = fs.statSync(at, { throwIfNoEntry: false });
    if (!info) return;
    if (!database) return void found.push({ file: at, signature: fileSignature(info) });
    const wal = fs.statSync(`${at}-wal`, { throwIfNoEntry: false });
    const signature = wal ? `${fileSignature(info)}+${fileSignature(wal)}` : fileSignature(info);
    found.push({ file: at, signature, bytes: info.size + (wal?.size ?? 0) });
  };
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (found.length >= MAX_FILES) return;
      const at = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH && !entry.name.startsWith(".") && entry.name !== "node_modules") walk(at, depth + 1);
      else if (entry.isFile()) add(at, entry.name);
    }
  };
  if (fs.statSync(folder, { throwIfNoEntry: false })?.isFile())
    add(folder, path.basename(folder), format !== undefined && importerOf(format).database !== undefined);
  else walk(folder, 0);
  return found;
}
