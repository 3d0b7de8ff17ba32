// Zed (zed-industries/zed), the editor: its agent panel's threads are rows of threads.db, a SQLite
// database in Zed's data folder (crates/agent/src/db.rs: paths::data_dir()/threads/threads.db), read
// by database.ts and thread.ts. The data folder (crates/paths/src/paths.rs `data_dir`) is
// ~/Library/Application Support/Zed on macOS, $XDG_DATA_HOME/zed on Linux, %LOCALAPPDATA%\Zed on Windows.
import { loaded, perRecord, type Importer, type Sample } from "../importer.js";
import { THREAD_COLUMNS } from "./tables.js";

export const zed: Importer = {
  id: "zed",
  name: "Zed",
  chatApp: true,
  accepts: "its threads folder, or the threads.db database in it (the agent panel's threads)",
  howToGet:
    "Zed keeps the agent panel's threads in threads/threads.db in its data folder: pass ~/.local/share/zed/threads on Linux, ~/Library/Application Support/Zed/threads on macOS, or %LOCALAPPDATA%\\Zed\\threads on Windows; what Zed has not yet written into the database, in the threads.db-wal beside it, is read too.",
  extensions: ["threads.db"],
  appFolders: [
    { xdgData: "zed/threads/threads.db", file: true, only: "linux" },
    { xdgData: "zed/threads/threads.db", file: true, only: "freebsd" },
    { home: "Library/Application Support/Zed/threads/threads.db", file: true, only: "darwin" },
    { home: "AppData/Local/Zed/threads/threads.db", file: true, only: "win32" }, // %LOCALAPPDATA% where it is not moved
  ],
  detect: (sample) => (isDatabase(sample) ? {} : undefined),
  database: async function* (db) {
    yield* (await import("./database.js")).zedThreadRows(db);
  },
  convert: loaded(async () => perRecord((await import("./thread.js")).zedThread)),
};

/** threads.db: its `threads` table, with the columns every version has. */
function isDatabase(sample: Sample): boolean {
  return THREAD_COLUMNS.every((column) => sample.tables.get("threads")?.has(column));
}
