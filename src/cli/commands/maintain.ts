import type { Command } from "commander";
import { useLeanAllocator } from "../../core/lean-allocator.js";
import { useFewerIoThreads } from "../../core/maintenance.js";
import { action, withApp } from "../session.js";

export function registerMaintain(program: Command): void {
  program
    .command("maintain")
    .description("compact the store and bring its indexes up to date (runs by itself in the background)")
    .option("--quiet", "print nothing")
    .action(
      action(async (session, options: { quiet?: boolean }) => {
        await useLeanAllocator();
        useFewerIoThreads();
        await withApp(session, async (app) => {
          const ran = await app.maintenance.run();
          if (options.quiet) return;
          if (session.out.json) return session.out.data({ optimized: ran });
          if (ran) session.out.success("Store compacted and indexed");
          else session.out.notice("Another process is maintaining the store right now.");
        });
      }),
    );
}
