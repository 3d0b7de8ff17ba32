import { Readable } from "node:stream";
import { pipeline } from "node:stream";
import { createGzip } from "node:zlib";
import type { Hono, MiddlewareHandler } from "hono";
import type { WebEnv } from "../guard.js";

/**
 * A backup: the same export as `mnemo export` (core/jobs/export.ts), streamed as it is read from the
 * store and gzipped into a `.jsonl.gz` file, which `mnemo import <file>` restores. Its first line is
 * read before the answer starts, so a store that cannot be read is an error page, not a broken file.
 */
export function registerBackup(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/backup", page, async (c) => {
    const session = c.get("session");
    const vectors = c.req.query("vectors") !== "0";
    const lines = (await session.service.export({ vectors }))[Symbol.asyncIterator]();
    const first = await lines.next();
    const rest = async function* () {
      if (first.done) return;
      yield first.value;
      for (let next = await lines.next(); !next.done; next = await lines.next()) yield next.value;
    };
    const gzipped = pipeline(Readable.from(rest()), createGzip(), () => undefined);
    const day = new Date().toLocaleDateString("sv"); // YYYY-MM-DD, the server's (the user's) day
    return new Response(Readable.toWeb(gzipped) as ReadableStream, {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Disposition": `attachment; filename="mnemo-backup-${session.user.name}-${day}.jsonl.gz"`,
        "Cache-Control": "no-store",
      },
    });
  });
}
