// The memories an export holds (Claude's memories.json and projects.json), stored through the
// service on a real store: each once, in a bucket named for its source, dated; a changed one a new
// version; one the user edited or moved left as it is.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import { importExports } from "../../../src/core/jobs/import-file.js";
import { importOutcome } from "../../../src/core/jobs/import-outcome.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { MemoryObject } from "../../../src/schemas/memories.js";
import { openTestApp, ROOT, tempDir } from "../../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");
const MEMORIES = path.join(EXPORTS, "claude-memories", "memories.json");
const MEMORY = "Claude's memory (account 5d2e8f1a)";
const WORK = `${MEMORY}, "Work context"`;

let app: App;
let service: MnemoService;

beforeAll(async () => {
  app = await openTestApp();
  service = await app.service();
});
afterAll(async () => {
  await app.close();
});

async function memories(): Promise<MemoryObject[]> {
  return (await service.memories.listV2({ all: true, includeIds: true })).memories as MemoryObject[];
}
/** The memories labelled so (their day left off), with an aside or without. */
const labelled = async (label: string) =>
  (await memories()).filter((memory) => [": ", " ("].some((after) => memory.text.slice(11).startsWith(`${label}${after}`)));

/** A copy of the export's memories.json with one section's text replaced. */
function changedMemories(from: string, to: string): string {
  const file = path.join(tempDir(), "memories.json");
  fs.writeFileSync(file, fs.readFileSync(MEMORIES, "utf8").replace(from, to));
  return file;
}

