import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { AppError } from "../../shared/errors.js";
import { foldersToWatch } from "../app-folders.js";
import { action, openService } from "../session.js";
import { ioOf } from "../io.js";
import { untilSignal } from "./serve.js";
import { locateStore } from "../../config/location.js";

/** What `mnemo watch --help` says --apps follows and does not, from the importers' registry. */
interface AppsWatched {
  lines: string;
  databases: string;
  notWatched: string;
}

/** `mnemo watch --help` after the options: what --apps follows, from the importers' registry (loaded for this command's help only). */
function watchHelp(apps: AppsWatched | undefined): string {
  if (!apps) return "";
  return `
--apps watches the folders of these apps found on this machine:
${apps.lines}
A session file is imported again once it has paused (--session-settle). The databases of
  ${apps.databases}
are imported again once they and their -wal have held as long, at most once per 0.5 s per
MB of them (each import reads one whole); one over 1 GB is said once, not read.
Imported by \`mnemo import --apps\`, not watched:
${apps.notWatched}`;
}

export function registerWatch(program: Command): void {
  let apps: AppsWatched | undefined;
  program.hook("preSubcommand", async (_program, command) => {
    if (command.name() !== "watch") return;
    const core = await import("../../core/index.js");
    apps = {
      lines: core.appFolderLines({ platform: process.platform, env: ioOf(program).env }, { watching: true }),
      databases: core.databasesWatched(),
      notWatched: core.appsNotWatched(),
    };
  });
  program
    .command("watch")
    .description(
      "import each new chat export (`mnemo import --help` lists the formats) that appears in a folder such as ~/Downloads, once it has finished downloading, and coding agents' sessions (~/.claude/projects, ~/.codex/sessions, OpenCode's opencode.db) as they go on, until Ctrl-C (`mnemo service install --watch` does it at every login)",
    )
    .argument("[folders...]", "folders to watch")
    .option(
      "--apps",
      "also the folders (or databases) where coding agents and chat apps on this machine keep their sessions (help lists them)",
    )
    .option(
      "--settle <seconds>",
      "how long a file's size and time must hold before it is imported (a slow network share may need more)",
      "3",
    )
    .option(
      "--session-settle <seconds>",
      "how long a coding agent's session (or an app's database) must pause before it is imported again",
      "30",
    )
    .addHelpText("after", () => watchHelp(apps))
    .action(
      action(async (session, folders: string[], options: { settle: string; sessionSettle: string; apps?: boolean }) => {
        const stableMs = parseSeconds("--settle", options.settle) * 1000;
        const sessionStableMs = parseSeconds("--session-settle", options.sessionSettle) * 1000;
        const given = folders.map((folder) => {
          const absolute = path.resolve(folder);
          if (!fs.statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) {
            throw AppError.invalid("folders", `${absolute} is not a folder`, "Give a folder that exists, such as ~/Downloads.");
          }
          return absolute;
        });
        const watched = await foldersToWatch(session, given, { apps: Boolean(options.apps), flag: "--apps" });
        if (watched.length === 0) throw AppError.invalid("folders", "name a folder to watch", "Give one, such as ~/Downloads, or --apps.");
        const { watchFolder, importExports, uploadExports } = await import("../../core/index.js");
        const { store, user, remote, token } = session.options;
        const { paths } = locateStore({ store, user, remote, token }, session.io.env);
        // Through a server (the one on the store, or --remote) each export goes whole to it; else it is imported and indexed here.
        const { service, via, close } = await openService(session, { index: true, maintenance: "background" });
        const { out } = session;
        try {
          const watchers = await Promise.all(
            watched.map(({ folder, sessionsOf, format }) =>
              watchFolder({
                folder,
                stateFile: paths.watchState,
                stableMs,
                sessionStableMs,
                sessionsOf,
                format,
                // Looked at as often as a file must hold, up to every 2 s.
                intervalMs: Math.min(2_000, stableMs),
                importFile: (file) => (via === "server" ? uploadExports(service, [file], { wait: false }) : importExports(service, [file])),
                readsSessionFilesBeside: via !== "server",
                trash: async (conversationIds) => void (await service.trash.move({ conversationIds })),
                log: { notice: (text) => out.notice(text), warn: (text) => out.warn(text) },
              }),
            ),
          );
          out.notice("Ctrl-C stops watching.");
          await untilSignal(session.io);
          for (const watcher of watchers) await watcher.stop();
        } finally {
          await close();
        }
      }),
    );
}

/** A number of seconds from 0.1 to an hour, as typed. */
function parseSeconds(flag: string, value: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 0.1 && seconds <= 3600)) throw AppError.invalid(flag, `must be a number of seconds from 0.1 to 3600, not "${value}"`);
  return seconds;
}
