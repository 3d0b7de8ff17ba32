import fs from "node:fs";
import path from "node:path";
import type { TableKey } from "./schema.js";

/**
 * A local table's version files as a stamp (names, sizes, times): while its `_versions` folder holds
 * the same files, a table found damaged is still damaged, and is not opened again (a damaged version
 * file can make LanceDB panic, and print its panic, at every open). A commit or a repair adds or
 * replaces them; so does a good copy put back by hand.
 */
export function versionStamp(dbDir: string, name: string): string {
  const dir = path.join(dbDir, `${name}.lance`, "_versions");
  try {
    return fs
      .readdirSync(dir)
      .sort()
      .map((file) => {
        const { size, mtimeMs } = fs.statSync(path.join(dir, file));
        return `${file}:${size}:${mtimeMs}`;
      })
      .join("|");
  } catch {
    return "missing";
  }
}

/** Where a data dir keeps its DamageRecord. */
export function damageRecordFile(dataDir: string): string {
  return path.join(dataDir, "damaged-tables.json");
}

export interface DamageSeen {
  key: TableKey;
  what: string;
  stamp: string;
}

/**
 * The damaged tables any process on this data dir has met, by name, kept in `file`: a command or a
 * server that starts then does not open them again to find out (and print LanceDB's panic again).
 */
export class DamageRecord {
  /** The file's size and time when last read by `changed`. */
  private seen = "";

  constructor(private readonly file: string) {}

  /** What the file holds when another process (`mnemo doctor`) has changed it since this one last looked; else undefined. */
  changed(): Map<string, DamageSeen> | undefined {
    let now = "missing";
    try {
      const { size, mtimeMs } = fs.statSync(this.file);
      now = `${size}:${mtimeMs}`;
    } catch {}
    if (now === this.seen) return undefined;
    this.seen = now;
    return this.read();
  }

  read(): Map<string, DamageSeen> {
    try {
      return new Map(Object.entries(JSON.parse(fs.readFileSync(this.file, "utf8")) as Record<string, DamageSeen>));
    } catch {
      return new Map();
    }
  }

  set(name: string, seen: DamageSeen | undefined): void {
    const all = this.read();
    if (seen) all.set(name, seen);
    else if (!all.delete(name)) return;
    try {
      if (all.size === 0) fs.rmSync(this.file, { force: true });
      else {
        // Whole or not at all: another process may be reading it.
        fs.writeFileSync(`${this.file}.${process.pid}`, JSON.stringify(Object.fromEntries(all)));
        fs.renameSync(`${this.file}.${process.pid}`, this.file);
      }
    } catch {
      // A data dir that cannot be written: the damage is found again by the next process.
    }
  }
}

/**
 * What `mnemo doctor` found of a local store's tables, kept for every command: a table whose data
 * files changed since they were written (a flipped bit LanceDB reads as another value, unseen) is
 * refused, naming the damage and the doctor, as one LanceDB could not read is, until a repair (or
 * a good copy put back) changes its version files; a table the check read whole and found sound
 * is forgotten.
 */
export function recordCheckedTables(
  dbDir: string,
  dataDir: string,
  found: (Omit<DamageSeen, "stamp"> & { name: string })[],
  sound: string[],
): void {
  const record = new DamageRecord(damageRecordFile(dataDir));
  for (const { name, key, what } of found) record.set(name, { key, what, stamp: versionStamp(dbDir, name) });
  for (const name of sound) record.set(name, undefined);
}
