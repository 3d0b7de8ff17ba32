// OpenCode 2.x databases with rows no OpenCode wrote: one row costs itself, never the database.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dirs.js";
import { collect, fixtures } from "./collect.js";

const migrated = join(fixtures, "opencode-v2", "migrated", "opencode.db");
const scratch = tempDir("mnemo-hostile-opencode-");

/** A copy of the migrated fixture with `sql` run on it. */
async function altered(name: string, sql: string): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(migrated));
  db.exec(sql);
  mkdirSync(join(scratch, name), { recursive: true });
  const path = join(scratch, name, "opencode.db");
  writeFileSync(path, Buffer.from(db.export()));
  db.close();
  return path;
}

describe("hostile OpenCode databases", () => {
  it("a migration row updated at SQLite's infinity reads the sessions, where it made the whole database unreadable (no such column: Infinity)", async () => {
    const path = await altered("infinite", "UPDATE kv SET time_updated = 9e999 WHERE key = 'migration.v1-v2'");
    const sessions = (await collect(path)).map(({ conversation }) => conversation.id);
    expect(sessions).toEqual(expect.arrayContaining((await collect(migrated)).map(({ conversation }) => conversation.id)));
  });
});
