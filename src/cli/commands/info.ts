import type { Command } from "commander";
import { byteSize } from "../../web/format.js";
import { counted } from "../output.js";
import { action, withService } from "../session.js";

/** 3,000 rather than 3000, as every other count the CLI prints. */
const number = (count: number) => count.toLocaleString("en-US");

export function registerInfo(program: Command): void {
  program
    .command("info")
    .description("the embedder, reranker and synthesizer in use, the data dir, and what your store holds")
    .action(
      action(async (session) => {
        await withService(
          session,
          async (service) => {
            const info = await service.info();
            if (session.out.json) return session.out.data(info);
            const { statistics: s } = info;
            const rows: [string, string][] = [
              ["User", info.user],
              ["mnemo", info.version],
              ["Data dir", info.dataDir],
              ["Store", info.storeUri],
              [
                "Embedder",
                `${info.embedder.spec} (${info.embedder.id === info.embedder.spec ? "" : `${info.embedder.id}, `}${info.embedder.dims} dimensions)`,
              ],
              ["Chunks", `up to ${number(info.chunks.tokens)} tokens`],
              ["Reranker", info.reranker],
              ["Synthesizer", info.synthesizer],
              ["Memories", `${number(s.memories)} (${counted(s.imageMemories, "image")}) in ${counted(s.buckets, "bucket")}`],
              [
                "Conversations",
                `${number(s.conversations)}: ${number(s.byStatus.ready)} ready, ${number(s.byStatus.queued + s.byStatus.processing)} to process, ${number(s.byStatus.failed)} failed, ${number(s.byStatus.rejected)} rejected; ${number(s.excluded)} excluded, ${number(s.pinned)} pinned`,
              ],
              ["Messages", `${number(s.messages)} (${counted(s.tokens, "token")})`],
              ["Platforms", s.platforms.map((p) => `${p.id} ${number(p.conversations)}`).join(", ") || "none"],
              ["On disk", s.diskBytes === null ? "(object storage)" : byteSize(s.diskBytes)],
            ];
            for (const [label, value] of rows) session.out.line(`${`${label}:`.padEnd(15)}${value}`);
            if (info.chunks.note) session.out.notice(info.chunks.note);
          },
          { existing: true },
        );
      }),
    );
}
