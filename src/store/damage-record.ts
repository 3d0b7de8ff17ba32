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
  constructor(private readonly file: string) {}

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
