import fs from "node:fs";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import type { Command } from "commander";
import { AppError } from "../../shared/errors.js";
import { counted, type Output } from "../output.js";
import { action, withApp, withService, type Session } from "../session.js";
import { startSpinner, type Spinner } from "../spinner.js";

interface ExportOptions {
  allUsers?: boolean;
  vectors: boolean;
}

const EXPORT_HELP = `
The file holds everything of the user: memories with their versions and images, buckets,
conversations with their messages, pins and exclusions, and import records, one record a line
(JSON Lines, gzip when the name ends in .gz). \`mnemo import <file>\` restores it: into an empty
store exactly as it was, into one that holds some of it by adding only what is missing.
--all-users writes every user of this machine's store, with the hashes of their tokens (never
the tokens), so that their plugins keep working after a restore. Keep the file as private as the
store: it holds the whole history.`;

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("back up everything of a user (or --all-users) to one file, which `mnemo import` restores")
    .argument("[file]", "a .jsonl or .jsonl.gz file, or - for stdout (default: mnemo-export-<date>.jsonl.gz)")
    .option("--all-users", "every user of this machine's store")
    .option("--no-vectors", "leave out the vectors: a third of the size, but a restore embeds everything again")
    .addHelpText("after", EXPORT_HELP)
    .action(
      action(async (session, file: string | undefined, options: ExportOptions) => {
        const target = file ?? defaultName(Boolean(options.allUsers));
        if (target !== "-" && fs.existsSync(target) && !session.options.yes) {
          throw AppError.invalid("file", `${target} exists`, "Pass another name, or --yes to replace it.");
        }
        const write = (lines: AsyncIterable<string>) => writeExport(session.out, lines, target);
        const query = { vectors: options.vectors };
        const records = options.allUsers
          ? await withApp(session, async (app) => write(await (await import("../../core/index.js")).exportAllUsers(app, query)))
          : await withService(session, async (service) => write(await service.export(query)));
        report(session, target, records);
      }),
    );
}

function defaultName(allUsers: boolean): string {
  return `mnemo-export${allUsers ? "-all" : ""}-${new Date().toISOString().slice(0, 10)}.jsonl.gz`;
}

/**
 * Streams the lines into the file (through gzip for a .gz name), showing progress; the file appears
 * under its name only once whole, readable by its owner only. Returns the records written, by type.
 */
async function writeExport(out: Output, lines: AsyncIterable<string>, target: string): Promise<Record<string, number>> {
  const progress = await startSpinner("Exporting", { json: out.json });
  const tally = new LineTally(progress);
  const toStdout = target === "-";
  const partial = `${target}.partial`;
  try {
    const source = Readable.from(tally.count(lines));
    if (toStdout) await pipeline(source, process.stdout, { end: false });
    else if (target.endsWith(".gz")) await pipeline(source, createGzip(), fs.createWriteStream(partial, { mode: 0o600 }));
    else await pipeline(source, fs.createWriteStream(partial, { mode: 0o600 }));
    if (!toStdout) fs.renameSync(partial, target);
  } catch (error) {
    if (!toStdout) fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    progress.stop();
  }
  return tally.records;
}

/** Counts the lines as they pass, for the progress bar (the header says how many to expect) and the summary (the end record). */
class LineTally {
  records: Record<string, number> = {};
  private expected = 0;
  private done = 0;
  private shownAt = 0;

  constructor(private readonly progress: Spinner) {}

  async *count(lines: AsyncIterable<string>): AsyncGenerator<string> {
    let first = true;
    for await (const line of lines) {
      if (first) this.expected = sumOf((JSON.parse(line) as { expected?: Record<string, number> }).expected ?? {});
      else if (line.startsWith('{"type":"end"')) this.records = (JSON.parse(line) as { records: Record<string, number> }).records;
      else this.done++;
      first = false;
      this.show();
      yield line;
    }
  }

  private show(): void {
    const now = Date.now();
    if (now - this.shownAt < 100) return;
    this.shownAt = now;
    const share = this.expected > 0 ? Math.min(1, this.done / this.expected) : 0;
    this.progress.text(
      `Exporting ${bar(share)} ${Math.round(share * 100)}% · ${this.done.toLocaleString("en")} of ${this.expected.toLocaleString("en")} records`,
    );
  }
}

function bar(share: number, width = 24): string {
  const filled = Math.round(share * width);
  return `▕${"█".repeat(filled)}${"░".repeat(width - filled)}▏`;
}

function sumOf(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

function report(session: Session, target: string, records: Record<string, number>): void {
  const { out } = session;
  const bytes = target === "-" ? undefined : fs.statSync(target).size;
  if (out.json) {
    if (target !== "-") out.data({ file: target, bytes, records });
    return;
  }
  const parts = [
    counted(records["user"] ?? 0, "user"),
    `${records["memory"] ?? 0} ${records["memory"] === 1 ? "memory" : "memories"}`,
    counted(records["bucket"] ?? 0, "bucket"),
    counted(records["conversation"] ?? 0, "conversation"),
  ];
  const where = target === "-" ? "stdout" : `${target} (${((bytes ?? 0) / 1048576).toFixed(1)} MB)`;
  out.success(`Exported ${parts.join(", ")} to ${where}`);
}
