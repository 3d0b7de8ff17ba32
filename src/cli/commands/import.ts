import type { Command } from "commander";
import type { ImportSummary } from "../../core/importing.js";
import { useLeanAllocator } from "../../core/lean-allocator.js";
import type { Output } from "../output.js";
import { importInThread, type ImportCommandOptions } from "../import-thread.js";
import { action } from "../session.js";
import { startSpinner } from "../spinner.js";

export function registerImport(program: Command): void {
  program
    .command("import")
    .description("import chat exports: ChatGPT or Claude (zip or conversations.json), Gemini Takeout, or mnemo's upload shape")
    .argument("<paths...>", "export files, zips or folders")
    .option("--platform <id>", "record the conversations under this platform id")
    .option("--dry-run", "read and check everything, store nothing")
    .option("--no-wait", "return once stored; processing finishes in the background (mnemo serve, or the next import)")
    .action(
      action(async (session, paths: string[], options: ImportCommandOptions) => {
        const { out } = session;
        await useLeanAllocator();
        const spinner = await startSpinner("Reading exports", { json: out.json });
        try {
          const summary = await importInThread(
            { globals: session.options, paths, options },
            { status: (text) => spinner.text(text), notice: (text) => out.notice(text) },
          );
          spinner.stop();
          report(out, summary, options.wait);
          if (summary.files.some((file) => file.error) || summary.failed > 0) process.exitCode = 1;
        } catch (error) {
          spinner.stop();
          throw error;
        }
      }),
    );
}

function report(out: Output, summary: ImportSummary, waited: boolean): void {
  if (out.json) return out.data(summary);
  const total = summary.new + summary.updated + summary.unchanged + summary.failed;
  const verb = summary.dryRun ? "Checked" : "Imported";
  out.success(
    `${verb} ${total} conversations: ${summary.new} new, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.rejected} rejected, ${summary.failed} failed`,
  );
  for (const problem of summary.problems) {
    out.warn(problem.conversation ? `${problem.conversation}: ${problem.reason}` : problem.reason);
    if (problem.suggestion) out.notice(`  → ${problem.suggestion}`);
  }
  if (!waited && !summary.dryRun && summary.new + summary.updated > 0) {
    out.notice("Indexing continues in the background: see `mnemo chats status`.");
  }
}
