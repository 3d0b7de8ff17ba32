// The records of a Cursor database (conversation.ts reads them): each value that holds chats, as the
// text it is stored as, so that a damaged one costs only its chats.
import type { KeyValueStore } from "../sqlite.js";

/** A value of the database that holds chats: its key, its JSON text, and a composer's bubbles stored apart. */
export interface CursorRecord {
  key: string;
  value: string;
  /** For `composerData:<id>`: the `bubbleId:<id>:<bubble id>` rows (newer versions keep each message so). */
  bubbles?: { key: string; value: string | undefined }[];
}

/** The old chat panel's tabs, in a workspace's database. */
export const CHAT_TABS_KEY = "workbench.panel.aichat.view.aichat.chatdata";
/** A workspace's list of its composers (older versions held each one's conversation in it too). */
export const WORKSPACE_COMPOSERS_KEY = "composer.composerData";
/** A composer in the global database's cursorDiskKV: `composerData:<composer id>`. */
export const COMPOSER_PREFIX = "composerData:";

const ITEMS = "ItemTable";
const DISK = "cursorDiskKV";

/**
 * The chat values, one composer (with its bubbles) at a time: a database of a gigabyte of agent runs
 * is never held as JSON whole. `;` is the character after `:`, so `a:` to `a;` is every key under `a:`.
 */
export function* cursorRecords(store: KeyValueStore): Generator<CursorRecord> {
  if (store.tables.includes(ITEMS)) {
    for (const key of [CHAT_TABS_KEY, WORKSPACE_COMPOSERS_KEY]) {
      const value = store.value(ITEMS, key);
      if (value !== undefined) yield { key, value };
    }
  }
  if (!store.tables.includes(DISK)) return;
  for (const key of [...store.keys(DISK, COMPOSER_PREFIX, "composerData;")]) {
    const value = store.value(DISK, key);
    if (value === undefined) continue;
    const id = key.slice(COMPOSER_PREFIX.length);
    yield { key, value, bubbles: [...store.rows(DISK, `bubbleId:${id}:`, `bubbleId:${id};`)] };
  }
}
