import fs from "node:fs/promises";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import type { Schema, Table as ArrowTable } from "apache-arrow";
import { isRemoteUri } from "../config/paths.js";
import { BucketObjects } from "./bucket-objects.js";
import { fromArrowTable } from "./convert.js";
import { damageOf } from "./damage.js";
import { storageFaultOf } from "./object-store-errors.js";
import { TABLE } from "./schema.js";
import { predicate } from "./where.js";

/** Rows asked for at once; a range that fails is halved until the rows that cannot be read are found alone. */
const RANGE = 256;
/** Rows copied back at once. */
const COPY = 2_000;

/** Where a salvage keeps the rows it could read until the damaged table has been replaced. */
export function salvageName(name: string): string {
  return `${name}__salvage`;
}

/** The meta key that says the rows of `name` are all in its salvage table: from then on, it can be dropped. */
const markKey = (name: string) => `salvaged:${name}`;

/**
 * Replaces a damaged table by the rows of it that can still be read: each range of rows is read by
 * position, and a range that fails is halved until each unreadable row is found alone (LanceDB
 * loses a damaged page's rows; the rest of the fragment reads). The rows go to a table of their own;
 * once they are all there, the meta table records it, and only then is the damaged table dropped and
 * made again from them. A salvage cut short before that mark starts again; one cut short after it
 * finishes the copy. Run it in a child process (a damaged page can make LanceDB panic) while holding
 * the store's write lock, with the meta table readable.
 *
 * A table whose newest version file (manifest) does not open, count its rows or describe the
 * columns `usable` wants fails, or with `earlier`, on a local store or one on S3, is read at the
 * newest version that does: the damaged version files are set aside (the repair has copied the
 * table's files first), and what their changes did is undone (`olderBy` versions).
 *
 * Data files whose bytes changed since they were written (`setAside`, store/checksums.ts), on a
 * local store, are read as a cut file is: their rows are not kept, and the repair rebuilds them from
 * the other tables. They are read once more, as they are, into `rowsFile` (JSON lines), so
 * that no row that reads is lost: nothing tells which of their values a flipped bit changed.
 */
export async function salvageTable(
  uri: string,
  name: string,
  storageOptions: Record<string, string>,
  versions: { usable?: (schema: Schema) => boolean; earlier?: boolean; setAside?: SetAside } = {},
): Promise<Salvaged> {
  const db = await lancedb.connect(uri, { readConsistencyInterval: 0, storageOptions });
  try {
    const keep = salvageName(name);
    const names = await db.tableNames();
    if (names.includes(keep) && (await marked(db, name)))
      return { rows: undefined, kept: await copyBack(db, keep, name), olderBy: 0, setAside: 0 };
    if (names.includes(keep)) await db.dropTable(keep);
    const aside = versions.setAside && !isRemoteUri(uri) ? versions.setAside : undefined;
    const moved = aside ? await renameAll(uri, aside.files, ".changed") : [];
    const {
      table: damaged,
      rows,
      olderBy,
    } = await newestWholeVersion(db, uri, name, versions.usable ?? (() => true), versions.earlier ? storageOptions : undefined);
    const kept = await db.createEmptyTable(keep, await damaged.schema());
    const unread: number[] = [];
    await readableRows(
      damaged,
      rows,
      RANGE,
      async (found) => {
        if (found.numRows > 0) await kept.add(found);
      },
      (offset) => unread.push(offset),
    );
    const version = await damaged.version();
    damaged.close();
    kept.close();
    const setAside = aside && moved.length > 0 ? await keepRowsSetAside(db, uri, name, version, moved, unread, aside.rowsFile) : 0;
    await mark(db, name, true);
    return { rows, kept: await copyBack(db, keep, name), olderBy, setAside };
  } finally {
    db.close();
  }
}

export interface Salvaged {
  /** Rows the version read said it had (undefined when a salvage cut short was finished). */
  rows: number | undefined;
  kept: number;
  /** Versions stepped back because their version files were damaged. */
  olderBy: number;
  /** Rows of changed data files written to the rows file, not kept in the table. */
  setAside: number;
}

