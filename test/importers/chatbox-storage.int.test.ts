// Chatbox's data folder imported through the CLI (the import runs in a worker thread, on the compiled
// code): --apps finds it in the apps' settings folder; the export of the same sessions then adds nothing.
// Seconds: two runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipSources } from "../../src/importers/zip.js";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of Chatbox's data folder", () => {
  it("--apps finds it in the settings folder; its data export, imported after, is nothing new", async () => {
    const home = tempDir("mnemo-chatbox-home-");
    const folder = join(home, ".config", "xyz.chatboxapp.ce");
    for (const source of await zipSources(join(fixtures, "chatbox-userdata.zip"))) {
      const chunks: Buffer[] = [];
      for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
      mkdirSync(dirname(join(folder, source.path)), { recursive: true });
      writeFileSync(join(folder, source.path), Buffer.concat(chunks));
    }
    const env = isolatedEnv({ HOME: home });
    const first = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Found on this machine:\n  Chatbox (~/.config/xyz.chatboxapp.ce)");
    expect(first.stderr).toContain("Imported 3 new conversations");
    const again = await runCli(["import", "--no-wait", join(fixtures, "chatbox", "chatbox-exported-data-2025-3-5.json")], { env });
    expect(again.stderr).toContain("Nothing new: all 2 conversations were already imported");
  });
});
