// Page Assist's database in a Chrome profile imported through the CLI (the import runs in a worker thread,
// on the compiled code): --apps finds it; the data export of the same chats then adds nothing.
// Seconds: two runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipSources } from "../../src/importers/zip.js";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of Page Assist's database in a browser profile", () => {
  it("--apps finds it in a Chrome profile; its data export, imported after, is nothing new", async () => {
    const home = tempDir("mnemo-page-assist-home-");
    const profile = join(home, ".config", "google-chrome", "Profile 2");
    for (const source of await zipSources(join(fixtures, "page-assist-chrome-profile.zip"))) {
      const chunks: Buffer[] = [];
      for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
      mkdirSync(dirname(join(profile, source.path)), { recursive: true });
      writeFileSync(join(profile, source.path), Buffer.concat(chunks));
    }
    writeFileSync(join(home, ".config", "google-chrome", "Local State"), JSON.stringify({ profile: { info_cache: { "Profile 2": {} } } }));
    const env = isolatedEnv({ HOME: home });
    const first = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      "Page Assist (~/.config/google-chrome/Profile 2/IndexedDB/chrome-extension_jfgfiigpkhlkbnfnbobbkinehhfdhndo_0.indexeddb.leveldb)",
    );
    expect(first.stderr).toContain("Imported 6 new conversations");
    const exported = join(fixtures, "page-assist", "page-assist-2026-04-20T08_05_00.000Z.json");
    const again = await runCli(["import", "--no-wait", exported], { env });
    expect(again.stderr).toContain("Nothing new: all 5 conversations were already imported");
  });
});
