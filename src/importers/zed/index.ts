// Zed (zed-industries/zed), the editor: its agent panel's threads are rows of threads.db, a SQLite
// database in Zed's data folder (crates/agent/src/db.rs: paths::data_dir()/threads/threads.db), read
// by database.ts and thread.ts; the text threads of the assistant before it are files of their own,
// conversations/*.zed.json (text-thread.ts). The data folder (crates/paths/src/paths.rs `data_dir`) is
// ~/Library/Application Support/Zed on macOS, $XDG_DATA_HOME/zed on Linux, %LOCALAPPDATA%\Zed on Windows.
import { hasTables, loaded, perRecord, type Importer, type Sample } from "../importer.js";
import { THREAD_COLUMNS } from "./tables.js";

/** Why Zed's text threads are not watched. */
const TEXT_THREADS_DONE = "the text threads of its assistant before the agent panel, no longer written";

export const zed: Importer = {
  id: "zed",
  name: "Zed",
  chatApp: true,
  accepts:
    "its threads folder, or the threads.db database in it (the agent panel's threads); its conversations folder of text threads (.zed.json)",
  howToGet:
    "Zed keeps the agent panel's threads in threads/threads.db in its data folder: pass ~/.local/share/zed/threads on Linux, ~/Library/Application Support/Zed/threads on macOS, or %LOCALAPPDATA%\\Zed\\threads on Windows; what Zed has not yet written into the database, in the threads.db-wal beside it, is read too. The assistant's text threads before the agent panel are .zed.json files in the conversations folder beside threads (on macOS, ~/.config/zed/conversations).",
  extensions: ["threads.db", ".zed.json"],
  appFolders: [
    { xdgData: "zed/threads/threads.db", file: true, only: "linux" },
    { xdgData: "zed/threads/threads.db", file: true, only: "freebsd" },
    { home: "Library/Application Support/Zed/threads/threads.db", file: true, only: "darwin" },
    { localAppData: "Zed/threads/threads.db", file: true, only: "win32" },
    { xdgData: "zed/conversations", only: "linux", notWatched: TEXT_THREADS_DONE },
    { xdgData: "zed/conversations", only: "freebsd", notWatched: TEXT_THREADS_DONE },
    { home: ".config/zed/conversations", only: "darwin", notWatched: TEXT_THREADS_DONE },
    { localAppData: "Zed/conversations", only: "win32", notWatched: TEXT_THREADS_DONE },
  ],
  watchedDatabase: true,
  detect: (sample) => (isDatabase(sample) || isTextThread(sample) ? {} : undefined),
  database: async function* (db) {
    yield* (await import("./database.js")).zedThreadRows(db);
  },
  convert: loaded(async () => {
    const [{ isZedThreadRow }, { zedThread }, { zedTextThread }] = await Promise.all([
      import("./database.js"),
      import("./thread.js"),
      import("./text-thread.js"),
    ]);
    return perRecord((record, context) => (isZedThreadRow(record) ? zedThread : zedTextThread)(record, context));
  }),
};

/** A text thread's file, SavedContext: `{ zed: "context", version, text, messages, summary }`. */
function isTextThread(sample: Sample): boolean {
  return ["zed", "text", "messages", "summary"].every((key) => sample.keys.has(key)) && sample.strings("zed").includes("context");
}

/** threads.db: its `threads` table, with the columns every version has. */
function isDatabase(sample: Sample): boolean {
  return hasTables(sample, { threads: THREAD_COLUMNS });
}
