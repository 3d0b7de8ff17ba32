import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandingZip } from "../expanding-zip.js";
import { isolatedEnv, ROOT, serveStore, tempDir } from "../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");

interface Job {
  id: string;
  state: string;
  error?: { message: string; suggestion?: string };
  summary?: { new: number; failed: number };
}

describe("an upload read past the server's import heap limit", () => {
  // Three imports through a real server, the last two indexed: ~10 s.
  it("fails its own import with an error naming the file; the server answers and imports the next upload, nothing stored lost", async () => {
    const store = path.join(tempDir(), "store");
    const served = await serveStore({
      serverEnv: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled", MNEMO_IMPORT_HEAP_MB: "32" }),
    });
    const auth = { authorization: `Bearer ${served.token}` };
    const upload = async (file: string): Promise<Job> => {
      const posted = await fetch(`${served.url}/api/chat-history/imports?filename=${path.basename(file)}`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/octet-stream" },
        body: fs.readFileSync(file),
      });
      let job = (await posted.json()) as Job;
      while (job.state !== "done" && job.state !== "failed") {
        await new Promise((resolve) => setTimeout(resolve, 100));
        job = (await (await fetch(`${served.url}/api/chat-history/imports/${job.id}`, { headers: auth })).json()) as Job;
      }
      return job;
    };
    const count = async () =>
      ((await (await fetch(`${served.url}/api/chat-history/chats`, { headers: auth })).json()) as { total: number }).total;
    try {
      expect(await upload(path.join(EXPORTS, "claude-export.zip"))).toMatchObject({ state: "done", summary: { new: 3, failed: 0 } });
      const hostile = expandingZip(640);
      expect(fs.statSync(hostile).size).toBeLessThan(1024 ** 2);
      const failed = await upload(hostile);
      expect(failed.state).toBe("failed");
      expect(failed.error?.message).toBe("Reading hostile.zip needed more memory than the 32 MB an upload may take");
      expect(failed.error?.suggestion).toMatch(/MNEMO_IMPORT_HEAP_MB=64 mnemo serve/);
      // None of the huge conversation stored, not even a part; what was stored before stays.
      expect(await count()).toBe(3);
      expect(await upload(path.join(EXPORTS, "chatgpt-export.zip"))).toMatchObject({ state: "done", summary: { failed: 0 } });
      expect(await count()).toBeGreaterThan(3);
      expect(fs.readdirSync(path.join(store, "uploads"))).toEqual([]);
    } finally {
      await served.stop();
    }
  });
});
