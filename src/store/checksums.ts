import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

/**
 * Checksums of a local store's files that never change once written: each table's data files,
 * deletion files and index files (Lance writes a new file for every change, under a new name). Lance
 * keeps no checksums of its data pages, so a bit flipped inside a value reads as another value;
 * with the file's CRC-32 recorded, the health check (store/health.ts) finds it.
 *
 * Recorded after the store writes (store.ts: within a second of a write section's end, and as the
 * process closes) and by every health check, for the files not recorded yet: only new files are
 * read, never the old ones again. A file flipped before it is recorded is recorded as it then is:
 * the window is that second, or until the next command or check for a process killed first. A
 * store on object storage has none (reading its files back would cost a download each).
 *
 * Kept in one JSON file in the data dir, written whole (a draft renamed over it); two processes
 * recording at once can lose one's additions, which the next record adds again. A file recorded
 * but gone was removed by compaction or a repair (one still referenced reads as missing in the
 * check); one present but not recorded was written since. Neither is damage by itself.
 */

export interface Checksum {
  size: number;
  crc32: number;
}

/** Checksums by a file's path under the database folder (`<table>.lance/data/<name>.lance`). */
export type Checksums = Record<string, Checksum>;

/** A recorded file whose bytes are no longer those recorded. */
export interface ChangedFile {
  /** The table's folder name, without `.lance`. */
  table: string;
  /** Its path under the database folder. */
  file: string;
  kind: "data" | "deletions" | "index";
  /**
   * Its size changed too: cut short or grown, which LanceDB's read finds as well (the bytes of a
   * cut file before the cut are those written; a file of the same size has values changed in place).
   */
  resized: boolean;
}

/** The folders of a table whose files are never rewritten, by the kind of file they hold. */
const IMMUTABLE = { data: "data", _deletions: "deletions", _indices: "index" } as const;

/** Bytes read at once when a file is hashed. */
const READ_BYTES = 1 << 20;

export class ChecksumRecord {
  private readonly dbDir: string;

  /** For the local store at `storeUri` (a path, or a file:// URI), kept in `file`. */
  constructor(
    storeUri: string,
    private readonly file: string,
  ) {
    this.dbDir = storeUri.replace(/^file:\/\//, "");
  }

  read(): Checksums {
    try {
      const value = JSON.parse(fs.readFileSync(this.file, "utf8")) as unknown;
      return value && typeof value === "object" ? (value as Checksums) : {};
    } catch {
      return {};
    }
  }

  /** Records the files not recorded yet and forgets those that are gone; how many were added. */
  async record(): Promise<number> {
    const recorded = this.read();
    const present = immutableFiles(this.dbDir);
    const after: Checksums = {};
    let added = 0;
    for (const file of present) {
      const known = recorded[file];
      const sum = known ?? (await checksumOf(path.join(this.dbDir, file)));
      if (!sum) continue; // removed meanwhile
      after[file] = sum;
      if (!known) added++;
    }
    if (added > 0 || Object.keys(recorded).length !== Object.keys(after).length) this.write(after);
    return added;
  }

  /**
   * Forgets `files` (paths under the database folder): a repair has replaced them, and one that is
   * still on disk is no longer read (an index dropped, kept until old versions are cleaned up).
   */
  forget(files: string[]): void {
    const recorded = this.read();
    const before = Object.keys(recorded).length;
    for (const file of files) delete recorded[file];
    if (Object.keys(recorded).length !== before) this.write(recorded);
  }

  /** Every recorded file that is still there read again: those whose size or CRC-32 differ. */
  async verify(): Promise<ChangedFile[]> {
    const changed: ChangedFile[] = [];
    for (const [file, sum] of Object.entries(this.read())) {
      const now = await checksumOf(path.join(this.dbDir, file));
      if (now && (now.size !== sum.size || now.crc32 !== sum.crc32)) changed.push(changedFile(file, now.size !== sum.size));
    }
    return changed;
  }

  private write(checksums: Checksums): void {
    const draft = `${this.file}.${process.pid}`;
    try {
      fs.writeFileSync(draft, JSON.stringify(checksums));
      fs.renameSync(draft, this.file);
    } catch {
      // A data dir that cannot be written: the files are recorded by the next process that can.
      fs.rmSync(draft, { force: true });
    }
  }
}

function changedFile(file: string, resized: boolean): ChangedFile {
  const [folder = "", kind = ""] = file.split("/");
  return { table: folder.replace(/\.lance$/, ""), file, kind: IMMUTABLE[kind as keyof typeof IMMUTABLE] ?? "data", resized };
}

/** The data files of `files` whose values changed in place: the rows read from them are not to be trusted. */
export function alteredDataFiles(files: ChangedFile[] = []): string[] {
  return files.filter((file) => file.kind === "data" && !file.resized).map((file) => file.file);
}

/**
 * The immutable files of every table under `dbDir`, as paths under it ('/'-separated). Listed
 * synchronously: the folders of every table of a store took 1.7 ms so, 12 ms through the thread pool.
 */
function immutableFiles(dbDir: string): string[] {
  const files: string[] = [];
  for (const table of listing(dbDir).filter((entry) => entry.name.endsWith(".lance"))) {
    for (const folder of Object.keys(IMMUTABLE)) {
      for (const entry of listing(path.join(dbDir, table.name, folder), true)) {
        // A file LanceDB is still writing: `.tmp…` (strace: renamed to its own name when whole), or `…#n` (object_store's staging).
        if (!entry.isFile() || entry.name.startsWith(".") || entry.name.includes("#")) continue;
        files.push(path.relative(dbDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"));
      }
    }
  }
  return files;
}

function listing(dir: string, recursive = false): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { recursive, withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * The file's size and CRC-32; undefined when it is gone. A file of up to a megabyte is read at once,
 * synchronously (an 8 KB file in 46 µs, against 1.4 ms through the thread pool); a larger one a
 * megabyte at a time, without holding the event loop.
 */
export async function checksumOf(file: string): Promise<Checksum | undefined> {
  let small: Buffer | undefined;
  try {
    if (fs.statSync(file).size <= READ_BYTES) small = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (small) return { size: small.length, crc32: zlib.crc32(small) };
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let crc32 = 0;
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, size);
      if (bytesRead === 0) break;
      crc32 = zlib.crc32(buffer.subarray(0, bytesRead), crc32);
      size += bytesRead;
    }
    return { size, crc32 };
  } finally {
    await handle.close();
  }
}
