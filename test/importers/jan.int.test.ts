// Jan's threads imported through the CLI (the import runs in a worker thread, on the compiled code):
// --apps finds the threads folder of the data folder Jan's settings.json names.
// Seconds: two runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of Jan's threads", () => {
  it("--apps finds the threads of the data folder settings.json names; imported again, nothing new", async () => {
    const home = tempDir("mnemo-jan-home-");
    const data = join(home, "Documents", "jan-data");
    cpSync(join(fixtures, "jan", "threads"), join(data, "threads"), { recursive: true });
    mkdirSync(join(home, ".local", "share", "Jan"), { recursive: true });
    writeFileSync(join(home, ".local", "share", "Jan", "settings.json"), JSON.stringify({ data_folder: data }));
    const env = isolatedEnv({ HOME: home });
    const first = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Found on this machine:\n  Jan (~/Documents/jan-data/threads)");
    expect(first.stderr).toContain("Imported 2 new conversations");
    const again = await runCli(["import", "--no-wait", join(data, "threads")], { env });
    expect(again.stderr).toContain("Nothing new: all 2 conversations were already imported");
  });
});