/** Data files changed in place (paths under the database folder): their rows are not kept, but written to `rowsFile`. */
export interface SetAside {
  files: string[];
  rowsFile: string;
}

/** Each of `files` (under the database folder) renamed to end in `suffix`: those that were there, as they were named. */
async function renameAll(uri: string, files: string[], suffix: string): Promise<string[]> {
  const moved: string[] = [];
  for (const file of files) {
    const from = path.join(uri, file);
    const renamed = await fs.rename(from, `${from}${suffix}`).then(
      () => true,
      () => false, // gone, or set aside by a salvage cut short
    );
    if (renamed) moved.push(file);
  }
  return moved;
}

/**
 * The rows that did not read while the changed files were set aside, read with those files back in
 * place at the salvaged version, appended to `rowsFile`; the files are then set aside again (the
 * table is made again without them). How many rows were written.
 */
async function keepRowsSetAside(
  db: lancedb.Connection,
  uri: string,
  name: string,
  version: number,
  moved: string[],
  offsets: number[],
  rowsFile: string,
): Promise<number> {
  for (const file of moved) await fs.rename(path.join(uri, `${file}.changed`), path.join(uri, file));
  let written = 0;
  const table = await db.openTable(name);
  try {
    await table.checkout(version);
    await fs.mkdir(path.dirname(rowsFile), { recursive: true });
    const take = (some: number[]) =>
      table
        .takeOffsets(some)
        .toArrow()
        .then(fromArrowTable, () => undefined);
    for (let from = 0; from < offsets.length; from += RANGE) {
      const some = offsets.slice(from, from + RANGE);
      // A flip in a page's framing loses its rows with the file in place too: then row by row, past them.
      const rows = (await take(some)) ?? (await Promise.all(some.map((offset) => take([offset])))).flatMap((row) => row ?? []);
      await fs.appendFile(rowsFile, rows.map((row) => `${JSON.stringify(row, plainJson)}\n`).join(""));
      written += rows.length;
    }
  } finally {
    table.close();
    await renameAll(uri, moved, ".changed");
  }
  return written;
}

/** Vectors as arrays of numbers, 64-bit integers as numbers: what JSON can hold. */
function plainJson(_key: string, value: unknown): unknown {
  if (value instanceof Float32Array) return Array.from(value);
  return typeof value === "bigint" ? Number(value) : value;
}

/**
 * The table at its newest version that opens, counts its rows and has the columns wanted: with
 * `earlier` (the store's storage options), each newest version file that does not is set aside
 * (`_versions/*.manifest.damaged`) until one does. The error of the newest when none does.
 */
async function newestWholeVersion(
  db: lancedb.Connection,
  uri: string,
  name: string,
  usable: (schema: Schema) => boolean,
  earlier: Record<string, string> | undefined,
): Promise<{ table: lancedb.Table; rows: number; olderBy: number }> {
  let first: unknown;
  for (let olderBy = 0; ; olderBy++) {
    let table: lancedb.Table | undefined;
    try {
      table = await db.openTable(name);
      const rows = await table.countRows();
      if (usable(await table.schema())) return { table, rows, olderBy };
      throw new Error(`version file does not describe the table's columns`);
    } catch (error) {
      table?.close();
      if (damageOf(error) === undefined && storageFaultOf(error, "")) throw error;
      first ??= error;
      if (!earlier || !(await setNewestVersionAside(uri, name, earlier))) throw first;
    }
  }
}

/**
 * Renames the newest version file of a table, when an older one is left; whether it did. On S3 a
 * copy and a delete; not on s3+ddb://, where DynamoDB names the newest version (each older one
 * would be set aside in turn), nor on other object stores (gs://, az://).
 */
