import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { AppError } from "../../shared/errors.js";
import { counted } from "../output.js";
import { byteSize } from "../../web/format.js";
import { action, type Session } from "../session.js";
import { startSpinner } from "../spinner.js";

interface ExportOptions {
  allUsers?: boolean;
  vectors: boolean;
}

const EXPORT_HELP = `
The file holds everything of the user: memories with their versions and images, buckets,
conversations with their messages, pins and exclusions, and import records, one record a line
(JSON Lines, gzip when the name ends in .gz). \`mnemo import <file>\` restores it: into an empty
store exactly as it was, into one that holds some of it by adding only what is missing. The trash
is not in it: restore from it first what the backup should hold.
--all-users writes every user of this machine's store, with the hashes of their tokens (never
the tokens), so that their plugins keep working after a restore. Keep the file as private as the
store: it holds the whole history.`;

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("back up everything of a user (or --all-users) to one file, which `mnemo import` restores")
    .argument("[file]", "a .jsonl or .jsonl.gz file, or - for stdout (default: mnemo-export-<date>.jsonl.gz)")
    .option("--all-users", "every user of this machine's store")
    .option("--no-vectors", "leave out the vectors: a far smaller file, but a restore embeds everything again")
    .addHelpText("after", EXPORT_HELP)
    .action(
      action(async (session, file: string | undefined, options: ExportOptions) => {
        const target = file ?? defaultName(Boolean(options.allUsers));
        if (target !== "-") checkTarget(target, session.options.yes);
        // Loaded when run: a command sent to a server loads only what it needs (src/README.md).
        const { exportInThread } = await import("../export-thread.js");
        const spinner = await startSpinner("Exporting", session);
        try {
          const records = await exportInThread(
            { globals: session.options, target, allUsers: Boolean(options.allUsers), vectors: options.vectors },
            { status: (text) => spinner.text(text), notice: (text) => session.out.notice(text) },
            session.io,
          );
          spinner.stop();
          report(session, target, records);
        } finally {
          spinner.stop();
        }
      }),
    );
}

/** The file can be written, before the store is opened: not over a file unasked, nor into a folder that is not there. */
function checkTarget(target: string, replace: boolean | undefined): void {
  if (fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) {
    throw AppError.invalid("file", `${target} is a folder`, "Pass a file name, such as backup.jsonl.gz, in it or elsewhere.");
  }
  if (fs.existsSync(target) && !replace) throw AppError.invalid("file", `${target} exists`, "Pass another name, or --yes to replace it.");
  const folder = path.dirname(path.resolve(target));
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw AppError.invalid(
      "file",
      `cannot write ${target}: there is no folder ${folder}`,
      "Create the folder first, or pass a file in one that exists.",
    );
  }
  try {
    fs.accessSync(folder, fs.constants.W_OK);
  } catch {
    throw AppError.invalid(
      "file",
      `cannot write ${target}: you may not write in ${folder}`,
      "Pass a file in a folder of your own, such as your home folder.",
    );
  }
}

function defaultName(allUsers: boolean): string {
  return `mnemo-export${allUsers ? "-all" : ""}-${new Date().toISOString().slice(0, 10)}.jsonl.gz`;
}

function report(session: Session, target: string, records: Record<string, number>): void {
  const { out } = session;
  const bytes = target === "-" ? undefined : fs.statSync(target).size;
  if (out.json) {
    if (target !== "-") out.data({ file: target, bytes, records });
    return;
  }
  const memories = records["memory"] ?? 0;
  const parts = [
    counted(records["user"] ?? 0, "user"),
    `${memories} ${memories === 1 ? "memory" : "memories"}`,
    counted(records["bucket"] ?? 0, "bucket"),
    counted(records["conversation"] ?? 0, "conversation"),
  ];
  const where = target === "-" ? "stdout" : `${target} (${byteSize(bytes ?? 0)})`;
  out.success(`Exported ${parts.join(", ")} to ${where}`);
}
