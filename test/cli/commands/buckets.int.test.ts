import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliTarget, runCli } from "../../helpers.js";

/** Bucket rename and delete, `mnemo info` and `token --rotate` — on the store, and through a server (the REST twins). */
describe.each(["embedded", "remote"] as const)("mnemo buckets rename|delete, info (%s)", (mode) => {
  let target: Awaited<ReturnType<typeof cliTarget>>;
  const cli = (...args: string[]) => runCli(args, { env: target.env });
  beforeAll(async () => {
    target = await cliTarget(mode);
  });
  afterAll(() => target.stop());

  it("renames a bucket, refuses a name another bucket has, and renames General too", async () => {
    expect((await cli("buckets", "create", "Trips")).code).toBe(0);
    const renamed = await cli("--json", "buckets", "rename", "Trips", "Travel", "-d", "where I went");
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout).bucket).toMatchObject({ name: "Travel", description: "where I went", memoryCount: 0 });
    const clash = await cli("buckets", "rename", "Travel", "general");
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/A bucket named "General" already exists/);
    expect((await cli("buckets", "rename", "1", "Inbox")).code).toBe(0);
    expect((await cli("buckets", "rename", "Inbox", "General")).code).toBe(0);
    const missing = await cli("buckets", "rename", "Nowhere", "x");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/bucket "Nowhere" does not exist/);
  });

  it("deletes a bucket after asking, moving its memories to General as new versions; never General", async () => {
    const memory = JSON.parse((await cli("--json", "remember", "--no-date", "--bucket", "Travel", "Lisbon in May")).stdout).memoryId;
    const unasked = await cli("buckets", "delete", "Travel");
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/Refusing to delete bucket "Travel" and move its memory to General without confirmation/);
    const deleted = await cli("--json", "--yes", "buckets", "delete", "Travel");
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ message: "Bucket deleted", bucketId: 2, movedMemories: 1, movedTo: 1 });
    const history = JSON.parse((await cli("--json", "memories", "history", memory)).stdout);
    expect(history.versions.map((v: { bucketId: number }) => v.bucketId)).toEqual([2, 1]);
    const shown = (await cli("memories", "history", memory)).stdout;
    expect(shown).toMatch(/^\s*1 .* bucket 2 \(deleted\) +Lisbon in May$/m);
    expect(shown).toMatch(/^\s*2 .* General +Lisbon in May$/m);
    const general = await cli("--yes", "buckets", "delete", "General");
    expect(general.code).toBe(2);
    // In the words the command was given, not the API's field (bucketId: bucket 1).
    expect(general.stderr).toMatch(
      /^✖ "General" is the default bucket, .* it can be renamed but not deleted\n.*mnemo buckets rename "General" <new name>/m,
    );
  });

  it("info tells the embedder, synthesizer, data dir and what the store holds", async () => {
    const info = JSON.parse((await cli("--json", "info")).stdout);
    expect(info).toMatchObject({
      user: "default",
      embedder: { spec: "bundled", dims: 512 },
      synthesizer: "extractive",
      dataDir: target.dataDir,
    });
    expect(info.statistics).toMatchObject({ memories: 1, buckets: 1, conversations: 0 });
    expect(info.statistics.diskBytes).toBeGreaterThan(0);
    expect((await cli("info")).stdout).toMatch(/^Embedder: +bundled \(512 dimensions\)$/m);
  });

  // Last: it changes the server's token. Through the remote mode's server, rather than one more.
  if (mode === "remote") {
    it("token --rotate --remote replaces the token the command was given, which stops working, and the server's token file follows", async () => {
      const rotated = await runCli(["--json", "token", "--rotate", "--remote", target.env["MNEMO_URL"]!], { env: target.env });
      expect(rotated.code, rotated.stderr).toBe(0);
      const { token } = JSON.parse(rotated.stdout) as { token: string };
      await new Promise((resolve) => setTimeout(resolve, 2_100)); // the server's cache of good tokens
      const old = await runCli(["buckets"], { env: target.env });
      expect(old.code).toBe(1);
      expect(old.stderr).toMatch(/Invalid API token/);
      expect((await runCli(["buckets"], { env: { ...target.env, MNEMO_TOKEN: token } })).code).toBe(0);
      expect(fs.readFileSync(path.join(target.dataDir, "token"), "utf8").trim()).toBe(token);
    });
  }
});
