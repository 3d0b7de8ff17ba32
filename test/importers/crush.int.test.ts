// Crush's databases imported through the CLI (the import runs in a worker thread, on the compiled
// code): --apps finds each project's crush.db through the projects.json Crush keeps in XDG's data folder.
// Seconds: three runs of the CLI on a store of its own, the bundled embedder indexing what is imported.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

describe("mnemo import of Crush's sessions", () => {
  it("--apps finds the crush.db of each project projects.json lists; imported again, nothing new", async () => {
    const home = tempDir("mnemo-crush-home-");
    const project = join(home, "src", "tides");
    mkdirSync(join(project, ".crush"), { recursive: true });
    copyFileSync(join(fixtures, "crush", "crush.db"), join(project, ".crush", "crush.db"));
    mkdirSync(join(home, ".local", "share", "crush"), { recursive: true });
    const list = { projects: [{ path: project, data_dir: join(project, ".crush"), last_accessed: "2026-08-20T09:00:00Z" }] };
    writeFileSync(join(home, ".local", "share", "crush", "projects.json"), JSON.stringify(list, null, 2));
    const env = isolatedEnv({ HOME: home });
    const first = await runCli(["import", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Found on this machine:\n  Crush (~/src/tides/.crush/crush.db)");
    expect(first.stderr).toContain("Imported 2 new conversations");
    const again = await runCli(["import", join(project, ".crush")], { env });
    expect(again.stderr).toContain("Nothing new: all 2 conversations were already imported");
    const found = await runCli(["search", "every time after midnight lands on the next day", "--json"], { env });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain("Tide table parsing past midnight");
  });
});
