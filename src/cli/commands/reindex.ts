import type { Command } from "commander";
import { action, withApp } from "../session.js";

export function registerReindex(program: Command): void {
  program
    .command("reindex")
    .description("re-embed every stored vector, with another embedder if --embedder is given")
    .action(
      action(async (session) => {
        const target = session.options.embedder;
        // Open the store with the embedder it has; --embedder names the one to move to.
        const opened = { ...session, options: { ...session.options, embedder: undefined } };
        await withApp(opened, async (app) => {
          const [{ reindexApp }, { startSpinner }] = await Promise.all([import("../../core/reindex.js"), import("../spinner.js")]);
          const spinner = await startSpinner("Loading the embedder", { json: session.out.json });
          try {
            const result = await reindexApp(app, target, ({ table, done, total }) => spinner.text(`Re-embedding ${table}: ${done}/${total}`));
            spinner.stop();
            if (session.out.json) session.out.data(result);
            else session.out.success(`Re-embedded ${result.rows.memories} memories and ${result.rows.chunks} chunks with ${result.embedderId}`);
          } catch (error) {
            spinner.stop();
            session.out.warn("Reindex stopped; the store still uses its previous vectors.");
            throw error;
          }
        });
      }),
    );
}
