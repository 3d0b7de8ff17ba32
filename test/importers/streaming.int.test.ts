// The bench generator's output goes through the importer end to end (a small size here; the
// 600 MB memory check is run by hand, see test/bench/generate-chatgpt-export.mjs).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";

const generator = fileURLToPath(new URL("../bench/generate-chatgpt-export.mjs", import.meta.url));

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-stream-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("generated ChatGPT export", () => {
  it("imports every generated conversation, valid, with progress reaching the total", async () => {
    const path = join(tmp, "conversations.json");
    const run = spawnSync(process.execPath, [generator, path, "4"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    const generated = Number(/wrote (\d+) conversations/.exec(run.stderr)?.[1]);
    const reader = await openExport(path);
    expect(reader.format).toBe("chatgpt");
    expect(reader.totalBytes).toBe((await stat(path)).size);
    let count = 0;
    for await (const conversation of reader.conversations()) {
      UploadConversation.parse(conversation);
      const roles = conversation.conversation.messages.map((m) => m.role);
      expect(roles[0]).toBe("human"); // the hidden context message and system root are skipped
      count += 1;
    }
    expect(count).toBe(generated);
    expect(count).toBeGreaterThan(100);
    expect(reader.bytesRead()).toBe(reader.totalBytes);
  });

  it("writes only valid Unicode unless asked to cut an emoji in half, which the importer then repairs", async () => {
    // 30 MB each: the seeded generator's first title that ends mid-emoji is conversation 993's.
    const clean = join(tmp, "clean.json");
    const cut = join(tmp, "cut.json");
    for (const [path, flags] of [
      [clean, []],
      [cut, ["--cut-emoji"]],
    ] as const) {
      expect(spawnSync(process.execPath, [generator, path, "30", ...flags], { encoding: "utf8" }).status).toBe(0);
    }
    const titles = (path: string) => (JSON.parse(readFileSync(path, "utf8")) as { title: string }[]).map((record) => record.title);
    const [whole, halved] = [titles(clean), titles(cut)];
    expect(whole.filter((title) => !title.isWellFormed())).toEqual([]);
    const broken = halved.flatMap((title, i) => (title.isWellFormed() ? [] : [i]));
    expect(broken.length).toBeGreaterThan(0);
    for (const i of broken) expect(halved[i]!.slice(0, -1)).toBe(whole[i]);
    const reader = await openExport(cut);
    let count = 0;
    for await (const _ of reader.conversations()) count += 1;
    expect(count).toBe(halved.length);
    expect(reader.repaired().map((repair) => repair.record)).toEqual(broken.map((i) => i + 1));
  });
});
