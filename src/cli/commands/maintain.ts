import type { Command } from "commander";
import { useLeanAllocator } from "../../shared/lean-allocator.js";
import { action, withApp } from "../session.js";

export function registerMaintain(program: Command): void {
  program
    .command("maintain")
    .description("compact the store and bring its indexes up to date (runs by itself in the background)")
    .option("--if-needed", "only the tables that need it, as the automatic runs do")
    .option("--quiet", "print nothing")
    .action(
      action(async (session, options: { ifNeeded?: boolean; quiet?: boolean }) => {
        await useLeanAllocator();
        const { useFewerIoThreads } = await import("../../core/index.js");
        await useFewerIoThreads();
        await withApp(
          session,
          async (app) => {
            const ran = options.ifNeeded ? await app.maintenance.runIfNeeded() : await app.maintenance.run();
            if (options.quiet) return;
            if (session.out.json) return session.out.data({ optimized: ran });
            if (ran) session.out.success("Store compacted and indexed");
            else if (options.ifNeeded) session.out.notice("Nothing needed it, or another process is maintaining the store right now.");
            else session.out.notice(busyNotice(app.maintenance.runningElsewhere()));
          },
          { leaveJournal: true },
        );
      }),
    );
}

function busyNotice(pid: number | undefined): string {
  const who = pid === undefined ? "Another process" : `Another process (pid ${pid})`;
  return `${who} is maintaining the store right now: it carries on by itself; run \`mnemo maintain\` again once it has finished if you want a run of your own.`;
}
