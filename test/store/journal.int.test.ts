import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import type { MemoryObject } from "../../src/schemas/memories.js";
import { Journal } from "../../src/store/journal.js";
import { BIN, isolatedEnv, openTestApp, runCli, serveStore, tempDir } from "../helpers.js";

/**
 * Memory writes are acknowledged once they are in the store's journal (store/journal.ts) and reach
 * the tables later. Whatever process reads must still see every one acknowledged before its read:
 * a CLI command beside a running server, and a process started after one that was killed.
 */
describe("memories acknowledged through the journal", () => {
  it("a CLI remember beside a running server is in the server's answers at once, and the server's in the CLI's", async () => {
    const served = await serveStore();
    // --local: the CLI opens the store itself, in a process of its own, rather than asking the server.
    const local = isolatedEnv({ MNEMO_STORE: served.dataDir, MNEMO_EMBEDDER: "bundled" });
    const auth = { authorization: `Bearer ${served.token}`, "content-type": "application/json" };
    try {
      expect((await runCli(["--local", "remember", "The bike lock code is 4471"], { env: local })).code).toBe(0);
      const listed = await request(`${served.url}/api/memory?all=true&v=1`, { headers: auth });
      expect(await listed.body.json()).toEqual([expect.stringContaining("The bike lock code is 4471")]);

      const posted = await request(`${served.url}/api/memory`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ text: "The plumber comes on Thursday" }),
      });
      expect(posted.statusCode).toBe(200);
      const { memoryId } = (await posted.body.json()) as { memoryId: string };
      // No pause: the server has just appended it to its journal.
      const found = await runCli(["--local", "--json", "memories", "--query", "when does the plumber come"], { env: local });
      expect(found.code).toBe(0);
      expect(found.stdout).toContain(memoryId);
      const history = await runCli(["--local", "--json", "memories", "history", memoryId], { env: local });
      expect(JSON.parse(history.stdout).versions).toHaveLength(1);
    } finally {
      await served.stop();
    }
  });

  it("a process killed after acknowledging leaves its journal, and the next one stores each memory once", async () => {
    const dataDir = path.join(tempDir(), "store");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--store", dataDir],
      env: isolatedEnv({ MNEMO_EMBEDDER: "bundled" }) as Record<string, string>,
      stderr: "ignore",
    });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    const texts = Array.from({ length: 5 }, (_, i) => `acknowledged before the crash ${i}`);
    const ids: string[] = [];
    for (const text of texts) {
      const result = await client.callTool({ name: "store_memory", arguments: { text } });
      ids.push((result.structuredContent as { memoryId: string }).memoryId);
    }
    process.kill(transport.pid!, "SIGKILL");
    await client.close().catch(() => undefined);
    // Killed before it absorbed them (it waits for a pause in writes): they are in its journal only.
    expect(new Journal(path.join(dataDir, "journal")).hasPending()).toBe(true);

    const app = await openTestApp({ store: dataDir });
    const service = await app.service();
    const all = (await service.memories.listV2({ all: true, includeIds: true })).memories as MemoryObject[];
    expect(all.map((memory) => memory.id).sort()).toEqual([...ids].sort());
    expect(all.map((memory) => memory.text).sort()).toEqual([...texts].sort());
    await app.close();
    // Absorbed, and the dead process's segment is gone with it.
    expect(fs.readdirSync(path.join(dataDir, "journal")).filter((name) => name.endsWith(".log"))).toEqual([]);
  });
});
