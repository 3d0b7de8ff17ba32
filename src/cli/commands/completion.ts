import { Option, type Command } from "commander";
import { AppError } from "../../shared/errors.js";
import { action, withService } from "../session.js";
import { locateStore } from "../../config/location.js";
import { runningServer } from "../../config/server-info.js";
import { SHELLS, complete, completionLines, completionScript, storedValues } from "../completion.js";

export function registerCompletion(program: Command): void {
  program
    .command("completion")
    .description("print the completion script of a shell (bash, zsh, fish): commands, options, bucket names and ids")
    .argument("[shell]", "bash, zsh or fish")
    .argument("[words...]", "with --complete: the words of the command line being completed (the shell's script passes them)")
    .addOption(new Option("--complete", "what may come after the words given after --").hideHelp())
    .addOption(new Option("--describe", "with --complete: each candidate with its description, after a tab").hideHelp())
    .addHelpText(
      "after",
      `
Load it:
  bash  eval "$(mnemo completion bash)"                            in ~/.bashrc
  zsh   source <(mnemo completion zsh)                             in ~/.zshrc, after compinit
  fish  mnemo completion fish > ~/.config/fish/completions/mnemo.fish`,
    )
    .action(
      action(async (session, shell: string | undefined, words: string[], options: { complete?: boolean; describe?: boolean }) => {
        if (!options.complete) {
          if (!SHELLS.includes(shell as (typeof SHELLS)[number])) {
            throw AppError.invalid(
              "shell",
              `must be one of ${SHELLS.join(", ")}${shell ? `, not "${shell}"` : ""}`,
              "Run `mnemo completion bash` (or zsh, fish).",
            );
          }
          return void session.io.stdout.write(completionScript(shell as (typeof SHELLS)[number]));
        }
        // With --complete, commander reads the first word as the shell.
        const typed = shell === undefined ? words : [shell, ...words];
        const found = complete(program, typed.length === 0 ? [""] : typed);
        if ("candidates" in found) return void session.io.stdout.write(completionLines(found.candidates, Boolean(options.describe)));
        // The store and server the typed command names (--store, --remote…), over those of this one.
        const named = { ...session.options, ...found.globals };
        const location = locateStore({ store: named.store, user: named.user, remote: named.remote, token: named.token }, session.io.env);
        if (!location.remote && !runningServer(location.paths.serverInfo)) return;
        await withService({ ...session, options: named }, async (service) => {
          session.io.stdout.write(completionLines(await storedValues(service, found.kind), Boolean(options.describe)));
        });
      }),
    );
}
