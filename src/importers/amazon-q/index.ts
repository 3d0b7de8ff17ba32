// Amazon Q Developer CLI (`q chat`, aws/amazon-q-developer-cli) and Kiro CLI (`kiro-cli chat`), its
// successor from November 2025 (the same code, branch release/versionBump@1.28.3 there): each keeps
// its chats in data.sqlite3 in its data folder (util/paths.rs `database_path_static`: the `dirs`
// crate's data_local_dir, joined with "amazon-q", or "kiro-cli"), a ConversationState as JSON per row
// (database/mod.rs, database.ts); `/save <path>` (later `/chat save`, cli/persist.rs) writes the same
// state to a file of the user's naming, pretty-printed. conversation.ts reads both.
import { hasTables, loaded, perRecord, type Importer, type Sample } from "../importer.js";
import { AUTH_COLUMNS, CONVERSATIONS_COLUMNS, CONVERSATIONS_V2_COLUMNS } from "./tables.js";

export const amazonQ: Importer = {
  id: "amazon-q",
  name: "Amazon Q Developer CLI",
  chatApp: true,
  accepts: "its data.sqlite3 database (Kiro CLI's too), or a conversation /save wrote to a .json file",
  howToGet:
    "Amazon Q Developer CLI and Kiro CLI keep every chat in data.sqlite3: pass ~/.local/share/amazon-q/data.sqlite3 (Kiro CLI: ~/.local/share/kiro-cli/data.sqlite3) on Linux, ~/Library/Application Support/amazon-q/data.sqlite3 (Kiro CLI: ~/Library/Application Support/kiro-cli/data.sqlite3) on macOS, %LOCALAPPDATA%\\kiro-cli\\data.sqlite3 on Windows; or a chat you saved with /save. Amazon Q keeps only the last chat of each folder you chatted in; Kiro CLI keeps them all.",
  watchedDatabase: true,
  extensions: ["data.sqlite3", ".json"],
  // dirs::data_local_dir: $XDG_DATA_HOME (else ~/.local/share), ~/Library/Application Support, %LOCALAPPDATA%
  // (Kiro CLI alone has a Windows build). The folder holds settings and logs too: the database alone is read.
  appFolders: [
    { xdgData: "amazon-q/data.sqlite3", file: true, only: "linux" },
    { home: "Library/Application Support/amazon-q/data.sqlite3", file: true, only: "darwin" },
    { xdgData: "kiro-cli/data.sqlite3", file: true, only: "linux", app: "Kiro CLI" },
    { home: "Library/Application Support/kiro-cli/data.sqlite3", file: true, only: "darwin", app: "Kiro CLI" },
    { localAppData: "kiro-cli/data.sqlite3", file: true, only: "win32", app: "Kiro CLI" },
  ],
  detect: (sample) => (isDatabase(sample) || isSavedState(sample) ? {} : undefined),
  database: async function* (db) {
    yield* (await import("./database.js")).amazonQRows(db);
  },
  convert: loaded(async () => perRecord((await import("./conversation.js")).amazonQConversation)),
};

/** data.sqlite3: its conversations tables (Amazon Q's beside the login's auth_kv; or Kiro CLI's conversations_v2). */
function isDatabase(sample: Sample): boolean {
  return (
    hasTables(sample, { conversations: CONVERSATIONS_COLUMNS, auth_kv: AUTH_COLUMNS }) ||
    hasTables(sample, { conversations_v2: CONVERSATIONS_V2_COLUMNS })
  );
}

/** A state /save wrote: serde writes the struct's fields in order, these three first. */
function isSavedState(sample: Sample): boolean {
  return ["conversation_id", "next_message", "history"].every((key) => sample.keys.has(key));
}
