// Kimi Code CLI's sessions imported through the CLI beside Kimi CLI's: --apps finds both folders, and a
// session Kimi Code's /upgrade copied from Kimi CLI is kept beside Kimi CLI's, each as its app shows it.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of Kimi Code CLI's sessions", () => {
  // Seconds: four runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
  it("a session /upgrade copied from Kimi CLI stays beside Kimi CLI's, and a second --apps changes neither", async () => {
    const home = tempDir("mnemo-kimi-code-home-");
    cpSync(join(fixtures, "kimi-cli", "sessions"), join(home, ".kimi", "sessions"), { recursive: true });
    const env = isolatedEnv({ HOME: home });
    const cli = await runCli(["import", "--no-wait", join(home, ".kimi", "sessions")], { env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain("Imported 3 new conversations");
    cpSync(join(fixtures, "kimi-code", "sessions"), join(home, ".kimi-code", "sessions"), { recursive: true });
    const code = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(code.code, code.stderr).toBe(0);
    const listed = await runCli(["chats", "list", "--json"], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const chats = (JSON.parse(listed.stdout) as { items: { title: string; platform: string }[] }).items;
    expect(chats.map((chat) => [chat.platform, chat.title]).sort()).toEqual([
      ["kimi-cli", "Exportar kelp para CSV"],
      ["kimi-cli", "Salinity drops at 02:00"],
      ["kimi-cli", "Why does the harbour tide chart skip the 29th of February?"],
      ["kimi-code", "Salinity drops at 02:00"],
      ["kimi-code", "Tide gauge offset"],
    ]);
    // Stored as one, each run replaced the other's text: the copy (from a compacted context) and Kimi CLI's wire.
    const again = await runCli(["--json", "import", "--no-wait", "--apps"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ new: 0, updated: 0 });
  });
});
