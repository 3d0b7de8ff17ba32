import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { syncDir } from "./journal.js";
import { messagesRowId, type TableRows } from "./rows.js";
import { predicate, type Values, type Where } from "./where.js";
import type { TableKey } from "./schema.js";
import { storageFaultOr } from "./write-lock.js";

/**
 * A write about to commit more than one table for these rows: a conversation's messages and its
 * row, a memory's versions and its row, or trash rows (ids) and the removal of what they hold. Until
 * every commit is in, a table may hold rows the other does not point at (messages of no conversation,
 * versions of no memory, a trash entry of a conversation or memory still stored).
 */
export interface WriteIntent {
  rows: "conversations" | "memories" | "trash";
  userId: string;
  ids: string[];
}

/** What settling needs of the store. */
export interface IntentTables {
  select<K extends TableKey>(key: K, where: Where<K>, options?: { columns?: string[] }): Promise<TableRows[K][]>;
  delete(key: TableKey, where: string): Promise<number>;
  update<K extends TableKey>(key: K, where: Where<K>, values: Values<K>): Promise<number>;
  unchunked(conversationIds: readonly string[]): Promise<Set<string>>;
}

/**
 * The intents of this data dir's writes, one file each, written and fsynced before a write's first
 * commit and deleted after its last. They are read under the data dir's write lock, which every
 * writer on it holds from before its intent to after its last commit: an intent found there is one a
 * write cut short left (an outage, kill -9, a full disk), never one another writer is living through.
 * Settling one deletes only rows of the ids it names that the other table does not point at: rows a
 * write of this data dir made, or named (a delete, an update), never the rest of another machine's.
 */
export class WriteIntents {
  constructor(private readonly dir: string) {}

  /** Records `intent` durably; the path returned is given to `done`. */
  record(intent: WriteIntent): string {
    const file = path.join(this.dir, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      const fd = fs.openSync(file, "w");
      try {
        fs.writeSync(fd, JSON.stringify(intent));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      syncDir(this.dir);
    } catch (error) {
      fs.rmSync(file, { force: true });
      // Named as the data dir, the folder the user chose, not this one inside it.
      throw storageFaultOr(error, path.dirname(this.dir));
    }
    return file;
  }

  /** The write is whole. A record that cannot be deleted is settled by the next write, which then finds nothing to delete. */
  done(file: string): void {
    try {
      fs.rmSync(file, { force: true });
    } catch {}
  }

  /**
   * Finishes what the writes cut short left: each recorded row whose other table did not get its
   * commit has what it wrote there deleted (it was never acknowledged). An intent that cannot be
   * settled now (the store unreachable, a damaged table) waits for the next write.
   */
  async settle(tables: IntentTables): Promise<void> {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir).filter((name) => name.endsWith(".json"));
    } catch {
      return; // none recorded yet
    }
    for (const name of names) {
      const file = path.join(this.dir, name);
      try {
        const intent = readIntent(file);
        if (intent) await settleIntent(tables, intent);
        this.done(file);
      } catch {
        return;
      }
    }
  }
}

/** The intent in `file`, or undefined when the write was cut before its record was whole (nothing was committed then). */
function readIntent(file: string): WriteIntent | undefined {
  try {
    const intent = JSON.parse(fs.readFileSync(file, "utf8")) as WriteIntent;
    return Array.isArray(intent.ids) && typeof intent.userId === "string" ? intent : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

async function settleIntent(tables: IntentTables, intent: WriteIntent): Promise<void> {
  if (intent.ids.length === 0) return;
  const stray = await STRAY[intent.rows](tables, intent);
  if (stray) await tables.delete(stray.key, stray.where);
  if (intent.rows === "conversations") await requeueUnchunked(tables, intent);
}

/**
 * Conversations a cut removal left listed without their chunks (they go first, messages last; a
 * move to the trash cut there is undone): queued, so the index worker chunks them again from their
 * messages instead of search never finding them. A ready conversation that had no text to chunk is
 * only indexed again, to the same nothing.
 */
async function requeueUnchunked(tables: IntentTables, { userId, ids }: WriteIntent): Promise<void> {
  const ready = await tables.select("conversations", { userId, id: ids, status: "ready" }, { columns: ["id"] });
  const bare = [...(await tables.unchunked(ready.map((row) => row.id)))];
  if (bare.length > 0) await tables.update("conversations", { userId, id: bare }, { status: "queued", statusReason: null });
}

/** Messages rows of these conversations that are not a stored conversation's current revision. */
async function strayMessages(tables: IntentTables, { userId, ids }: WriteIntent): Promise<Stray | undefined> {
  const stored = await tables.select("conversations", { userId, id: ids }, { columns: ["id", "revision"] });
  const where: Where<"messages"> = { userId, conversationId: ids, id: { not: stored.map(messagesRowId) } };
  const found = await tables.select("messages", where, { columns: ["id"] });
  return found.length > 0 ? { key: "messages", where: predicate(where) } : undefined;
}

/** Versions of these memories past the stored memory's version, or all of them once the memory is not stored. */
async function strayVersions(tables: IntentTables, { userId, ids }: WriteIntent): Promise<Stray | undefined> {
  const stored = await tables.select("memories", { userId, id: ids }, { columns: ["id", "version"] });
  const byVersion = new Map<number, string[]>();
  for (const row of stored) byVersion.set(row.version, [...(byVersion.get(row.version) ?? []), row.id]);
  const gone = ids.filter((id) => !stored.some((row) => row.id === id));
  const ahead = [...byVersion].map(([version, memoryIds]) => ({ memoryId: memoryIds, version: { after: version } }));
  const where: Where<"memoryHistory"> = { userId, anyOf: [{ memoryId: gone }, ...ahead] };
  const found = await tables.select("memoryHistory", where, { columns: ["id"] });
  return found.length > 0 ? { key: "memoryHistory", where: predicate(where) } : undefined;
}

/** Trash entries whose conversation or memory is still stored: the move is undone, and run again it moves them once. */
async function strayTrash(tables: IntentTables, { userId, ids }: WriteIntent): Promise<Stray | undefined> {
  const entries = await tables.select("trash", { userId, id: ids }, { columns: ["id", "kind", "itemId"] });
  const stored = async (key: "conversations" | "memories", kind: string) => {
    const itemIds = entries.filter((entry) => entry.kind === kind).map((entry) => entry.itemId);
    const rows = itemIds.length > 0 ? await tables.select(key, { userId, id: itemIds }, { columns: ["id"] }) : [];
    return rows.map((row) => row.id);
  };
  const live = new Set([...(await stored("conversations", "conversation")), ...(await stored("memories", "memory"))]);
  const undone = entries.filter((entry) => live.has(entry.itemId)).map((entry) => entry.id);
  return undone.length > 0 ? { key: "trash", where: predicate<"trash">({ userId, id: undone }) } : undefined;
}

/** What a cut write left, as the rows of one table to delete. */
interface Stray {
  key: TableKey;
  where: string;
}

const STRAY: Record<WriteIntent["rows"], (tables: IntentTables, intent: WriteIntent) => Promise<Stray | undefined>> = {
  conversations: strayMessages,
  memories: strayVersions,
  trash: strayTrash,
};
