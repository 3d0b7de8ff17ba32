import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Journal, journalDamage, type JournalEntry } from "../../src/store/journal.js";
import { tempDir } from "../temp-dirs.js";

/** Absorbs everything pending, returning what the absorber was given. */
async function absorbAll(journal: Journal): Promise<JournalEntry[]> {
  const seen: JournalEntry[] = [];
  await journal.absorb(async (entries) => void seen.push(...entries));
  return seen;
}

const segments = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith(".log"));

/** A segment name as a process with this pid on this machine would write it. */
function segmentOf(pid: number): string {
  return `${crc32(os.hostname()).toString(16).padStart(8, "0")}-${pid}-test.log`;
}

function line(record: unknown): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, "0")}${json}\n`;
}

/** The pid of a process that has exited. */
function exitedPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

describe("the write-ahead journal", () => {
  it("hands appended records to the absorber once, in order, and those appended together share one write", async () => {
    const dir = tempDir();
    const journal = new Journal(dir);
    expect(journal.hasPending()).toBe(false);
    await Promise.all([journal.append([{ n: 1 }, { n: 2 }]), journal.append([{ n: 3 }]), journal.append([{ n: 4 }])]);
    expect(journal.hasPending()).toBe(true);
    expect((await absorbAll(journal)).map((entry) => entry.record)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(journal.hasPending()).toBe(false);
    expect(await absorbAll(journal)).toEqual([]);
    await journal.append([{ n: 5 }]);
    expect((await absorbAll(journal)).map((entry) => entry.record)).toEqual([{ n: 5 }]);
  });

  it("sees what another process appended, and either may absorb it", async () => {
    const dir = tempDir();
    const writer = new Journal(dir);
    const reader = new Journal(dir);
    await writer.append([{ from: "writer" }]);
    expect(reader.hasPending()).toBe(true);
    expect((await absorbAll(reader)).map((entry) => entry.record)).toEqual([{ from: "writer" }]);
    // The writer learns from the progress file that its record is absorbed.
    expect(writer.hasPending()).toBe(false);
    expect(await absorbAll(writer)).toEqual([]);
  });

  it("marks the records of a round that failed as maybe stored, and only those", async () => {
    const dir = tempDir();
    const journal = new Journal(dir);
    await journal.append([{ n: 1 }]);
    await expect(journal.absorb(async () => Promise.reject(new Error("killed")))).rejects.toThrow("killed");
    await journal.append([{ n: 2 }]);
    expect((await absorbAll(journal)).map(({ record, uncertain }) => [record, uncertain])).toEqual([
      [{ n: 1 }, true],
      [{ n: 2 }, false],
    ]);
    await journal.append([{ n: 3 }]);
    expect((await absorbAll(journal)).map((entry) => entry.uncertain)).toEqual([false]);
  });

  it("leaves a line cut short for its live writer to finish, and skips one an exited writer left", async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    const live = path.join(dir, segmentOf(process.pid));
    const gone = path.join(dir, segmentOf(exitedPid()));
    const whole = line({ n: 1 });
    const cut = line({ n: 2 });
    fs.writeFileSync(live, whole + cut.slice(0, 10));
    fs.writeFileSync(gone, whole + cut.slice(0, 10));
    const journal = new Journal(dir);
    expect((await absorbAll(journal)).map((entry) => entry.record)).toEqual([{ n: 1 }, { n: 1 }]);
    expect(journal.hasPending()).toBe(true); // the live writer's line is not finished yet
    fs.appendFileSync(live, cut.slice(10));
    expect((await absorbAll(journal)).map((entry) => entry.record)).toEqual([{ n: 2 }]);
    expect(journal.hasPending()).toBe(false);
    // The exited writer's segment is absorbed and gone; the live one stays for its writer.
    expect(segments(dir)).toEqual([path.basename(live)]);
  });

  it("an append that fails is not kept, and the next one goes to a new segment", async () => {
    const dir = tempDir();
    const journal = new Journal(dir);
    await journal.append([{ n: 1 }]);
    const probe = await fs.promises.open(path.join(dir, "probe"), "w");
    const handles = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const datasync = handles.datasync;
    handles.datasync = () => Promise.reject(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    try {
      await expect(journal.append([{ n: 2 }])).rejects.toThrow(/Input\/output error/);
    } finally {
      handles.datasync = datasync;
    }
    await journal.append([{ n: 3 }]);
    expect(segments(dir)).toHaveLength(2);
    expect((await absorbAll(journal)).map((entry) => entry.record)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(segments(dir)).toHaveLength(1); // the first, sealed and absorbed, is gone
  });

  it("skips a line whose checksum fails and reads on after it", async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, segmentOf(exitedPid())), `${line({ n: 1 })}00000000{"n":"garbled"}\n${line({ n: 3 })}`);
    expect((await absorbAll(new Journal(dir))).map((entry) => entry.record)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it("keeps a line whose checksum fails in damaged/, once, where journalDamage counts it before and after the absorb", async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    const segment = segmentOf(exitedPid());
    fs.writeFileSync(path.join(dir, segment), `${line({ n: 1 })}00000000{"n":"garbled"}\n${line({ n: 3 })}`);
    expect(journalDamage(dir).lines).toBe(1);
    const journal = new Journal(dir);
    let fail = true;
    // A round that stops midway reads the line again: it is kept once.
    await expect(journal.absorb(async () => (fail ? Promise.reject(new Error("disk gone")) : undefined))).rejects.toThrow("disk gone");
    fail = false;
    await absorbAll(journal);
    expect(segments(dir)).toEqual([]);
    expect(fs.readFileSync(path.join(dir, "damaged", segment), "utf8")).toBe('00000000{"n":"garbled"}\n');
    expect(journalDamage(dir)).toEqual({ lines: 1, folder: path.join(dir, "damaged") });
    // A segment whose lines left are damaged ones alone is read past, and goes.
    const only = segmentOf(exitedPid());
    fs.writeFileSync(path.join(dir, only), '00000000{"n":"garbled"}\n');
    await absorbAll(journal);
    expect(segments(dir)).toEqual([]);
    expect(journal.hasPending()).toBe(false);
    expect(journalDamage(dir).lines).toBe(2);
  });

  it("deletes this process's segment once sealed and absorbed, and never a live writer's", async () => {
    const dir = tempDir();
    const mine = new Journal(dir);
    const other = new Journal(dir);
    await mine.append([{ n: 1 }]);
    await other.append([{ n: 2 }]);
    await absorbAll(mine);
    expect(segments(dir)).toHaveLength(2);
    mine.seal();
    expect(mine.hasSealed()).toBe(true);
    await absorbAll(mine);
    expect(mine.hasSealed()).toBe(false);
    expect(segments(dir)).toHaveLength(1); // the other journal's, whose process still runs
    await mine.append([{ n: 3 }]); // a new segment
    expect((await absorbAll(other)).map((entry) => entry.record)).toEqual([{ n: 3 }]);
  });

  it("lists the records not absorbed yet, any process's, and tells when an absorb has moved some or stopped midway", async () => {
    const dir = tempDir();
    const writer = new Journal(dir);
    const reader = new Journal(dir);
    const decode = (record: unknown) => (record as { n: number }).n;
    expect(reader.pending(decode).records).toEqual([]);
    await writer.append([{ n: 1 }, { n: 2 }]);
    const first = reader.pending(decode);
    expect(first.records).toEqual([1, 2]);
    expect(first.interrupted).toBe(false);
    await absorbAll(writer);
    expect(reader.progressStamp()).not.toBe(first.stamp); // what was listed may be in the table now
    await writer.append([{ n: 3 }]);
    expect(reader.pending(decode).records).toEqual([3]);
    await expect(writer.absorb(async () => Promise.reject(new Error("killed")))).rejects.toThrow("killed");
    expect(reader.pending(decode)).toMatchObject({ records: [3], interrupted: true });
    await absorbAll(reader);
    expect(reader.pending(decode)).toMatchObject({ records: [], interrupted: false });
  });
  it("lists its own records and another process's as each is appended, however the progress file moved meanwhile", async () => {
    const dir = tempDir();
    const mine = new Journal(dir);
    const other = new Journal(dir);
    const decode = (record: unknown) => (record as { n: number }).n;
    /** What `mine` lists, checked against what no absorb has stored: each such record is listed; one listed that was stored is told by the stamp. */
    const listed = (unabsorbed: number[]) => {
      const { records, stamp } = mine.pending(decode);
      expect(records).toEqual(expect.arrayContaining(unabsorbed));
      if (records.some((n) => !unabsorbed.includes(n))) expect(mine.progressStamp()).not.toBe(stamp);
      return records;
    };
    await mine.append([{ n: 1 }]);
    expect(listed([1])).toEqual([1]);
    await mine.append([{ n: 2 }]);
    expect(listed([1, 2])).toEqual([1, 2]); // its own second record, listed after the first listing
    await other.append([{ n: 3 }]);
    expect(listed([1, 2, 3])).toEqual([1, 2, 3]);
    await absorbAll(other); // another process absorbs all three
    await mine.append([{ n: 4 }]);
    listed([4]);
    await absorbAll(other);
    await mine.append([{ n: 5 }]); // only its own segment grew since: 4 may be listed, then the stamp says so
    listed([5]);
    await absorbAll(mine);
    await other.append([{ n: 6 }]);
    await mine.append([{ n: 7 }]);
    expect(listed([6, 7]).sort()).toEqual([6, 7]);
    mine.seal(); // a sealed segment of its own is still listed until absorbed, beside the next one
    await mine.append([{ n: 8 }]);
    expect(listed([6, 7, 8]).sort()).toEqual([6, 7, 8]);
    await absorbAll(mine);
    expect(mine.pending(decode).records).toEqual([]);
  });
});
