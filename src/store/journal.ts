import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { processRuns } from "../shared/processes.js";
import { storageFaultOr } from "./write-lock.js";

/** A record read back from the journal, and whether an absorb that stopped midway may have stored it already. */
export interface JournalEntry {
  record: unknown;
  uncertain: boolean;
}

/** What absorbs records into the store's tables: called under the store's write lock, once per round. */
export type Absorber = (entries: JournalEntry[]) => Promise<void>;

/** A segment past this size is sealed once absorbed, and the next append starts a new one. */
const ROTATE_BYTES = 4 * 1024 * 1024;
/** Bytes read per absorb round, so that a journal left long unabsorbed is stored in commits of bounded size. */
const ROUND_BYTES = 8 * 1024 * 1024;
const PROGRESS_FILE = "absorbed.json";
/** Where lines whose checksum fails are kept, as they were, once an absorb has read past them. */
const DAMAGED_DIR = "damaged";
const SEGMENT = /^([0-9a-f]{8})-(\d+)-[0-9a-z]+\.log$/;

/** How far each segment has been absorbed, and the ranges an absorb was storing when it stopped. */
interface Progress {
  offsets: Record<string, number>;
  /** Set before a round stores its records and cleared after: found set, those records may be stored already. */
  absorbing: Record<string, [number, number]>;
}

/** A segment this process appends to. */
interface OwnSegment {
  name: string;
  handle: fs.promises.FileHandle;
  size: number;
  /** Appends under way on it: it is deleted only once none is. */
  writing: number;
  sealed: boolean;
  /**
   * The JSON of each record appended and synced, by offset, until known absorbed: `pending` takes
   * them from here rather than reading back the bytes this process wrote itself.
   */
  lines: { json: string; offset: number }[];
}

interface ParsedSegment {
  start: number;
  end: number;
  records: { value: unknown; offset: number }[];
  decode: (record: unknown) => unknown;
}

