// LobeHub desktop's database folder imported through the CLI (the import runs in a worker thread, on the
// compiled code, PGlite loaded there): --apps finds it in Electron's userData; the data export of the same
// chats, imported after, is nothing new. Seconds: PGlite starts on a copy of the folder, two CLI runs on a
// store of their own. --no-wait: what is read and stored, not its indexing, is the subject.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipSources } from "../../src/importers/zip.js";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

/** Every file of a folder and a hash of its bytes: what reading it must leave as it was. */
function contentsOf(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return files;
}

describe("mnemo import of LobeHub desktop's database folder", () => {
  it("--apps finds it in the settings folder and reads it from a copy, the folder left as it was; its data export, imported after, is nothing new", {
    timeout: 120_000,
  }, async () => {
    const home = tempDir("mnemo-lobehub-home-");
    const storage = join(home, ".config", "LobeHub", "lobehub-storage");
    for (const source of await zipSources(join(fixtures, "lobehub-local-db.zip"))) {
      const chunks: Buffer[] = [];
      for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
      mkdirSync(dirname(join(storage, source.path)), { recursive: true });
      writeFileSync(join(storage, source.path), Buffer.concat(chunks));
    }
    const env = isolatedEnv({ HOME: home });
    const before = contentsOf(storage);
    const first = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(contentsOf(storage)).toEqual(before); // no postmaster.pid, no recovery written into the app's own
    expect(first.stderr).toContain("Found on this machine:\n  LobeChat (~/.config/LobeHub/lobehub-storage/lobehub-local-db)");
    expect(first.stderr).toContain("Imported 4 new conversations");
    const again = await runCli(["import", "--no-wait", join(fixtures, "lobechat", "2025-06-14-09-12_LobeChat-data.json")], { env });
    expect(again.stderr).toContain("Nothing new: all 4 conversations were already imported");
  });
});
