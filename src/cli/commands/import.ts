import path from "node:path";
import type { Command } from "commander";
import {
  conversationsOutcome,
  conversationsRead,
  memoriesOutcome,
  type ImportedSession,
  type ImportSummary,
  type RestoreSummary,
} from "../../core/index.js";
import { useLeanAllocator } from "../../shared/lean-allocator.js";
import { counted, type Output } from "../output.js";
import type { ImportCommandOptions } from "../import-thread.js";
import { AppError } from "../../shared/errors.js";
import { appFolders, shownPaths } from "../app-folders.js";
import { locateStore } from "../../config/location.js";
import { action, type Session } from "../session.js";
import { ioOf } from "../io.js";
import { onInterrupt } from "../interrupt.js";
import { startSpinner } from "../spinner.js";

/**
 * `mnemo import --help` after the options: the formats (from the importers' registry), backups, and
 * what to expect. `mnemo help import` shows help without loading anything first, so it points there.
 */
const importHelp = (formats: string | undefined, apps: string | undefined) => `
Formats (recognised from the content, not the name):
${formats ?? "  `mnemo import --help` lists them."}

A backup (a file of \`mnemo export\`, .jsonl or .jsonl.gz) is restored with its ids, versions, times,
pins and images; what the store already holds is left as it is, so running it twice adds nothing.
--user restores a one-user export into that user. This machine's store only.

Safe to run again: a conversation already stored is updated or left unchanged, never duplicated.
Prints the import id of what it stored (one per platform); \`mnemo chats list --import-id\` takes it.
--dry-run compares with the store and says what an import would do (new / updated / unchanged),
writing nothing (where there is no store yet, all is new);
through --remote it cannot compare, and says so.

--apps imports the chats these apps keep on this machine, from each folder found:
${apps ?? "  `mnemo import --help` lists them."}`;

/** Said on Ctrl-C: each batch is committed whole, so what was stored stays, and a run again adds only what is missing. */
const STOPPED =
  "Import stopped. What it stored stays stored: run the same command again to import the rest (it adds only what is missing; `mnemo chats status` shows what is left to index).";

export function registerImport(program: Command): void {
  // The formats come from the core, which --help alone does not load: only help for this command does.
  let formats: string | undefined;
  let apps: string | undefined;
  program.hook("preSubcommand", async (_program, command) => {
    if (command.name() !== "import") return;
    const core = await import("../../core/index.js");
    formats = core.formatLines();
    apps = core.appFolderLines({ platform: process.platform, env: ioOf(program).env });
  });
  program
    .command("import")
    // The summary is its line in `mnemo --help`; its own help lists the formats itself, below.
    .summary("import chat exports (`mnemo import --help` lists the formats), or restore a backup of `mnemo export`")
    .description("import chat exports (the formats are listed below), or restore a backup of `mnemo export`")
    .argument("[paths...]", "export files, zips or folders")
    .option("--apps", "also the chats that apps on this machine keep on disk (coding agents, Cursor, LM Studio…: help lists them)")
    .option("--platform <id>", "record the conversations under this platform id")
    .option("--dry-run", "read and check everything, store nothing")
    .option("--no-wait", "return once stored; processing finishes in the background (mnemo serve, or the next import)")
    .addHelpText("after", () => importHelp(formats, apps))
    .action(
      action(
        async (session, given: string[], options: ImportCommandOptions & { apps?: boolean }) => {
          const { out } = session;
          // Before the thread opens (or creates) the store.
          const { checkPlatform, withAppFolders } = await import("../../core/index.js");
          checkPlatform(options.platform);
          const found = options.apps ? await appFolders(session, "--apps") : { folders: [], watched: [] };
          const apps = found.folders;
          const paths = withAppFolders(given, apps);
          if (paths.length === 0)
            throw AppError.invalid(
              "paths",
              "name what to import",
              "Pass export files, zips or folders (`mnemo import --help` lists the formats), or --apps.",
            );
          const asTheyStand = options.apps && !options.dryRun ? await sessionsBeforeImport(found.watched) : [];
          await useLeanAllocator();
          const { importInThread } = await import("../import-thread.js");
          const spinner = await startSpinner("Reading exports", session);
          const stopWatching = onInterrupt(() => {
            spinner.stop();
            out.warn(options.dryRun ? "Import stopped: a dry run stores nothing." : STOPPED);
          });
          try {
            const read = await importInThread(
              { globals: session.options, paths, options },
              { status: (text) => spinner.text(text), notice: (text) => out.notice(text) },
              session.io,
            );
            spinner.stop();
            await keepForWatching(session, asTheyStand, read);
            const summary = withoutEmptyApps(read, apps, session);
            report(out, summary, {
              waited: options.wait,
              remote: Boolean(session.options.remote ?? session.io.env["MNEMO_URL"]),
              shown: (text) => shownPaths(text, session),
            });
            const restoreProblems = summary.restored.some((restored) => restored.problems.length > 0);
            if (
              summary.files.some((file) => file.error) ||
              summary.failed + summary.unreadableFiles + summary.memories.failed > 0 ||
              restoreProblems
            )
              session.io.exitCode = 1;
          } catch (error) {
            spinner.stop();
            throw error;
          } finally {
            stopWatching();
          }
        },
        { platform: "--platform" },
      ),
    );
}