async function setNewestVersionAside(uri: string, name: string, storageOptions: Record<string, string>): Promise<boolean> {
  const folder = `${name}.lance/_versions/`;
  if (!isRemoteUri(uri)) {
    const newest = newestOfSeveral(await fs.readdir(path.join(uri, folder)).catch(() => []));
    if (newest) await fs.rename(path.join(uri, folder, newest), path.join(uri, folder, `${newest}.damaged`));
    return newest !== undefined;
  }
  const bucket = /^s3\+ddb:/i.test(uri) ? undefined : await BucketObjects.open(uri, storageOptions, process.env);
  if (!bucket) return false;
  try {
    const newest = newestOfSeveral(await bucket.list(folder));
    if (newest) await bucket.move(folder + newest, `${folder + newest}.damaged`);
    return newest !== undefined;
  } finally {
    bucket.close();
  }
}

/** The newest of a table's version files, when there is an older one too. */
function newestOfSeveral(files: string[]): string | undefined {
  const manifests = files.filter((file) => /^\d+\.manifest$/.test(file));
  if (manifests.length < 2) return undefined;
  return manifests.reduce((a, b) => (versionOf(a) > versionOf(b) ? a : b));
}

/** The version a version file's name stands for: Lance's newer naming counts down from 2^64 - 1, in 20 digits. */
function versionOf(file: string): bigint {
  const stem = file.slice(0, -".manifest".length);
  return stem.length === 20 ? 2n ** 64n - 1n - BigInt(stem) : BigInt(stem);
}

/**
 * Every row of `table` (of `count`) that can be read, `step` rows at a time by position, handed to
 * `take` in order; a range that fails is halved until each row that cannot be read is found alone
 * (LanceDB loses a damaged page's rows; the rest of the fragment reads), and told to `skipped`.
 * Returns how many could not be read, and the first error met.
 */
export async function readableRows(
  table: lancedb.Table,
  count: number,
  step: number,
  take: (batch: ArrowTable) => Promise<void> | void,
  skipped?: (offset: number) => void,
): Promise<{ unreadable: number; error?: unknown }> {
  const result: { unreadable: number; error?: unknown } = { unreadable: 0 };
  const readRange = async (from: number, to: number): Promise<void> => {
    let batch: ArrowTable;
    try {
      batch = await table.takeOffsets(Array.from({ length: to - from }, (_, i) => from + i)).toArrow();
    } catch (error) {
      // A failing disk or object store fails every range alike: it stops the read, as no damage does.
      if (damageOf(error) === undefined && storageFaultOf(error, "")) throw error;
      result.error ??= error;
      if (to - from === 1) {
        result.unreadable++;
        skipped?.(from);
        return;
      }
      const middle = (from + to) >> 1;
      await readRange(from, middle);
      await readRange(middle, to);
      return;
    }
    await take(batch);
  };
  for (let from = 0; from < count; from += step) await readRange(from, Math.min(count, from + step));
  return result;
}

/** Makes `name` again from the rows kept in `keep` (all of them, checked), then drops `keep`. */
async function copyBack(db: lancedb.Connection, keep: string, name: string): Promise<number> {
  const source = await db.openTable(keep);
  const count = await source.countRows();
  await db.dropTable(name).catch(() => undefined);
  const target = await db.createEmptyTable(name, await source.schema(), { mode: "overwrite" });
  for (let from = 0; from < count; from += COPY) {
    const offsets = Array.from({ length: Math.min(COPY, count - from) }, (_, i) => from + i);
    await target.add(await source.takeOffsets(offsets).toArrow());
  }
  const copied = await target.countRows();
  source.close();
  target.close();
  if (copied !== count) throw new Error(`copied ${copied} of the ${count} rows kept in ${keep}`);
  await mark(db, name, false);
  await db.dropTable(keep);
  return copied;
}

async function marked(db: lancedb.Connection, name: string): Promise<boolean> {
  const meta = await db.openTable(TABLE.meta);
  const found = await meta.countRows(predicate<"meta">({ key: markKey(name) }));
  meta.close();
  return found > 0;
}

async function mark(db: lancedb.Connection, name: string, on: boolean): Promise<void> {
  const meta = await db.openTable(TABLE.meta);
  const key = predicate<"meta">({ key: markKey(name) });
  if (on)
    await meta
      .mergeInsert("key")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute([{ key: markKey(name), value: "complete" }]);
  else await meta.delete(key);
  meta.close();
}
