import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { AppError } from "../../shared/errors.js";
import { foldersToWatch } from "../app-folders.js";
import { action, openService } from "../session.js";
import { untilSignal } from "./serve.js";
import { locateStore } from "../../config/location.js";

/** `mnemo watch --help` after the options: the apps --apps watches, from the importers' registry (loaded for this command's help only). */
const watchHelp = (apps: string | undefined) => `
--apps watches the sessions of these apps, from each folder found on this machine:
${apps ?? "  `mnemo watch --help` lists them."}`;

export function registerWatch(program: Command): void {
  let apps: string | undefined;
  program.hook("preSubcommand", async (_program, command) => {
    if (command.name() !== "watch") return;
    apps = (await import("../../core/index.js")).appFolderLines(undefined, { watching: true });
  });
  program
    .command("watch")
    .description(
      "import each new chat export (`mnemo import --help` lists the formats) that appears in a folder such as ~/Downloads, once it has finished downloading, and coding agents' sessions (~/.claude/projects, ~/.codex/sessions) as they go on, until Ctrl-C (`mnemo service install --watch` does it at every login)",
    )
    .argument("[folders...]", "folders to watch")
    .option("--apps", "also the folders where coding agents on this machine keep their sessions (Claude Code, Codex, Gemini CLI…)")
    .option(
      "--settle <seconds>",
      "how long a file's size and time must hold before it is imported (a slow network share may need more)",
      "3",
    )
    .option("--session-settle <seconds>", "how long a coding agent's session must pause before it is imported again", "30")
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
            watched.map(({ folder, sessionsOf }) =>
              watchFolder({
                folder,
                stateFile: paths.watchState,
                stableMs,
                sessionStableMs,
                sessionsOf,
                // Looked at as often as a file must hold, up to every 2 s.
                intervalMs: Math.min(2_000, stableMs),
                importFile: (file) => (via === "server" ? uploadExports(service, [file], { wait: false }) : importExports(service, [file])),
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
