// Zed's threads imported through the CLI (the import runs in a worker thread, so on the compiled
// code, where fzstd is loaded from the package as installed): found by --apps in XDG's data folder.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of Zed's threads", () => {
  it("--apps finds threads.db and the text threads; imported again, nothing new; a torn database is refused, what is stored kept", async () => {
    const home = tempDir("mnemo-zed-home-");
    const zed = join(home, ".local", "share", "zed");
    cpSync(join(fixtures, "zed", "threads"), join(zed, "threads"), { recursive: true });
    cpSync(join(fixtures, "zed", "conversations"), join(zed, "conversations"), { recursive: true });
    const env = isolatedEnv({ HOME: home, XDG_DATA_HOME: join(home, ".local", "share") });
    const first = await runCli(["import", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Imported 5 new conversations");
    const again = await runCli(["import", join(zed, "threads", "threads.db")], { env });
    expect(again.stderr).toContain("Nothing new: all 3 conversations were already imported");
    const torn = join(tempDir("mnemo-zed-"), "threads.db");
    writeFileSync(torn, readFileSync(join(zed, "threads", "threads.db")).subarray(0, 6_000));
    const refused = await runCli(["import", torn], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("threads.db: a SQLite database that cannot be read");
    const found = await runCli(["search", "abort it in the same cleanup", "--json"], { env });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain("Debounce the search box");
  });
});
