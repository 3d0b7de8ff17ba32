import type { Command } from "commander";
import { CHUNK_TOKENS } from "../../config/chunk-size.js";
import type { ReindexProgress, ReindexResult } from "../../core/index.js";
import { action, withApp } from "../session.js";
import { onInterrupt } from "../interrupt.js";
import { startSpinner } from "../spinner.js";

export function registerReindex(program: Command): void {
  program
    .command("reindex")
    .description(
      "re-embed every stored vector, with another embedder if --embedder is given; --rechunk cuts the chat history into chunks again first",
    )
    .option(
      "--rechunk",
      `cut every conversation into chunks again, of config.json's chunkTokens (default ${CHUNK_TOKENS.default}), and embed them`,
    )
    .action(
      action(async (session, options: { rechunk?: true }) => {
        const rechunk = options.rechunk === true;
        // The store is opened as it is: making it what --embedder or --rechunk ask is this command's work.
        await withApp(
          session,
          async (app) => {
            const { reindexApp } = await import("../../core/index.js");
            const spinner = await startSpinner("Loading the embedder", session);
            const stopped = () => {
              spinner.stop();
              session.out.warn("Reindex stopped; the store still uses its previous vectors and chunks.");
            };
            const stopWatching = onInterrupt(stopped);
            try {
              const result = await reindexApp(app, { rechunk }, (progress) => spinner.text(progressLine(progress)));
              spinner.stop();
              if (session.out.json) session.out.data(result);
              else session.out.success(doneLine(result));
            } catch (error) {
              stopped();
              throw error;
            } finally {
              stopWatching();
            }
          },
          { reindexing: true },
        );
      }),
    );
}

function progressLine({ what, done, total }: ReindexProgress): string {
  return `${what === "conversations" ? "Re-chunking conversations" : `Re-embedding ${what}`}: ${done}/${total}`;
}

function doneLine({ rows, rechunked, memoriesEmbedded, chunkTokens, embedderId }: ReindexResult): string {
  if (!rechunked) return `Re-embedded ${rows.memories} memories and ${rows.chunks} chunks with ${embedderId}`;
  const chunks = `Re-chunked the chat history into ${rows.chunks} chunks of up to ${chunkTokens} tokens, embedded with ${embedderId}`;
  return memoriesEmbedded ? `${chunks}, and re-embedded ${rows.memories} memories` : chunks;
}
