// A read-only reader of LevelDB's files (google/leveldb doc/log_format.md and doc/table_format.md), for
// the Chromium storage folders apps back up (Cherry Studio's IndexedDB and Local Storage): the write-ahead
// .log files and the .ldb/.sst tables, merged as LevelDB reads them (the newest sequence number of a key
// wins; a deletion hides what came before), those the MANIFEST names live (liveFiles): a running app's folder
// holds others. Checksums are checked, so a damaged log record or table block costs only its entries. Files
// are only read: no LOCK is taken, nothing is written.
import { crc32c } from "./crc32c.js";

export interface LevelFile {
  /** The file's name in the database's folder: 000005.ldb, 000004.log. */
  name: string;
  bytes: Buffer;
  /** Not read: past what a folder's files may add up to (folder.ts); counted as damage. */
  tooLarge?: boolean;
}

export interface LevelEntry {
  key: Buffer;
  value: Buffer;
}

export interface LevelRead {
  /** The live entries, in key order (bytewise). */
  entries: LevelEntry[];
  /** Log records and table blocks that could not be read (damaged): what they held is lost. */
  damaged: number;
}

interface Versioned {
  key: Buffer;
  sequence: bigint;
  value: Buffer | undefined; // undefined: deleted
}

const LOG_BLOCK = 32 * 1024;
const LOG_HEADER = 7;
const TABLE_MAGIC = 0xdb4775248b80fb57n;
const FOOTER = 48;
const BLOCK_TRAILER = 5;
const VALUE_TYPE = 1;

/** The database's entries from the files of its folder (others than .log, .ldb and .sst are passed over). */
export async function readLevelDb(files: readonly LevelFile[]): Promise<LevelRead> {
  const newest = new Map<string, Versioned>();
  let damaged = 0;
  const keep = (entry: Versioned) => {
    const id = entry.key.toString("latin1");
    const known = newest.get(id);
    if (known === undefined || known.sequence < entry.sequence) newest.set(id, entry);
  };
  for (const file of files) {
    if (file.tooLarge) damaged++;
    else if (/\.log$/i.test(file.name)) damaged += logEntries(file.bytes, keep);
    else if (/\.(ldb|sst)$/i.test(file.name)) damaged += tableEntries(file.bytes, keep);
  }
  const entries = [...newest.values()]
    .filter((entry): entry is Versioned & { value: Buffer } => entry.value !== undefined)
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ key, value }) => ({ key, value }));
  return { entries, damaged };
}

// --- the log: 32 KB blocks of records, a write batch cut into fragments across blocks ---

function logEntries(bytes: Buffer, keep: (entry: Versioned) => void): number {
  let damaged = 0;
  damaged += logRecords(bytes, (record) => {
    damaged += batchEntries(record, keep);
  });
  return damaged;
}

/**
 * Each whole record of a log-format file (a .log's write batches, a MANIFEST's version edits); returns
 * how many were damaged. A record cut short by the file's end is one being written (the app is running,
 * or was when the copy was made): not yet there, as LevelDB itself reads it, not damage.
 */
function logRecords(bytes: Buffer, onRecord: (record: Buffer) => void): number {
  let damaged = 0;
  let pieces: Buffer[] | undefined;
  for (let block = 0; block < bytes.length; block += LOG_BLOCK) {
    let at = block;
    const end = Math.min(block + LOG_BLOCK, bytes.length);
    while (at + LOG_HEADER <= end) {
      const length = bytes.readUInt16LE(at + 4);
      const type = bytes[at + 6];
      if (type === 0 && length === 0) break; // the block's zero padding (preallocated space)
      const data = bytes.subarray(at + LOG_HEADER, at + LOG_HEADER + length);
      at += LOG_HEADER + length;
      if (data.length < length && at >= bytes.length) return damaged; // the last record, still being written
      if (
        data.length < length ||
        unmask(bytes.readUInt32LE(at - LOG_HEADER - length)) !== crc32c(Buffer.concat([Buffer.of(type ?? 0), data]))
      ) {
        damaged++;
        pieces = undefined;
        break; // the rest of the block cannot be trusted to be framed
      }
      if (type === 1) {
        if (pieces !== undefined) damaged++; // a batch whose last fragment never came
        onRecord(data);
        pieces = undefined;
      } else if (type === 2) {
        if (pieces !== undefined) damaged++;
        pieces = [data];
      } else if (type === 3 || type === 4) {
        if (pieces === undefined) continue; // the end of a batch whose start was lost (counted there)
        pieces.push(data);
        if (type === 4) {
          onRecord(Buffer.concat(pieces));
          pieces = undefined;
        }
      }
    }
  }
  return damaged; // a batch whose last fragments are not written yet is not there yet either
}