/** The files `watch --apps` would import (its session logs, the databases it watches), as they stand before the import reads them. */
async function sessionsBeforeImport(watched: { folder: string; format: string }[]): Promise<ImportedSession[]> {
  const { sessionsAsTheyStand } = await import("../../core/index.js");
  return sessionsAsTheyStand(watched);
}

/**
 * Keeps what the import read as the watcher's imports in watch.json, so that the first `watch --apps`
 * after `import --apps` imports only what changed since (it read every file again, and said a line of
 * the files already up to date and of each resumed session left out). Not a folder that could not be read.
 */
async function keepForWatching(session: Session, sessions: ImportedSession[], summary: ImportSummary): Promise<void> {
  const failed = summary.files.filter((file) => file.error !== undefined).map((file) => path.resolve(file.path));
  const read = sessions.filter(({ file }) => !failed.some((folder) => file === folder || file.startsWith(folder + path.sep)));
  const { keepImportedSessions } = await import("../../core/index.js");
  const { store, user, remote, token } = session.options;
  await keepImportedSessions(locateStore({ store, user, remote, token }, session.io.env).paths.watchState, read);
}

/**
 * An app's folder found that holds no chat it could read (the app installed, never used) is said
 * once, not as an export that failed: nothing was asked of it by name.
 */
function withoutEmptyApps(summary: ImportSummary, apps: string[], session: Session): ImportSummary {
  // A folder it may not read (source.ts's "cannot read …") is an error still: it may hold chats.
  const empty = summary.files.filter(
    (file) => file.error !== undefined && !file.error.startsWith("cannot read ") && apps.includes(file.path),
  );
  if (empty.length === 0) return summary;
  for (const file of empty) session.out.notice(`Nothing to import in ${shownPaths(file.path, session)}: it holds no chat mnemo reads.`);
  const left = (path: string) => !empty.some((file) => file.path === path);
  return {
    ...summary,
    files: summary.files.filter((file) => left(file.path)),
    problems: summary.problems.filter((problem) => left(problem.file)),
  };
}

/** How the text report shows a path (the home folder as ~, as the user types it); --json keeps them whole. */
type Shown = (text: string) => string;

