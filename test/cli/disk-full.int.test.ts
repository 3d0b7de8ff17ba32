import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { WriteIntents } from "../../src/store/write-intents.js";
import { isolatedEnv, ROOT, runCli, tempDir } from "../helpers.js";

// A real full disk: a 16 MB tmpfs, which only root can mount (the suite skips this file otherwise).
const disk = tempDir("mnemo-small-disk-");
const mounted = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", disk], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const FILLER = path.join(disk, "filler");

/** Writes until the disk is full. */
function fillDisk(): void {
  const block = Buffer.alloc(256 * 1024);
  const fd = fs.openSync(FILLER, "a");
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    fs.closeSync(fd);
  }
}

/** A data dir set up ahead (not somebody's folder); its models are off the small disk ($MNEMO_MODELS). */
function newDataDir(parent: string, name: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "config.json"), "{}\n");
  return dir;
}

const env = isolatedEnv({ MNEMO_EMBEDDER: "bundled" });

afterEach(() => fs.rmSync(FILLER, { force: true }));

afterAll(() => {
  if (mounted) execFileSync("umount", ["-l", disk]);
});

describe.skipIf(!mounted)("on a full disk", () => {
  it("creating a store fails with what to do, and works once there is room", async () => {
    const store = newDataDir(disk, "new-store");
    fillDisk();
    const full = await runCli(["--store", store, "remember", "--no-date", "first memory"], { env });
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/The disk holding .* is full/);
    expect(full.stderr).toMatch(/Free some space/);

    fs.rmSync(FILLER);
    const roomy = await runCli(["--store", store, "remember", "--no-date", "first memory"], { env });
    expect(roomy.code, roomy.stderr).toBe(0);
    const listed = JSON.parse((await runCli(["--store", store, "--json", "memories"], { env })).stdout);
    expect(listed.memories.map((m: { text: string }) => m.text)).toEqual(["first memory"]);
  });

  it("writes to a store that has filled its disk fail with what to do, and what it held stays", async () => {
    const store = newDataDir(disk, "full-store");
    expect((await runCli(["--store", store, "remember", "--no-date", "stored with room"], { env })).code).toBe(0);
    fillDisk();
    const text = await runCli(["--store", store, "remember", "--no-date", "one too many"], { env });
    expect([text.code, text.stderr]).toEqual([1, expect.stringMatching(/The disk holding .* is full/)]);
    const image = await runCli(["--store", store, "remember", "--image", path.join(ROOT, "fixtures", "images", "red-square.png")], { env });
    expect([image.code, image.stderr]).toEqual([1, expect.stringMatching(/The disk holding .* is full/)]);
    const images = path.join(store, "images");
    const left = fs.existsSync(images) ? fs.readdirSync(images, { recursive: true }).map(String) : [];
    expect(left.filter((name) => name.endsWith(".tmp"))).toEqual([]);

    fs.rmSync(FILLER);
    const listed = JSON.parse((await runCli(["--store", store, "--json", "memories"], { env })).stdout);
    expect(listed.memories.map((m: { text: string }) => m.text)).toEqual(["stored with room"]);
  });

  it("a write whose intent record meets the full disk names the store's folder, the one the user chose", async () => {
    // The record an import's batch writes first: met mid-import by a disk the import itself filled.
    const store = newDataDir(disk, "intents-store");
    fillDisk();
    const intents = new WriteIntents(path.join(store, "unfinished-writes"));
    expect(() => intents.record({ rows: "conversations", userId: "default", ids: ["conv_1"] })).toThrow(
      new RegExp(`^The disk holding ${store} is full$`),
    );
  });

  it("indexing that fills the disk stops with what to do, keeps the queue, and finishes once there is room", async () => {
    const store = newDataDir(disk, "import-store");
    const file = path.join(ROOT, "fixtures", "exports", "chatgpt", "conversations.json");
    const queued = await runCli(["--store", store, "--json", "import", "--no-wait", file], { env });
    expect(queued.code, queued.stderr).toBe(0);

    fillDisk();
    const stalled = await runCli(["--store", store, "chats", "status", "--wait"], { env });
    expect(stalled.code).toBe(1);
    expect(stalled.stderr).toMatch(/The disk holding .* is full/);

    fs.rmSync(FILLER);
    const done = await runCli(["--store", store, "--json", "chats", "status", "--wait"], { env });
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout).counts).toMatchObject({ queued: 0, processing: 0, ready: 4, failed: 0 });
  });
});