/** A write batch: its first sequence number, a count, then puts and deletions, each the next number. */
function batchEntries(batch: Buffer, keep: (entry: Versioned) => void): number {
  if (batch.length < 12) return 1;
  let sequence = batch.readBigUInt64LE(0);
  const reader = new Reader(batch, 12);
  try {
    while (!reader.done()) {
      const type = reader.byte();
      const key = reader.slice();
      keep({ key, sequence, value: type === VALUE_TYPE ? reader.slice() : undefined });
      sequence++;
    }
    return 0;
  } catch {
    return 1;
  }
}

// --- the MANIFEST: the edits that made the database's current version (google/leveldb db/version_edit.cc) ---

/** The files the database is made of now: its tables, and the logs from `logNumber` on (and `prevLogNumber`'s). */
export interface LiveFiles {
  tables: ReadonlySet<number>;
  logNumber: number;
  prevLogNumber: number;
}

const EDIT = { comparator: 1, logNumber: 2, nextFile: 3, lastSequence: 4, compactPointer: 5, deletedFile: 6, newFile: 7, prevLogNumber: 9 };

/**
 * The live files from the MANIFEST that CURRENT names: a running app's folder also holds the tables a
 * compaction is writing and those it replaced, not yet deleted (a deleted row would come back from
 * them, its deletion dropped by the compaction). Undefined when no edit can be read.
 */
export function liveFiles(manifest: Buffer): LiveFiles | undefined {
  const live = { tables: new Set<number>(), logNumber: -1, prevLogNumber: 0 };
  logRecords(manifest, (record) => {
    try {
      applyEdit(new Reader(record, 0), live);
    } catch {} // an edit cut short: what it said before is kept
  });
  return live.logNumber < 0 ? undefined : live;
}

function applyEdit(reader: Reader, live: { tables: Set<number>; logNumber: number; prevLogNumber: number }): void {
  while (!reader.done()) {
    switch (reader.varint()) {
      case EDIT.logNumber:
        live.logNumber = reader.varint();
        break;
      case EDIT.prevLogNumber:
        live.prevLogNumber = reader.varint();
        break;
      case EDIT.nextFile:
      case EDIT.lastSequence:
        reader.varint();
        break;
      case EDIT.comparator:
        reader.slice();
        break;
      case EDIT.compactPointer:
        reader.varint(); // level
        reader.slice(); // key
        break;
      case EDIT.deletedFile:
        reader.varint(); // level
        live.tables.delete(reader.varint());
        break;
      case EDIT.newFile:
        reader.varint(); // level
        live.tables.add(reader.varint());
        reader.varint(); // size
        reader.slice(); // smallest key
        reader.slice(); // largest key
        break;
      default:
        return; // a tag not known: the rest of the edit cannot be framed
    }
  }
}

/** The number of a .log, .ldb or .sst file by its name (000005.ldb: 5); undefined for another file. */
export function levelFileNumber(name: string): { number: number; log: boolean } | undefined {
  const match = /^(\d+)\.(log|ldb|sst)$/i.exec(name);
  return match === null ? undefined : { number: Number(match[1]), log: match[2]!.toLowerCase() === "log" };
}

/** Whether a file is one the database is made of now. */
export function isLive(name: string, live: LiveFiles): boolean {
  const file = levelFileNumber(name);
  if (file === undefined) return false;
  return file.log ? file.number >= live.logNumber || file.number === live.prevLogNumber : live.tables.has(file.number);
}

// --- the tables: data blocks indexed by an index block the footer points to ---

function tableEntries(bytes: Buffer, keep: (entry: Versioned) => void): number {
  if (bytes.length < FOOTER || bytes.readBigUInt64LE(bytes.length - 8) !== TABLE_MAGIC) return 1;
  let damaged = 0;
  try {
    const footer = new Reader(bytes, bytes.length - FOOTER);
    footer.handle(); // the metaindex (filters), not needed to read every entry
    const index = blockContents(bytes, footer.handle());
    if (index === undefined) return 1;
    let readTo = 0;
    for (const { value } of blockEntries(index)) {
      const handle = new Reader(value, 0).handle();
      // LevelDB writes data blocks one after another: an index naming a block again (or one before it)
      // would have it uncompressed and read once per naming, a KB of index costing GBs of work.
      const data = handle.offset < readTo ? undefined : blockContents(bytes, handle);
      readTo = Math.max(readTo, handle.offset + handle.size + BLOCK_TRAILER);
      if (data === undefined) {
        damaged++;
        continue;
      }
      try {
        for (const { key, value: stored } of blockEntries(data)) {
          const tag = key.readBigUInt64LE(key.length - 8);
          keep({
            key: key.subarray(0, key.length - 8),
            sequence: tag >> 8n,
            value: Number(tag & 0xffn) === VALUE_TYPE ? stored : undefined,
          });
        }
      } catch {
        damaged++;
      }
    }
  } catch {
    damaged++;
  }
  return damaged;
}

