// Goose's sessions (block/goose, the CLI and the desktop app): to 1.9 a file each, one record a line,
// ~/.local/share/goose/sessions/<session id>.jsonl; since 1.10 (October 2025) the rows of
// sessions.db in that folder (database.ts), into which Goose copied the files once. session.ts reads both.
import { groupedPerFile, loaded, type Importer, type Sample, hasTables } from "../importer.js";
import { REQUIRED_COLUMNS } from "./tables.js";

const MOVED = { env: "GOOSE_PATH_ROOT", path: "data/sessions", absolute: true } as const;

export const goose: Importer = {
  id: "goose",
  name: "Goose",
  chatApp: true,
  accepts: "its sessions folder, the sessions.db database in it (1.10 and later), a session's .jsonl file (before 1.10), or a zip of it",
  howToGet:
    "Goose keeps every session on disk, in sessions.db since 1.10 and as a .jsonl file each before it: pass ~/.local/share/goose/sessions (on Windows, %APPDATA%\\Block\\goose\\data\\sessions; $GOOSE_PATH_ROOT/data/sessions when you set that variable).",
  extensions: [".jsonl", "sessions.db"],
  // GOOSE_PATH_ROOT, an absolute path, holds its data folder on every system (crates/goose/src/config/paths.rs).
  appFolders: [
    { xdgData: "goose/sessions", moved: MOVED },
    { appData: "Block/goose/data/sessions", only: "win32", moved: MOVED },
  ],
  sessionLogs: true, // the .jsonl files, before 1.10
  watchedDatabase: true,
  // The file's first line, its metadata (storage.rs SessionMetadata) or, in the first versions' files, a
  // message; or the database's two tables.
  detect: (sample) => (isMetadata(sample) || isFirstMessage(sample) || isDatabase(sample) ? {} : undefined),
  // The sessions and their messages, a tool's output (a message of toolResponse items alone) emptied:
  // every row kept, as messages are numbered by their place in the session.
  smallerDatabase:
    `sqlite3 sessions.db "ATTACH 'goose-chats.db' AS chats; CREATE TABLE chats.sessions AS SELECT * FROM sessions; ` +
    "CREATE TABLE chats.messages AS SELECT id, session_id, role, created_timestamp, metadata_json, " +
    `CASE WHEN content_json LIKE '[{\\"type\\":\\"toolResponse\\"%' THEN '[]' ELSE content_json END AS content_json FROM messages"`,
  database: async function* (db) {
    yield* (await import("./database.js")).gooseRows(db);
  },
  convert: loaded(async () => {
    const { gooseItem, gooseSessions } = await import("./session.js");
    return groupedPerFile(gooseItem, gooseSessions);
  }),
};

function isMetadata(sample: Sample): boolean {
  return sample.keys.has("description") && sample.keys.has("message_count");
}

/** A Message: `{ role, created, content: [{ type, … }] }`, its role one of Goose's two. */
function isFirstMessage(sample: Sample): boolean {
  const { keys } = sample;
  return (
    ["role", "created", "content"].every((key) => keys.has(key)) &&
    sample.listKeys("content").has("type") &&
    sample.strings("role").every((role) => role === "user" || role === "assistant")
  );
}

/** sessions.db: its sessions and messages tables, with the columns every version has. */
function isDatabase(sample: Sample): boolean {
  return hasTables(sample, REQUIRED_COLUMNS);
}
