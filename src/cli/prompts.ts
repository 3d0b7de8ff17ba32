import { AppError } from "../shared/errors.js";
import type { CliIo } from "./io.js";

/**
 * Asks before something destructive. `--yes` skips the question; without a terminal to ask on,
 * and without `--yes`, it refuses rather than guessing.
 */
export async function confirmOrAbort(question: string, { options, io }: { options: { yes: boolean }; io: CliIo }): Promise<void> {
  if (options.yes) return;
  if (!io.stdin.isTTY || !io.stderr.isTTY) {
    throw new AppError("invalid_input", `Refusing to ${asClause(question)} without confirmation`, {
      suggestion: "Pass --yes to confirm when not running in a terminal.",
    });
  }
  const { confirm } = await import("@inquirer/prompts");
  const answer = await confirm({ message: question, default: false }, { input: io.stdin, output: io.stderr }).catch((error: unknown) => {
    if (error instanceof Error && error.name === "ExitPromptError") throw new AbortedByUser("interrupted");
    throw error;
  });
  if (!answer) throw new AbortedByUser("declined");
}

/** "Remove user Bob …?" → "remove user Bob …": only the verb is lowered, since names in the question are case-sensitive. */
function asClause(question: string): string {
  const clause = question.replace(/\?$/, "");
  return clause.charAt(0).toLowerCase() + clause.slice(1);
}

/** The user said no (exit code 1), or pressed Ctrl-C at the question (130, as for any interrupted command). */
export class AbortedByUser extends Error {
  constructor(readonly how: "declined" | "interrupted") {
    super("Nothing was changed.");
  }
}
