import type { Command } from "commander";
import type { Config } from "../../config/load-config.js";
import { isRemoteUri } from "../../config/paths.js";
import type { Diagnosis, Finding } from "../../core/index.js";
import { AppError } from "../../shared/errors.js";
import { counted, type Output } from "../output.js";
import { action } from "../session.js";
import { startSpinner } from "../spinner.js";

const DOCTOR_HELP = `
Checks every table: opens it, counts and reads all its rows, checks vectors (finite, not zero, of
the store's dimension) and indexes, and checks the tables against each other (rows of conversations
or users that are gone, memories in a bucket that is gone, rows stored twice). Says which table is
damaged and what to do. Exits 1 when something is wrong.

--repair rebuilds what is missing from what the store still holds, and deletes nothing that can be
read: a damaged table keeps the rows that can still be read (a copy of its files goes to
<data dir>/recovered/, or on S3 to recovered/ below the store's prefix in the bucket); conversations are rebuilt from their messages or their chunks' text, memories
from their newest version, users from their rows' ids, indexes and chunks from the rows, vectors by
embedding again, missing buckets under a new name. Rows a command cut short left behind (messages of
no conversation, versions of no memory) go to a file in the same folder. It says first what it will
do; --dry-run says only that. \`mnemo import <export>\` then puts back what your latest export holds of the rest (and replaces
what was rebuilt by the export's). Stop \`mnemo serve\` first. A damaged meta record is written again
for the embedder the data dir recorded, or the one named with --embedder <spec>.`;

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check every table of the store, say what is damaged and how to recover; --repair rebuilds what can be")
    .option("--repair", "rebuild what is missing from what the store still holds; nothing that can be read is deleted")
    .option("--dry-run", "with --repair: say what it would do, and do nothing")
    .addHelpText("after", DOCTOR_HELP)
    .action(
      action(async (session, options: { repair?: boolean; dryRun?: boolean }) => {
        const { out } = session;
        if (session.options.remote) {
          throw AppError.invalid(
            "--remote",
            "mnemo doctor checks the store of this machine, not a server",
            "Run it on the server's machine.",
          );
        }
        if (options.dryRun && !options.repair)
          throw AppError.invalid("--dry-run", "goes with --repair", "Run `mnemo doctor --repair --dry-run`.");
        const [{ diagnoseStore, repairPlan, repairStore }, { loadConfig }] = await Promise.all([
          import("../../core/index.js"),
          import("../../config/load-config.js"),
        ]);
        const config = loadConfig({ store: session.options.store, embedder: session.options.embedder }, session.io.env);
        if (session.io.env["MNEMO_URL"])
          out.notice(`This command checks the store at ${config.paths.dataDir}, not the server at $MNEMO_URL.`);
        const spinner = await startSpinner("Checking the store", session);
        try {
          const diagnosis = await diagnoseStore(config, (text) => spinner.text(text));
          if (!options.repair || diagnosis.findings.length === 0) {
            spinner.stop();
            if (out.json) out.data(diagnosis);
            else render(out, storeLocation(config), diagnosis, options.repair ? "Nothing to repair." : undefined);
            if (diagnosis.findings.length > 0) session.io.exitCode = 1;
            return;
          }
          const plan = await repairPlan(config, diagnosis);
          spinner.stop();
          if (options.dryRun) {
            if (out.json) out.data({ before: diagnosis, plan });
            else {
              render(out, storeLocation(config), diagnosis);
              printPlan(out, plan, "would");
            }
            session.io.exitCode = 1;
            return;
          }
          if (!out.json) printPlan(out, plan, "will");
          spinner.text("Repairing");
          const result = await repairStore(config, diagnosis, (text) => spinner.text(text), {
            withoutCopies: session.options.yes,
            embedder: session.io.embedder,
          });
          spinner.stop();
          if (out.json) out.data({ before: diagnosis, plan: result.plan, actions: result.actions, after: result.after });
          else {
            for (const done of result.actions) out.success(done);
            render(out, storeLocation(config), result.after);
          }
          if (result.after.findings.length > 0) session.io.exitCode = 1;
        } finally {
          spinner.stop();
        }
      }),
    );
}

/** The data dir of a local store; the URI of one on object storage. */
function storeLocation(config: Config): string {
  return isRemoteUri(config.storeUri) ? config.storeUri : config.paths.dataDir;
}

/**
 * The images table holds pictures' bytes only for a store on object storage: a local one keeps them
 * as files, so its "0 rows" beside `info`'s "1 image" is not a missing picture.
 */
const IMAGES_ELSEWHERE = " (this store keeps image memories' pictures as files in its images folder)";

function render(out: Output, location: string, { health, findings, notes }: Diagnosis, note?: string): void {
  out.line(`Store at ${location}`);
  const width = Math.max(...health.tables.map((table) => table.table.length), 4) + 2;
  const damaged = new Set(findings.map((finding) => finding.table));
  for (const table of health.tables) {
    const problem = table.problem ?? (table.key === "meta" ? health.meta.problem : undefined);
    const mark = problem ? "✖" : damaged.has(table.table) ? "!" : "✔";
    const rows = table.rows === undefined ? "rows unknown" : counted(table.rows, "row");
    const fragments = table.fragments === undefined ? "" : `, ${counted(table.fragments, "fragment")}`;
    const chunks = health.meta.chunkTokens === undefined ? "" : `, chunks of up to ${health.meta.chunkTokens} tokens`;
    const meta = table.key === "meta" && !problem ? ` · embedder ${health.meta.embedderId}, ${health.meta.dims} dimensions${chunks}` : "";
    const where = table.key === "images" && !isRemoteUri(location) ? IMAGES_ELSEWHERE : "";
    out.line(
      `  ${mark} ${table.table.padEnd(width)}${rows}${fragments}, ${counted(table.indexes.length, "index", "indexes")}${meta}${where}`,
    );
  }
  if (health.tables.some((table) => table.problem))
    out.line("  (the tables were checked against each other over the rows that could be read)");
  if (findings.length === 0) out.success("Nothing is wrong with the store");
  else {
    out.line();
    for (const finding of findings) printFinding(out, finding);
    if (note) out.notice(note);
  }
  for (const said of notes) out.notice(said);
}

function printPlan(out: Output, plan: string[], mood: "will" | "would"): void {
  if (plan.length === 0) return;
  out.notice(`mnemo doctor --repair ${mood}, in this order:`);
  for (const step of plan) out.notice(`  • ${step}`);
}

function printFinding(out: Output, finding: Finding): void {
  const line = `${finding.table}: ${finding.what}`;
  if (finding.severity === "damaged") out.error(new AppError("unavailable", line));
  else out.warn(line);
  out.notice(`  → ${finding.fix}`);
  if (finding.detail) out.notice(`    (LanceDB: ${finding.detail})`);
}
