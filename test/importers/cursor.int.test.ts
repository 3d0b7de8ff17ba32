// Cursor's databases imported through the CLI (the import runs in a worker thread, so on the compiled code).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli } from "../helpers.js";
import { fixtures } from "./collect.js";

const user = join(fixtures, "cursor", "User");
const globalDb = join(user, "globalStorage", "state.vscdb");

describe("mnemo import of Cursor's databases", () => {
  // Seconds: runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
  it("the CLI imports Cursor's User folder, and again finds nothing new", async () => {
    const env = isolatedEnv();
    const first = await runCli(["import", "--no-wait", user], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Imported 4 new conversations");
    const again = await runCli(["import", "--no-wait", globalDb], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Nothing new: all 2 conversations were already imported");
  });
});
