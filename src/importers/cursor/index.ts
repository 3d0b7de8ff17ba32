// Cursor's chats: the editor keeps them only in SQLite databases, <user dir>/globalStorage/state.vscdb
// (Composer and Agent chats) and <user dir>/workspaceStorage/<workspace id>/state.vscdb (each workspace's
// older chats); conversation.ts says what each key holds and on what that rests.
import type { Importer, Sample } from "../importer.js";
import { loaded } from "../importer.js";

export const cursor: Importer = {
  id: "cursor",
  name: "Cursor",
  chatApp: true,
  accepts: "Cursor's User folder (its globalStorage and workspaceStorage folders), or a state.vscdb database from it",
  howToGet:
    "Cursor keeps its chats in SQLite databases on disk: pass its User folder (~/.config/Cursor/User on Linux, ~/Library/Application Support/Cursor/User on macOS, %APPDATA%\\Cursor\\User on Windows), or the state.vscdb of its globalStorage folder (the Composer and Agent chats) or of a workspaceStorage folder (a workspace's older chats); what Cursor has not yet written into a database, in the state.vscdb-wal beside it, is read too.",
  extensions: [".vscdb"],
  // Its Composer and Agent chats, written as they go on; the workspaces' databases hold older chats, imported only.
  appFolders: [{ appData: "Cursor/User", watchedDatabase: ["globalStorage/state.vscdb"] }],
  detect: (sample) => (isCursorDatabase(sample) ? {} : undefined),
  smallerDatabase:
    `sqlite3 state.vscdb "ATTACH 'cursor-chats.vscdb' AS chats; CREATE TABLE chats.cursorDiskKV AS SELECT * FROM cursorDiskKV ` +
    `WHERE key LIKE 'composerData:%' OR key LIKE 'bubbleId:%'; CREATE TABLE chats.ItemTable AS SELECT * FROM ItemTable WHERE 0"`,
  database: async function* (db) {
    yield* (await import("./records.js")).cursorRecords(db.keyValue);
  },
  convert: loaded(async () => (await import("./conversation.js")).cursorConversations),
};

/** The keys that hold Cursor's chats (records.ts): a database without any (VS Code's own) is not Cursor's. */
const CHAT_KEYS = ["composerData:", "composer.composerData", "workbench.panel.aichat.view.aichat.chatdata"];

function isCursorDatabase(sample: Sample): boolean {
  return CHAT_KEYS.some((key) => sample.keys.has(key));
}