interface Waiting {
  json: string[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * A write-ahead journal in front of some of the store's tables: a write is acknowledged once its
 * record is appended and `fdatasync`ed here (a third of a millisecond), and the records are
 * absorbed into LanceDB later, many per commit, under the store's write lock. Each process appends
 * to segments of its own (`<host>-<pid>-<id>.log`, one JSON record a line behind its CRC-32), so
 * appends take no lock between processes; any process may absorb any segment, and `absorbed.json`,
 * written under the write lock, says how far. A round writes the ranges it is about to store into
 * that file first, so that the round after a crash knows which records to look for before storing
 * them again. A segment is deleted once absorbed and sealed (its owner rotates it, or has exited).
 */
export class Journal {
  private own: OwnSegment | undefined;
  private readonly sealed = new Set<OwnSegment>();
  private queue: Waiting[] = [];
  private flushing = false;
  /** The absorbed offsets last read or written, so that most checks need no read of the progress file. */
  private known: Record<string, number> = {};
  private readonly host = hostTag(os.hostname());
  /** The records `pending` has parsed, per segment, from `start` (absorbed) to `end` (read). */
  private readonly parsed = new Map<string, ParsedSegment>();
  /**
   * The progress file as `pending` last read it. While only this process's own segments hold
   * records past what is known absorbed, it is not read again: an absorb by another process since
   * then only makes `pending` show records that are in the table too (a read takes the table's),
   * and `moved`, comparing with this older text, says so. Forgotten whenever this process writes it.
   */
  private seen: { stamp: string; progress: Progress } | undefined;

  constructor(private readonly dir: string) {}

  /** Appends records durably; those that arrive while an append is under way share the next write and sync. */
  append(records: unknown[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const json = records.map((record) => JSON.stringify(record));
    return new Promise((resolve, reject) => {
      this.queue.push({ json, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.write(batch.flatMap((waiting) => waiting.json));
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        // A full disk or a failing one is said as every write of the store says it.
        const fault = storageFaultOr(error, path.dirname(this.dir));
        for (const waiting of batch) waiting.reject(fault);
      }
    }
    this.flushing = false;
  }

  private async write(json: string[]): Promise<void> {
    const segment = await this.ownSegment();
    const lines = json.map(encodeLine);
    const bytes = Buffer.from(lines.join(""));
    segment.writing++;
    try {
      // Written from here (into the page cache: microseconds), synced on the thread pool: one trip there per append, not two.
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(segment.handle.fd, bytes, at, bytes.length - at);
      await segment.handle.datasync();
      let offset = segment.size;
      for (const [index, line] of lines.entries()) {
        segment.lines.push({ json: json[index]!, offset });
        offset += Buffer.byteLength(line);
      }
      segment.size += bytes.length;
    } catch (error) {
      // A partial line (a full disk) must not stay at the end of the segment, and its place must not
      // be taken by the next append: another process may have read past it already. So the segment
      // is cut back to what was acknowledged and sealed; the next append starts a new one.
      await segment.handle.truncate(segment.size).catch(() => undefined);
      this.seal();
      throw error;
    } finally {
      segment.writing--;
    }
  }

  private async ownSegment(): Promise<OwnSegment> {
    if (this.own && !this.own.sealed) return this.own;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const name = `${this.host}-${process.pid}-${Date.now().toString(36)}${randomBytes(4).toString("hex")}.log`;
    const handle = await fs.promises.open(path.join(this.dir, name), "a", 0o600);
    syncDir(this.dir); // the new file's name is as durable as what is written to it
    this.own = { name, handle, size: 0, writing: 0, sealed: false, lines: [] };
    return this.own;
  }

  /**
   * Whether any segment may hold records not absorbed yet: one directory listing, and a look at
   * the progress file only when a segment has grown past what was last known absorbed.
   */
  hasPending(): boolean {
    const sizes = this.segmentSizes();
    if (!sizes.some(([name, size]) => size > (this.known[name] ?? 0))) return false;
    this.learn(this.readProgress().offsets);
    return sizes.some(([name, size]) => size > (this.known[name] ?? 0));
  }

  /**
   * Call under the store's write lock. Hands every record not absorbed yet to `absorber`, a round
   * of at most ROUND_BYTES at a time, then deletes the segments that are absorbed and sealed.
   * Records appended while it runs are left for the next call. Returns how many it handed over.
   */
  async absorb(absorber: Absorber): Promise<number> {
    const progress = this.readProgress();
    const targets = new Map(this.segmentSizes());
    let absorbed = 0;
    for (;;) {
      const round = this.readRound(progress, targets);
      // A range of damaged lines alone is read past too (they are kept aside): else it stays pending.
      if (Object.keys(round.ranges).length === 0) break;
      absorbed += round.entries.length;
      progress.absorbing = { ...progress.absorbing, ...round.ranges };
      this.writeProgress(progress);
      if (round.entries.length > 0) await absorber(round.entries);
      for (const [name, [, end]] of Object.entries(round.ranges)) progress.offsets[name] = end;
      // Ranges of a crashed round are settled once every segment they cover has been read past them.
      progress.absorbing = Object.fromEntries(
        Object.entries(progress.absorbing).filter(([name, [, end]]) => (progress.offsets[name] ?? 0) < end),
      );
      this.writeProgress(progress);
    }
    await this.removeAbsorbed(progress);
    return absorbed;
  }

  /**
   * Every record not absorbed yet, in any process's segment, in the order of each segment: what a
   * read shows beside the tables. The segments' sizes are read before the progress file (or the
   * one read before them is taken: progressFor), so a record absorbed meanwhile is shown (and in
   * the table too), never in neither. `stamp` is that progress file's text, for `progressStamp` to
   * tell whether any was absorbed since; `interrupted` says an absorb stopped midway (its records
   * may be in the table already). Each record is parsed once (`decode`) and kept until absorbed;
   * this process's own are taken from memory, not read back from its segment.
   */
  pending<T>(decode: (record: unknown) => T): { records: T[]; stamp: string; interrupted: boolean } {
    const sizes = this.segmentSizes();
    if (!sizes.some(([name, size]) => size > (this.known[name] ?? 0))) return { records: [], stamp: "", interrupted: false };
    const { stamp, progress } = this.progressFor(sizes);
    const records: T[] = [];
    const live = new Set<string>();
    for (const [name, size] of sizes) {
      const from = this.known[name] ?? 0;
      if (size <= from) continue;
      live.add(name);
      let read = this.parsed.get(name);
      if (!read || read.start > from || read.decode !== decode) read = { start: from, end: from, records: [], decode };
      read.records = read.records.filter((record) => record.offset >= from);
      if (read.end < size) read.end = this.readMore(name, read, size);
      this.parsed.set(name, read);
      for (const record of read.records) records.push(record.value as T);
    }
    for (const name of this.parsed.keys()) if (!live.has(name)) this.parsed.delete(name);
    return { records, stamp, interrupted: Object.keys(progress.absorbing).length > 0 };
  }

  /**
   * The progress file's text and content for `pending`: read again unless every segment past what
   * is known absorbed is this process's own, and the file was read since this process last wrote it.
   */
  private progressFor(sizes: [string, number][]): { stamp: string; progress: Progress } {
    const othersPending = sizes.some(([name, size]) => size > (this.known[name] ?? 0) && !this.ownSegmentNamed(name));
    if (this.seen && !othersPending) return this.seen;
    const stamp = this.progressStamp();
    const progress = parseProgress(stamp);
    this.learn(progress.offsets);
    this.seen = { stamp, progress };
    return this.seen;
  }

  /** Parses a segment's records from `read.end` up to `size`: this process's own from memory, others' from the file. Returns the new end. */
  private readMore(name: string, read: ParsedSegment, size: number): number {
    const own = this.ownSegmentNamed(name);
    if (own) {
      for (const { json, offset } of own.lines) if (offset >= read.end) read.records.push({ value: read.decode(JSON.parse(json)), offset });
      return size;
    }
    const more = readRecords(path.join(this.dir, name), read.end, size);
    for (const { record, offset } of more.records) read.records.push({ value: read.decode(record), offset });
    return more.end;
  }

  /** This process's segment of that name, the one it appends to or a sealed one. */
  private ownSegmentNamed(name: string): OwnSegment | undefined {
    if (this.own?.name === name) return this.own;
    for (const segment of this.sealed) if (segment.name === name) return segment;
    return undefined;
  }

  /** Takes these as the absorbed offsets, and forgets the lines of this process's own segments they cover. */
  private learn(offsets: Record<string, number>): void {
    this.known = offsets;
    for (const segment of [...(this.own ? [this.own] : []), ...this.sealed]) {
      const absorbed = offsets[segment.name] ?? 0;
      if (segment.lines[0] && segment.lines[0].offset < absorbed) segment.lines = segment.lines.filter((line) => line.offset >= absorbed);
    }
  }

  /** What changes whenever a record is absorbed, by any process (the progress file's text). */
  progressStamp(): string {
    try {
      return fs.readFileSync(path.join(this.dir, PROGRESS_FILE), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw error;
    }
  }

  /** Whether records wait in a segment whose process has exited: nobody absorbs them unless asked. */
  hasOrphaned(): boolean {
    if (!this.hasPending()) return false;
    return this.segmentSizes().some(
      ([name, size]) => size > (this.known[name] ?? 0) && !this.ownSegmentNamed(name) && this.ownerExited(name),
    );
  }

  /** Whether this process has sealed segments to delete once absorbed. */
  hasSealed(): boolean {
    return this.sealed.size > 0;
  }

  /** Seals this process's segment, so that the next absorb deletes it once absorbed (call before closing the store). */
  seal(): void {
    if (!this.own) return;
    this.own.sealed = true;
    this.sealed.add(this.own);
    this.own = undefined;
  }

  /** Records past each segment's absorbed offset, up to the sizes seen when the absorb began. */
  private readRound(progress: Progress, targets: Map<string, number>): { entries: JournalEntry[]; ranges: Progress["absorbing"] } {
    const entries: JournalEntry[] = [];
    const ranges: Progress["absorbing"] = {};
    let budget = ROUND_BYTES;
    for (const [name, target] of targets) {
      const from = progress.offsets[name] ?? 0;
      if (from >= target || budget <= 0) continue;
      const read = readRecords(path.join(this.dir, name), from, Math.min(target, from + budget));
      this.keepDamaged(name, read.damaged);
      const uncertain = progress.absorbing[name];
      for (const { record, offset } of read.records) {
        entries.push({ record, uncertain: uncertain !== undefined && offset < uncertain[1] && offset >= uncertain[0] });
      }
      // A line cut short by an owner that has exited will never be finished: it was never acknowledged.
      const end = read.end < target && this.ownerExited(name) && target <= from + budget ? target : read.end;
      if (end > from) ranges[name] = [from, end];
      budget -= end - from;
    }
    return { entries, ranges };
  }

  /**
   * Lines of `segment` whose checksum fails (a disk that changed them), kept as they were in
   * `damaged/<segment>` before the absorb moves past them: `mnemo doctor` tells them (journalDamage).
   */
  private keepDamaged(segment: string, lines: Buffer[]): void {
    if (lines.length === 0) return;
    const kept = path.join(this.dir, DAMAGED_DIR);
    fs.mkdirSync(kept, { recursive: true, mode: 0o700 });
    const file = path.join(kept, segment);
    // A round that stopped midway reads them again: each is kept once.
    const known = new Set(fs.existsSync(file) ? fs.readFileSync(file, "latin1").split("\n") : []);
    const fresh = lines.filter((line) => !known.has(line.toString("latin1")));
    if (fresh.length > 0) fs.appendFileSync(file, Buffer.concat(fresh.flatMap((line) => [line, Buffer.from("\n")])), { mode: 0o600 });
  }

  /** Deletes the absorbed segments nobody appends to any more: this process's sealed ones, and those of exited processes. */
  private async removeAbsorbed(progress: Progress): Promise<void> {
    for (const [name, size] of this.segmentSizes()) {
      const own = this.ownSegmentNamed(name);
      if ((progress.offsets[name] ?? 0) < size) continue;
      if (own && !own.sealed && own.size >= ROTATE_BYTES && own.writing === 0) this.seal();
      const gone = own ? own.sealed && own.writing === 0 : this.ownerExited(name);
      if (!gone) continue;
      if (own) {
        this.sealed.delete(own);
        await own.handle.close().catch(() => undefined);
      }
      // The file first: an offset dropped before its file would have the file absorbed again.
      fs.rmSync(path.join(this.dir, name), { force: true });
      delete progress.offsets[name];
    }
    const present = new Set(this.segmentSizes().map(([name]) => name));
    for (const name of Object.keys(progress.offsets)) if (!present.has(name)) delete progress.offsets[name];
    this.writeProgress(progress);
  }

  private ownerExited(name: string): boolean {
    const match = SEGMENT.exec(name);
    return match !== null && match[1] === this.host && !processRuns(Number(match[2]));
  }

  /** Each segment's name and size; this process's own from memory. */
  private segmentSizes(): [string, number][] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return names.flatMap((name): [string, number][] => {
      if (!SEGMENT.test(name)) return [];
      const own = this.ownSegmentNamed(name);
      if (own) return [[name, own.size]];
      try {
        return [[name, fs.statSync(path.join(this.dir, name)).size]];
      } catch {
        return []; // deleted meanwhile
      }
    });
  }

  private readProgress(): Progress {
    return parseProgress(this.progressStamp());
  }

  /** Replaces the progress file in one rename: a reader sees the old one or the new one. */
  private writeProgress(progress: Progress): void {
    const file = path.join(this.dir, PROGRESS_FILE);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(progress), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
    this.learn({ ...progress.offsets });
    this.seen = undefined;
  }
}

function parseProgress(text: string): Progress {
  if (text === "") return { offsets: {}, absorbing: {} };
  const progress = JSON.parse(text) as Partial<Progress>;
  return { offsets: progress.offsets ?? {}, absorbing: progress.absorbing ?? {} };
}

/** One record: its JSON behind the CRC-32 of that JSON (8 hex digits), and a newline. */
function encodeLine(json: string): string {
  return `${crc32(json).toString(16).padStart(8, "0")}${json}\n`;
}

/**
 * The whole lines between `from` and `to` (a line cut short at the end is an append under way, or
 * one a crash cut: left for later, or for ever). A line whose checksum fails is skipped, and handed
 * back in `damaged`.
 */
function readRecords(
  file: string,
  from: number,
  to: number,
): { records: { record: unknown; offset: number }[]; damaged: Buffer[]; end: number } {
  let bytes: Buffer;
  try {
    const fd = fs.openSync(file, "r");
    try {
      bytes = Buffer.alloc(to - from);
      bytes = bytes.subarray(0, fs.readSync(fd, bytes, 0, bytes.length, from));
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], damaged: [], end: from };
    throw error;
  }
  const records: { record: unknown; offset: number }[] = [];
  const damaged: Buffer[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(10); newline >= 0; start = newline + 1, newline = bytes.indexOf(10, start)) {
    const json = bytes.subarray(start + 8, newline);
    if (bytes.toString("latin1", start, start + 8) !== crc32(json).toString(16).padStart(8, "0"))
      damaged.push(bytes.subarray(start, newline));
    else records.push({ record: JSON.parse(json.toString("utf8")), offset: from + start });
  }
  return { records, damaged, end: from + start };
}

/**
 * The journal's records that cannot be read: lines of its segments whose checksum fails, and those
 * kept in `damaged/` by an absorb that read past them. What `mnemo doctor` reports; the folder they
 * are kept in.
 */
export function journalDamage(dir: string): { lines: number; folder: string } {
  const folder = path.join(dir, DAMAGED_DIR);
  let lines = 0;
  const names = (where: string) => (fs.existsSync(where) ? fs.readdirSync(where).filter((name) => SEGMENT.test(name)) : []);
  for (const name of names(folder)) lines += fs.readFileSync(path.join(folder, name), "latin1").split("\n").filter(Boolean).length;
  // Past what was absorbed: what an absorb read past is in the folder already.
  const { offsets } = parseProgress(
    fs.existsSync(path.join(dir, PROGRESS_FILE)) ? fs.readFileSync(path.join(dir, PROGRESS_FILE), "utf8") : "",
  );
  for (const name of names(dir)) {
    const file = path.join(dir, name);
    lines += readRecords(file, offsets[name] ?? 0, fs.statSync(file).size).damaged.length;
  }
  return { lines, folder };
}

function hostTag(host: string): string {
  return crc32(host).toString(16).padStart(8, "0");
}

/** fsync of a folder, so that a file just created in it is found after a crash (not every platform allows it). */
export function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Windows cannot open a folder for fsync; its file system orders the creation itself.
  }
}
