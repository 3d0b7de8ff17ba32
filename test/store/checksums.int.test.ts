import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diagnose } from "../../src/core/operations/doctor.js";
import { repairStore } from "../../src/core/operations/doctor-repair.js";
import { openTestApp, tempDir } from "../helpers.js";

/**
 * A bit flipped inside a value of a Lance data file: LanceDB reads the other value without a word
 * (Lance keeps no checksums of its pages). The checksums the store records of its files
 * (store/checksums.ts) make `mnemo doctor` name it, and `--repair` puts the value back from the
 * other tables.
 */

const TEXT = "The tram 28 goes up to Graça";

/** A store of one memory, closed (which records the checksums of its files). */
async function storeOfOneMemory(): Promise<string> {
  const store = path.join(tempDir(), "store");
  const app = await openTestApp({ store });
  await (await app.service()).memories.store({ text: TEXT });
  await app.close(); // absorbs the journal, and records the checksums of the files written
  expect(fs.existsSync(path.join(store, "checksums.json"))).toBe(true);
  return store;
}

function flipBit(file: string, at: (bytes: Buffer) => number): void {
  const bytes = fs.readFileSync(file);
  bytes[at(bytes)]! ^= 0x01;
  fs.writeFileSync(file, bytes);
}

/** The data files of the store's tables, as the record names them. */
function dataFiles(store: string): string[] {
  const db = path.join(store, "db");
  return fs
    .readdirSync(db)
    .filter((table) => fs.existsSync(path.join(db, table, "data")))
    .flatMap((table) => fs.readdirSync(path.join(db, table, "data")).map((file) => `${table}/data/${file}`));
}

describe("the store's checksums", () => {
  // Needs a second: the files of a write section are recorded a second after it ends.
  it("are recorded soon after a write, by a process that stays open", async () => {
    const store = path.join(tempDir(), "store");
    const app = await openTestApp({ store });
    try {
      await (await app.service()).memories.store({ text: TEXT });
      await app.context.store.settle(); // the journal absorbed: a write section committed the memory
      const record = path.join(store, "checksums.json");
      const recorded = () => (fs.existsSync(record) ? Object.keys(JSON.parse(fs.readFileSync(record, "utf8")) as object) : []);
      await expect.poll(recorded, { timeout: 10_000, interval: 200 }).toEqual(expect.arrayContaining(dataFiles(store)));
      expect(dataFiles(store).some((file) => file.startsWith("memories.lance/"))).toBe(true);
    } finally {
      await app.close();
    }
  }, 60_000);
});

describe("a bit flipped in a file of the store", () => {
  it("is named by mnemo doctor, and --repair rebuilds the row from the other tables", async () => {
    const store = await storeOfOneMemory();
    const data = path.join(store, "db", "memories.lance", "data");
    const flipped = fs.readdirSync(data).find((name) => fs.readFileSync(path.join(data, name)).includes("tram 28"));
    expect(flipped, "the data file holding the memory's text").toBeDefined();
    flipBit(path.join(data, flipped!), (bytes) => bytes.indexOf("tram 28")); // "tram" becomes "uram"

    // A process that stays open, as `mnemo serve` does, while the doctor runs.
    const running = await openTestApp({ store });
    const read = await (await running.service()).memories.listV2({ all: true, includeIds: true });
    expect((read.memories as { text: string }[]).map((memory) => memory.text)).toEqual(["The uram 28 goes up to Graça"]);

    const diagnosis = await diagnose(running.config);
    expect(diagnosis.findings).toEqual([
      expect.objectContaining({
        table: "memories",
        what: `a data file of it has changed since it was written (a bit flipped on disk?): data/${flipped} (1 of 1 rows read)`,
        fix: expect.stringMatching(/^`mnemo doctor --repair` moves the rows of the changed files, as they read, to a file in/),
      }),
    ]);

    // Found, it is refused from then on, by the process that was open and by every command after, as a
    // table LanceDB cannot read is; the rest is served.
    let app = await openTestApp({ store });
    try {
      for (const me of [await running.service(), await app.service()]) {
        await expect(me.memories.listV2({ all: true })).rejects.toThrow(
          /"memories" table is damaged: a data file of it has changed since it was written/,
        );
        await expect(me.memories.store({ text: "A new one" })).rejects.toMatchObject({ suggestion: expect.stringMatching(/mnemo doctor/) });
        expect((await me.conversations.list({})).items).toEqual([]);
      }
    } finally {
      await Promise.all([running.close(), app.close()]);
    }

    const repaired = await repairStore(app.config, diagnosis);
    expect(repaired.plan[0]).toMatch(
      /^memories: made again from the rows of its files that have not changed; the rows of the 1 changed ones/,
    );
    expect(repaired.after.findings, repaired.actions.join("; ")).toEqual([]);
    const aside = repaired.actions.find((action) => action.includes("changed data files"));
    expect(aside, repaired.actions.join("; ")).toMatch(/the 1 rows of its changed data files/);
    const rowsFile = /moved to (\S+\.jsonl)/.exec(aside!)![1]!;
    expect(fs.readFileSync(rowsFile, "utf8")).toContain("The uram 28");

    app = await openTestApp({ store });
    const after = await (await app.service()).memories.listV2({ all: true, includeIds: true });
    await app.close();
    expect((after.memories as { text: string }[]).map((memory) => memory.text)).toEqual([TEXT]);
  }, 120_000);

  it("in an index file: mnemo doctor names the table's indexes, and --repair builds them again", async () => {
    const store = await storeOfOneMemory();
    const indexes = path.join(store, "db", "memories.lance", "_indices");
    const files = (fs.readdirSync(indexes, { recursive: true }) as string[]).filter((file) =>
      fs.statSync(path.join(indexes, file)).isFile(),
    );
    expect(files.length, "the memories' text index").toBeGreaterThan(0);
    // In the padding between its pages (0x48 bytes), which LanceDB does not read: only the checksum tells.
    flipBit(path.join(indexes, files[0]!), (bytes) => bytes.indexOf("HHHHHHHH"));

    const app = await openTestApp({ store });
    await app.close();
    const diagnosis = await diagnose(app.config);
    expect(diagnosis.findings).toEqual([
      expect.objectContaining({
        table: "memories",
        what: `one of its indexes is damaged: an index file of it has changed since it was written (a bit flipped on disk?): _indices/${files[0]}`,
        fix: "`mnemo doctor --repair` builds it again from the rows",
      }),
    ]);
    const repaired = await repairStore(app.config, diagnosis);
    expect(repaired.after.findings, repaired.actions.join("; ")).toEqual([]);
    expect(repaired.actions).toContain("memories: its indexes dropped and built again");
  }, 120_000);
});
