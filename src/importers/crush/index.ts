// Crush's sessions (charmbracelet/crush, the terminal coding agent): rows of crush.db, a SQLite
// database in each project's data folder (`.crush` in the project: internal/db/connect.go), read by
// database.ts and session.ts. Crush lists the projects it ran in, with each one's data folder, in
// projects.json in its global data folder (projects.ts), which `--apps` reads: $XDG_DATA_HOME/crush,
// else ~/.local/share/crush, on Windows %LOCALAPPDATA%\crush; $CRUSH_GLOBAL_DATA before them (config/load.go GlobalConfigData).
import { groupedPerFile, hasTables, loaded, type Importer } from "../importer.js";
import { projectDatabases } from "./projects.js";
import { REQUIRED_COLUMNS } from "./tables.js";

const MOVED = { env: "CRUSH_GLOBAL_DATA", path: "projects.json" };

export const crush: Importer = {
  id: "crush",
  name: "Crush",
  chatApp: true,
  accepts: "a project's .crush folder, or the crush.db database in it",
  howToGet:
    "Crush keeps each project's sessions in .crush/crush.db in the project's folder: pass that .crush folder (or the data_directory you set), or let --apps find every project's, as ~/.local/share/crush/projects.json ($CRUSH_GLOBAL_DATA/projects.json when you set that variable) lists them; what Crush has not yet written into the database, in the crush.db-wal beside it, is read too.",
  watchedDatabase: true,
  extensions: ["crush.db"],
  appFolders: [
    { xdgData: "crush/projects.json", listed: projectDatabases, moved: MOVED },
    { localAppData: "crush/projects.json", only: "win32", listed: projectDatabases, moved: MOVED },
  ],
  detect: (sample) => (hasTables(sample, REQUIRED_COLUMNS) ? {} : undefined),
  // The sessions Crush lists and their prompts and answers: not the tools' results, nor the files table's
  // copies of every file the agent wrote.
  smallerDatabase:
    `sqlite3 crush.db "ATTACH 'crush-chats.db' AS chats; CREATE TABLE chats.sessions AS SELECT * FROM sessions WHERE parent_session_id IS NULL; ` +
    `CREATE TABLE chats.messages AS SELECT * FROM messages WHERE role IN ('user', 'assistant')"`,
  database: async function* (db) {
    yield* (await import("./database.js")).crushRows(db);
  },
  convert: loaded(async () => {
    const { crushItem, crushSessions } = await import("./session.js");
    return groupedPerFile(crushItem, crushSessions);
  }),
};
