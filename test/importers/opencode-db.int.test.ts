// OpenCode's opencode.db imported through the CLI (the import runs in a worker thread, so on the compiled code).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

const storage = join(fixtures, "opencode", "storage");
const database = join(fixtures, "opencode-db", "opencode.db");

describe("mnemo import of OpenCode's opencode.db", () => {
  // Seconds: runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
  it("after the storage files it was copied from, finds nothing new; a torn one is refused and what is stored kept", async () => {
    const env = isolatedEnv();
    const first = await runCli(["import", "--no-wait", storage], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Imported 2 new conversations");
    const again = await runCli(["import", "--no-wait", database], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Nothing new: all 2 conversations were already imported");
    const torn = join(tempDir("mnemo-opencode-db-"), "opencode.db");
    writeFileSync(torn, readFileSync(database).subarray(0, 12_000));
    const refused = await runCli(["import", "--no-wait", torn], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("opencode.db: a SQLite database that cannot be read");
    const last = await runCli(["import", "--no-wait", database], { env });
    expect(last.stderr).toContain("Nothing new: all 2 conversations were already imported");
  });
});
