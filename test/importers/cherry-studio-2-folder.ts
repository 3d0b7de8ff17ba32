// Cherry Studio 2 data folders made from the fixture's database, for its tests and the hostile ones.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { fixtures } from "./collect.js";

/** The fixture's data folder, and its database (fixtures/exports/cherry-studio/build-sqlite.mjs). */
export const cherryStudio2Folder = join(fixtures, "cherry-studio-2");
export const cherryStudio2Database = join(cherryStudio2Folder, "Data", "cherrystudio.sqlite");

/** A copy of the fixture's database with these statements run on it, in a data folder of its own (`into`/`name`). */
export async function alteredFolder(into: string, name: string, sql: string): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(cherryStudio2Database));
  db.exec(sql);
  const dir = join(into, name);
  mkdirSync(join(dir, "Data"), { recursive: true });
  writeFileSync(join(dir, "Data", "cherrystudio.sqlite"), Buffer.from(db.export()));
  db.close();
  return dir;
}
