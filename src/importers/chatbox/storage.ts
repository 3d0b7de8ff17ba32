// Chatbox's own data folder (Electron's userData): since August 2025 (chatboxai/chatbox #353, "use
// indexedDB in all platforms", v1.16) the desktop app keeps its sessions in IndexedDB, the settings alone
// in config.json (src/renderer/platform/desktop_platform.ts `needStoreInFile`; docs/storage.md). The
// store is localforage's (`createInstance({ name: 'chatboxstore' })`: database `chatboxstore`, object
// store `keyvaluepairs`, the key beside the value) in the page's file:// origin (src/main/util.ts
// `resolveHtmlPath`), so IndexedDB/file__0.indexeddb.leveldb; each value the JSON text of the storage
// key's value (`setStoreValue` stringifies), the same keys as the data export's: `session:<id>` a
// session, `chat-sessions-list` their list. Read (importers/leveldb/) into the export's shape,
// `{ "session:<id>": {...} }`, which the export's importer reads: a session is known by its `id` and
// `messages`, as the rows' keys are not read.
import { Readable } from "node:stream";
import { objectStoreRows } from "../leveldb/indexeddb.js";
import { blobFiles, damageSkipped, levelFiles } from "../leveldb/folder.js";
import { readLevelDb, useSnappy } from "../leveldb/leveldb.js";
import { latestMtime, type ByteSource } from "../source.js";
import type { SkippedCount } from "../types.js";
import { CHATBOX_STORAGE_FILE } from "./storage-layout.js";

const DATABASE = "chatboxstore";
const STORE = "keyvaluepairs";

/** The sources with each Chatbox data folder's IndexedDB replaced by one export-shaped source; another app's left as it is. */
export async function withChatboxStorage(sources: readonly ByteSource[]): Promise<{ sources: ByteSource[]; skipped: SkippedCount[] }> {
  const roots = new Set(sources.map((source) => CHATBOX_STORAGE_FILE.exec(source.path)?.[1]).filter((root) => root !== undefined));
  let rest = [...sources];
  const skipped: SkippedCount[] = [];
  for (const root of roots) {
    useSnappy(await import("snappyjs"));
    const folder = `${root}IndexedDB/file__0.indexeddb.leveldb/`;
    const read = await readLevelDb(await levelFiles(rest, folder));
    // A long session Blink moved out of its row is in the blob folder beside the database.
    const blobFile = blobFiles(rest, folder);
    const { rows, unreadable, found } = await objectStoreRows(read.entries, DATABASE, [STORE], blobFile);
    if (!found) continue; // another app's data folder (Cherry Studio's has its own reader)
    const label = rest.find((source) => source.path.startsWith(folder))?.label.replace(/[\\/][^\\/]+$/, "") ?? "IndexedDB";
    const files = rest.filter((source) => source.path.startsWith(folder));
    const mtime = latestMtime(files);
    const { source, unparsed } = exportOf(rows.get(STORE) ?? [], label, `${root}IndexedDB/${DATABASE}.json`, mtime);
    skipped.push(...damageSkipped(label, read.damaged, unreadable + unparsed));
    rest = [
      source,
      ...rest.filter((source) => !source.path.startsWith(`${root}IndexedDB/`) && !source.path.startsWith(`${root}Local Storage/`)),
    ];
  }
  return { sources: rest, skipped };
}

/** The sessions among the rows, as the data export holds them: `{ "session:<id>": session }`, a row at a time. */
function exportOf(rows: readonly unknown[], label: string, path: string, mtime: Date): { source: ByteSource; unparsed: number } {
  const pieces: Buffer[] = [];
  let unparsed = 0;
  for (const row of rows) {
    const session = parsed(row);
    if (session === NOT_JSON) unparsed++;
    else if (isSession(session))
      pieces.push(Buffer.from(`${pieces.length === 0 ? "" : ","}${JSON.stringify(`session:${session.id}`)}:${row as string}`));
  }
  pieces.unshift(Buffer.from("{"));
  pieces.push(Buffer.from("}"));
  const size = pieces.reduce((total, piece) => total + piece.length, 0);
  const source: ByteSource = { label, path, size, mtime, open: async () => Readable.from(pieces, { objectMode: false }) };
  return { source, unparsed };
}

const NOT_JSON = Symbol("not JSON");

/** A row's value: the JSON text localforage was given; NOT_JSON when it is not JSON text. */
function parsed(row: unknown): unknown {
  if (typeof row !== "string") return NOT_JSON;
  try {
    return JSON.parse(row);
  } catch {
    return NOT_JSON;
  }
}

function isSession(value: unknown): value is { id: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { id, messages } = value as Record<string, unknown>;
  return typeof id === "string" && Array.isArray(messages);
}
