// AnythingLLM's anythingllm.db imported through the CLI (the import runs in a worker thread, so on the compiled code).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

const database = join(fixtures, "anythingllm", "anythingllm.db");

describe("mnemo import of AnythingLLM's anythingllm.db", () => {
  // Seconds: runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
  it("imported again, finds nothing new; a torn one is refused and what is stored kept", async () => {
    const env = isolatedEnv();
    const first = await runCli(["import", "--no-wait", database], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Imported 4 new conversations");
    const again = await runCli(["import", "--no-wait", database], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Nothing new: all 4 conversations were already imported");
    const torn = join(tempDir("mnemo-anythingllm-"), "anythingllm.db");
    writeFileSync(torn, readFileSync(database).subarray(0, 9_000));
    const refused = await runCli(["import", "--no-wait", torn], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("anythingllm.db: a SQLite database that cannot be read");
    const last = await runCli(["import", "--no-wait", database], { env });
    expect(last.stderr).toContain("Nothing new: all 4 conversations were already imported");
  });
});