function report(out: Output, summary: ImportSummary, after: { waited: boolean; remote: boolean; shown: Shown }): void {
  const { shown } = after;
  if (out.json) return out.data(summary);
  for (const restored of summary.restored) reportRestore(out, restored, summary.dryRun);
  if ((summary.files.length > 0 || summary.restored.length === 0) && !onlyMemories(summary)) reportTotals(out, summary);
  if (summary.indexedFromBefore)
    out.success(`Indexed ${counted(summary.indexedFromBefore, "conversation")} an earlier import had stored and left to index`);
  reportMemories(out, summary);
  reportSkipped(out, summary, shown);
  reportRepaired(out, summary, shown);
  if (summary.languageHint) out.notice(summary.languageHint);
  reportImportIds(out, summary.importIds);
  for (const problem of summary.problems) {
    out.warn(shown(problem.conversation ? `${problem.conversation}: ${problem.reason}` : problem.reason));
    // A suggestion's command may quote its path, where ~ is not the home folder: it is shown as made.
    if (problem.suggestion) out.notice(`  → ${problem.suggestion}`);
  }
  if (!after.waited && !summary.dryRun && summary.new + summary.updated > 0) {
    out.notice(
      after.remote
        ? "The server indexes them in the background: see `mnemo chats status`."
        : "Stored and queued for indexing: `mnemo chats status --wait` indexes them now (a running `mnemo serve` on this store does it by itself).",
    );
  }
}

/** What a restore of one of mnemo's exports added, what the store held already, and what went wrong. */
function reportRestore(out: Output, restored: RestoreSummary, dryRun: boolean): void {
  const kinds = ["memory", "bucket", "conversation", "platform"] as const;
  const nouns = {
    memory: ["memory", "memories"],
    bucket: ["bucket", "buckets"],
    conversation: ["conversation", "conversations"],
    platform: ["import record", "import records"],
  };
  const added = kinds.map((kind) => `${restored.added[kind]} ${nouns[kind][restored.added[kind] === 1 ? 0 : 1]}`).join(", ");
  const present = kinds.reduce((sum, kind) => sum + restored.present[kind], 0);
  const users = restored.users.map((user) => `${user.name}${user.created ? " (new)" : ""}`).join(", ");
  const into = restored.users.length === 0 ? "no user" : `${restored.users.length === 1 ? "user" : "users"} ${users}`;
  const line = dryRun
    ? `Checked ${restored.file}: ${added} for ${into}`
    : `Restored ${restored.file} into ${into}: ${added}${present > 0 ? `; ${present} already in the store, left as they were` : ""}${restored.pictures > 0 ? `; ${counted(restored.pictures, "missing or damaged picture")} put back` : ""}`;
  if (restored.problems.length > 0) out.warn(line);
  else out.success(line);
  if (!dryRun && restored.chunks === "recomputed" && restored.queued > 0) {
    const why =
      restored.vectors === "carried"
        ? "the file's chunks were cut at another size"
        : "the file's vectors are another embedder's, or it has none";
    out.notice(`${counted(restored.queued, "conversation")} to index again (${why}).`);
  }
  for (const problem of restored.problems) out.warn(problem);
}