describe("memories from a Claude export", () => {
  it("a dry run counts them and stores nothing", async () => {
    const summary = await importExports(service, [path.join(EXPORTS, "claude-memories-export.zip")], { dryRun: true });
    expect(summary.memories).toEqual({ new: 13, updated: 0, unchanged: 0, failed: 0, buckets: ["Claude memories", "Claude projects"] });
    expect(await memories()).toEqual([]);
    expect((await service.buckets.list()).map((bucket) => bucket.name)).toEqual(["General"]);
  });

  it("stores each in the bucket named for its source, its day first, with the conversations", async () => {
    const summary = await importExports(service, [path.join(EXPORTS, "claude-memories-export.zip")]);
    expect(summary.memories).toEqual({ new: 13, updated: 0, unchanged: 0, failed: 0, buckets: ["Claude memories", "Claude projects"] });
    expect(summary.files).toMatchObject([{ format: "claude", conversations: 1, memories: 13 }]);
    expect(summary.new).toBe(1);
    const buckets = await service.buckets.list();
    expect(buckets.map((bucket) => [bucket.name, bucket.memoryCount])).toEqual([
      ["General", 0],
      ["Claude memories", 9],
      ["Claude projects", 4],
    ]);
    const [work] = await labelled(WORK);
    expect(work!.metadata.bucketName).toBe("Claude memories");
    expect(work!.text).toMatch(/^\d{4}-\d{2}-\d{2} /);
    expect(work!.text.slice(11)).toMatch(/^Claude's memory \(account 5d2e8f1a\), "Work context": Rui is opening Fermento do Porto/);
    const [instructions] = await labelled("Claude project 0199a1b2");
    expect(instructions!.text).toMatch(/^2025-05-18 Claude project 0199a1b2 \(Fermento do Porto\): Opening plan for the bakery\n/); // its last change (TZ=UTC)
    // Found as any memory is: by its words.
    const found = await service.memories.listV2({ query: "broa de milho recipe opening day loaves", includeIds: true });
    expect((found.memories as MemoryObject[]).map((memory) => memory.id)).toContain((await labelled(`${MEMORY}, "Top of mind"`))[0]!.id);
  });

  it("importing the same export again adds nothing", async () => {
    const before = (await memories()).length;
    const again = await importExports(service, [path.join(EXPORTS, "claude-memories-export.zip")]);
    expect(again.memories).toEqual({ new: 0, updated: 0, unchanged: 13, failed: 0, buckets: ["Claude memories", "Claude projects"] });
    expect(again.unchanged).toBe(1);
    expect((await memories()).length).toBe(before);
  });

  it("a memory the export words otherwise now becomes a new version of it, the old text in its history", async () => {
    const file = changedMemories("and bakes every loaf himself", "and now has an apprentice, Joana, who bakes the morning loaves");
    const summary = await importExports(service, [file]);
    expect(summary.memories).toMatchObject({ new: 0, updated: 1, unchanged: 8 });
    // Said by what changed, as every face says it; a new one besides leads the sentence.
    const words = { noun: ["memory", "memories"], failed: "not read" } as const;
    expect(importOutcome(summary.memories, words)).toBe("Imported 1 updated memory; 8 unchanged");
    expect(importOutcome({ ...summary.memories, new: 2, failed: 1 }, { ...words, where: ", in “Work”" })).toBe(
      "Imported 2 new memories, 1 updated, in “Work”; 8 unchanged; 1 not read",
    );
    expect(importOutcome({ new: 0, updated: 0, unchanged: 1 }, { ...words, dryRun: true })).toBe(
      "Nothing new: the memory is already imported",
    );
    // A dry run that read nothing it could import says what an import would do, as "Would import 2 …" does.
    expect(importOutcome({ new: 0, updated: 0, unchanged: 0, failed: 1 }, { ...words, dryRun: true })).toBe(
      "Nothing would be imported; 1 not read",
    );
    expect(importOutcome({ new: 0, updated: 0, unchanged: 0 }, { ...words, dryRun: true })).toBe(
      "Nothing would be imported: no memories to import",
    );
    const [work] = await labelled(WORK);
    expect(work!.text).toContain("an apprentice, Joana");
    const history = await service.memories.history(work!.id!);
    expect(history.versions.map((version) => version.text.includes("bakes every loaf himself"))).toEqual([true, false]);
    // The export imported before the change is not taken for a newer word: nothing changes back. Alone,
    // memories.json names no project, and the project's memories keep the name they have.
    expect((await importExports(service, [MEMORIES])).memories).toMatchObject({ new: 0, updated: 0, unchanged: 9 });
    expect((await labelled(WORK))[0]!.text).toContain("an apprentice, Joana");
    expect((await labelled(`Claude's memory of project 0199a1b2, "Current state"`))[0]!.text).toContain(
      "(Fermento do Porto): Prices are set",
    );
  });

  it("a memory the user edited or moved to another bucket is left as it is, not stored again", async () => {
    const [personal] = await labelled(`${MEMORY}, "Personal context"`);
    const mine = (await service.buckets.create({ name: "About me" })).bucket;
    await service.memories.update({ memoryId: personal!.id!, bucketId: Number(mine.id) });
    const [top] = await labelled(`${MEMORY}, "Top of mind"`);
    const edited = `${top!.text} (Opening moved to 21 June.)`;
    await service.memories.update({ memoryId: top!.id!, text: edited });
    const summary = await importExports(service, [path.join(EXPORTS, "claude-memories-export.zip")]);
    expect(summary.memories).toMatchObject({ new: 0, updated: 0, unchanged: 13 });
    expect((await labelled(`${MEMORY}, "Top of mind"`)).map((memory) => memory.text)).toEqual([edited]);
    expect((await labelled(`${MEMORY}, "Personal context"`)).map((memory) => memory.metadata.bucketName)).toEqual(["About me"]);
  });

  it("another account's memories (the 2026 layout) are its own, in the same buckets", async () => {
    const summary = await importExports(service, [path.join(EXPORTS, "claude-memories-2026")]);
    expect(summary.memories).toEqual({ new: 7, updated: 0, unchanged: 0, failed: 0, buckets: ["Claude memories", "Claude projects"] });
    expect(summary.files).toMatchObject([{ format: "claude", conversations: 0, memories: 7 }]);
    const names = (await service.buckets.list()).map((bucket) => bucket.name);
    expect(names.filter((name) => name.startsWith("Claude"))).toEqual(["Claude memories", "Claude projects"]);
  });
});