interface Handle {
  offset: number;
  size: number;
}

/** A block's bytes, uncompressed; undefined when its checksum fails or it cannot be uncompressed. */
function blockContents(bytes: Buffer, { offset, size }: Handle): Buffer | undefined {
  if (offset + size + BLOCK_TRAILER > bytes.length) return undefined;
  const stored = bytes.subarray(offset, offset + size + 1); // the contents and the compression byte
  if (unmask(bytes.readUInt32LE(offset + size + 1)) !== crc32c(stored)) return undefined;
  const contents = stored.subarray(0, size);
  if (stored[size] === 0) return contents;
  if (stored[size] !== 1) return undefined; // zstd (LevelDB 1.24's option), which Chromium does not use
  try {
    return Buffer.from(uncompressSnappy(contents));
  } catch {
    return undefined;
  }
}

/** A block's entries: keys sharing a prefix with the one before, restart points at the end (not needed to read in order). */
function* blockEntries(block: Buffer): Generator<LevelEntry> {
  const restarts = block.readUInt32LE(block.length - 4);
  const end = block.length - 4 - 4 * restarts;
  if (end < 0) throw new Error("more restart points than the block has room for");
  const reader = new Reader(block.subarray(0, end), 0);
  let key = Buffer.alloc(0);
  let keyBytes = 0;
  while (!reader.done()) {
    const shared = reader.varint();
    const unshared = reader.varint();
    const length = reader.varint();
    if (shared > key.length) throw new Error("a key sharing more than the key before it has");
    key = Buffer.concat([key.subarray(0, shared), reader.bytes(unshared)]);
    keyBytes += key.length;
    if (keyBytes > MAX_KEY_EXPANSION * block.length + LOG_BLOCK) throw new Error("keys far longer than the block holds");
    yield { key, value: reader.bytes(length) };
  }
}

/**
 * How many times its own length a block's keys may add up to. Each key is copied whole, sharing the one
 * before's prefix: keys each a byte longer than the last would make a 1 MB block 20 GB of keys. LevelDB
 * restarts the sharing every 16 keys, so an honest block's keys are a few times its length.
 */
const MAX_KEY_EXPANSION = 64;

let snappy: typeof import("snappyjs") | undefined;

/** Set before tables are read (readLevelFolder): snappyjs is loaded only when a LevelDB is. */
export function useSnappy(module: typeof import("snappyjs")): void {
  snappy = module;
}

/**
 * Snappy's longest output for its input: a copy (3 bytes of tag and offset) writes at most 64 bytes.
 * The stream's own length claim is not trusted: snappyjs allocates what it says (7 bytes claiming 2 GB).
 */
const SNAPPY_MAX_EXPANSION = 22;

export function uncompressSnappy(bytes: Buffer): Uint8Array {
  if (snappy === undefined) throw new Error("snappyjs not loaded");
  return snappy.uncompress(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), SNAPPY_MAX_EXPANSION * bytes.length);
}

/** LevelDB stores a CRC rotated and offset, so that a CRC of data holding CRCs is not degenerate. */
function unmask(masked: number): number {
  const rotated = (masked - 0xa282ead8) >>> 0;
  return ((rotated >>> 17) | (rotated << 15)) >>> 0;
}

/** Reads LevelDB's varints and length-prefixed slices, throwing past the end. */
export class Reader {
  constructor(
    private readonly buffer: Buffer,
    public at: number,
  ) {}

  done(): boolean {
    return this.at >= this.buffer.length;
  }

  byte(): number {
    const byte = this.buffer[this.at++];
    if (byte === undefined) throw new RangeError("past the end");
    return byte;
  }

  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new RangeError("a varint too long");
  }

  bytes(length: number): Buffer {
    if (this.at + length > this.buffer.length) throw new RangeError("past the end");
    const bytes = this.buffer.subarray(this.at, this.at + length);
    this.at += length;
    return bytes;
  }

  slice(): Buffer {
    return this.bytes(this.varint());
  }

  handle(): Handle {
    return { offset: this.varint(), size: this.varint() };
  }
}