function reportTotals(out: Output, summary: ImportSummary): void {
  const unreadable = summary.files.filter((file) => file.error).length;
  const read = conversationsRead(summary.files);
  if (read === 0 && unreadable > 0) {
    return out.error(
      `Nothing ${summary.dryRun ? "checked" : "imported"}: ${unreadable === 1 ? "the export" : `${unreadable} exports`} could not be read.`,
    );
  }
  const inside = summary.unreadableFiles;
  const notes = [
    unreadable > 0 ? `${unreadable} of ${counted(summary.files.length, "export")} could not be read` : "",
    inside > 0 ? `${counted(inside, "file or folder", "files or folders")} inside could not be read` : "",
  ].filter(Boolean);
  const line = `${outcome(summary, read)}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
  if (unreadable > 0 || inside > 0 || summary.failed > 0) out.warn(line);
  else out.success(line);
}

/** The memories an export held (Claude's memory, its projects): how many, what became of them, and where they are. */
function reportMemories(out: Output, summary: ImportSummary): void {
  const { memories } = summary;
  const line = memoriesOutcome(memories, { dryRun: summary.dryRun, quotes: ['"', '"'] });
  if (line === undefined) return;
  if (memories.failed > 0) out.warn(line);
  else out.success(line);
  if (memories.updated > 0 && !summary.dryRun)
    out.notice("An updated memory keeps what it said before in its history: `mnemo memories history <id>`.");
}

/** Files that held memories and no conversations (Claude's memories.json alone): no "0 conversations" line. */
function onlyMemories(summary: ImportSummary): boolean {
  return summary.files.length > 0 && summary.files.every((file) => file.conversations === 0 && file.memories !== undefined && !file.error);
}

/** Files named for one reason left out; the rest are counted (a folder of 300 subagent sessions is one line, not 300). */
const SHOWN_SKIPPED_FILES = 3;

/** What was left out on purpose, and why: an import never drops records without a word. One line a reason, however many files gave it. */
function reportSkipped(out: Output, summary: ImportSummary, shown: Shown): void {
  if (summary.skipped.length === 0) return;
  out.notice("Not imported, on purpose:");
  const reasons = new Map<string, { count: number; files: string[] }>();
  for (const { reason, count, file } of summary.skipped) {
    const seen = reasons.get(reason) ?? { count: 0, files: [] };
    seen.count += count;
    seen.files.push(shown(file));
    reasons.set(reason, seen);
  }
  for (const [reason, { count, files }] of reasons) out.notice(`  ${count.toLocaleString("en-US")} × ${reason} (${inFiles(files)})`);
}

/** "in a.json", or "in 300 files: a.jsonl, b.jsonl, c.jsonl and 297 more (--json lists them all)". */
function inFiles(files: string[]): string {
  if (files.length === 1) return `in ${files[0]}`;
  const shown = files.slice(0, SHOWN_SKIPPED_FILES).join(", ");
  const more = files.length - SHOWN_SKIPPED_FILES;
  return `in ${files.length.toLocaleString("en-US")} files: ${shown}${more > 0 ? ` and ${more.toLocaleString("en-US")} more (--json lists them all)` : ""}`;
}

/** Records shown in full among those repaired; the rest are counted. */
const SHOWN_REPAIRS = 10;

/** What was imported with its text repaired: the user's own words, so never refused, and never changed without a word. */
function reportRepaired(out: Output, summary: ImportSummary, shown: Shown): void {
  if (summary.repaired.length === 0) return;
  out.notice(
    `Repaired and imported: ${counted(summary.repaired.length, "record")} held text that is not valid Unicode (half an emoji, bytes that are not UTF-8), now shown as \uFFFD:`,
  );
  for (const repair of summary.repaired.slice(0, SHOWN_REPAIRS)) {
    out.notice(
      `  ${shown(repair.file)}, record ${repair.record}: ${repair.fields.join(", ")}${repair.count > repair.fields.length ? ` and ${repair.count - repair.fields.length} more` : ""} (${JSON.stringify(repair.text)})`,
    );
  }
  if (summary.repaired.length > SHOWN_REPAIRS) out.notice(`  and ${summary.repaired.length - SHOWN_REPAIRS} more (--json lists them all)`);
}

/** Where to find what was imported; the ids on stdout too when it is not a terminal, as a command that creates prints them. */
function reportImportIds(out: Output, importIds: string[]): void {
  if (importIds.length === 0) return;
  const one = importIds.length === 1;
  out.notice(
    `Import ${one ? "id" : "ids"} ${importIds.join(", ")}: \`mnemo chats list --import-id ${one ? importIds[0] : "<id>"}\` lists ${one ? "its" : "one's"} conversations`,
  );
  out.ids(importIds);
}

/** What became of the conversations read (or would, in a dry run). */
function outcome(summary: ImportSummary, read: number): string {
  if (!summary.comparedWithStore) {
    const problems = [summary.rejected ? `${summary.rejected} rejected` : "", summary.failed ? `${summary.failed} failed` : ""].filter(
      Boolean,
    );
    return `Checked ${counted(read, "conversation")}${problems.length > 0 ? `; ${problems.join(", ")}` : ""}; not compared with the server's store (a dry run through --remote cannot tell new from unchanged)`;
  }
  return conversationsOutcome(summary, summary.dryRun);
}
