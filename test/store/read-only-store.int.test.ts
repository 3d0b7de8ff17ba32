import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { asUserChmodBinds, isolatedEnv, runCli, tempDir } from "../helpers.js";

describe("a store whose folder you may not write in", () => {
  it("every write says so in one message, with what to check; reads work", async () => {
    const home = tempDir();
    const parent = tempDir();
    const store = path.join(parent, "store");
    const env = isolatedEnv({ HOME: home, MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["remember", "The ferry leaves every 20 minutes"], { env })).code).toBe(0);
    spawnSync("chmod", ["-R", "a-w", store]);
    // The journal's write (remember) and the store's write lock (buckets create) were told apart.
    for (const args of [
      ["remember", "Another fact"],
      ["buckets", "create", "Travel"],
    ]) {
      const result = await asUserChmodBinds(args, env, [home, parent], []);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toContain(`✖ The store at ${store} could not be written: its file system answered "Permission denied"`);
      expect(result.stderr).toContain("Your user may not use the folder: check its owner and permissions");
      expect(result.stderr).not.toContain("dmesg");
    }
    const listed = await asUserChmodBinds(["memories"], env, [], []);
    expect(listed.stdout).toContain("The ferry leaves every 20 minutes");
  });
});
