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
          const [{ reindexApp }, { startSpinner }] = await Promise.all([import("../../core/index.js"), import("../spinner.js")]);
          const spinner = await startSpinner("Loading the embedder", session);
          const stopped = () => {
            spinner.stop();
            session.out.warn("Reindex stopped; the store still uses its previous vectors.");
          };
          const stopWatching = onInterrupt(stopped);
          try {
            const result = await reindexApp(app, target, ({ table, done, total }) =>
              spinner.text(`Re-embedding ${table}: ${done}/${total}`),
            );
            spinner.stop();
            if (session.out.json) session.out.data(result);
            else
              session.out.success(
                `Re-embedded ${result.rows.memories} memories and ${result.rows.chunks} chunks with ${result.embedderId}`,
              );
          } catch (error) {
            stopped();
            throw error;
          } finally {
            stopWatching();
          }
        });
      }),
    );
}

/**
 * Runs `said` on Ctrl-C or SIGTERM, then lets the signal end the process as it would have (exit
 * 130 or 143, the locks released on the way out). Returns a function that stops watching.
 */
function onInterrupt(said: () => void): () => void {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const stop = () => signals.forEach((signal) => process.off(signal, handle));
  const handle = (signal: NodeJS.Signals) => {
    stop();
    said();
    process.kill(process.pid, signal);
  };
  signals.forEach((signal) => process.on(signal, handle));
  return stop;
}
