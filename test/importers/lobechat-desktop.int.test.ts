// LobeHub desktop's database folder imported through the CLI (the import runs in a worker thread, on the
// compiled code, PGlite loaded there): --apps finds it in Electron's userData; the data export of the same
// chats, imported after, is nothing new. Seconds: PGlite starts on a copy of the folder, two CLI runs on a
// store of their own, the bundled embedder indexing what is imported.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipSources } from "../../src/importers/zip.js";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of LobeHub desktop's database folder", () => {
  it("--apps finds it in the settings folder; its data export, imported after, is nothing new", { timeout: 120_000 }, async () => {
    const home = tempDir("mnemo-lobehub-home-");
    const storage = join(home, ".config", "LobeHub", "lobehub-storage");
    for (const source of await zipSources(join(fixtures, "lobehub-local-db.zip"))) {
      const chunks: Buffer[] = [];
      for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
      mkdirSync(dirname(join(storage, source.path)), { recursive: true });
      writeFileSync(join(storage, source.path), Buffer.concat(chunks));
    }
    const env = isolatedEnv({ HOME: home });
    const first = await runCli(["import", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Found on this machine:\n  LobeChat (~/.config/LobeHub/lobehub-storage/lobehub-local-db)");
    expect(first.stderr).toContain("Imported 4 new conversations");
    const again = await runCli(["import", join(fixtures, "lobechat", "2025-06-14-09-12_LobeChat-data.json")], { env });
    expect(again.stderr).toContain("Nothing new: all 4 conversations were already imported");
  });
});
