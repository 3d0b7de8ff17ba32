// AnythingLLM (Mintplex-Labs/anything-llm), desktop and Docker: every workspace's chats and threads
// are rows of storage/anythingllm.db, a SQLite database (Prisma), read by database.ts and
// conversation.ts; its chat export as JSON is read by export.ts. The desktop app keeps storage/ in its Electron folder, anythingllm-desktop; the
// Docker image in /app/server/storage, mounted from the host ($STORAGE_LOCATION in its docs).
import { grouped, loaded, type Importer, type Sample, hasTables } from "../importer.js";
import { EXPORT_KEYS, REQUIRED_COLUMNS } from "./tables.js";

export const anythingLlm: Importer = {
  id: "anythingllm",
  name: "AnythingLLM",
  chatApp: true,
  accepts: "its storage folder, or the anythingllm.db database in it (every thread apart), or its chat export as JSON",
  howToGet:
    "AnythingLLM keeps every workspace's chats in storage/anythingllm.db: pass the desktop app's storage folder (~/Library/Application Support/anythingllm-desktop/storage on macOS, %APPDATA%\\anythingllm-desktop\\storage on Windows, ~/.config/anythingllm-desktop/storage on Linux) or, for Docker, the folder mounted on /app/server/storage. Without the folder, Settings → Workspace Chats → Export → JSON gives each workspace's chats, threads together.",
  extensions: [".json", "anythingllm.db"],
  appFolders: [{ appData: "anythingllm-desktop/storage/anythingllm.db", file: true }],
  watchedDatabase: true,
  detect: (sample) => (isDatabase(sample) || EXPORT_KEYS.every((key) => sample.keys.has(key)) ? {} : undefined),
  // The chats the app shows (include = 1), their workspaces and threads: not its documents' tables.
  smallerDatabase:
    `sqlite3 anythingllm.db "ATTACH 'anythingllm-chats.db' AS chats; CREATE TABLE chats.workspaces AS SELECT * FROM workspaces; ` +
    "CREATE TABLE chats.workspace_threads AS SELECT * FROM workspace_threads; " +
    `CREATE TABLE chats.workspace_chats AS SELECT * FROM workspace_chats WHERE include = 1"`,
  database: async function* (db) {
    yield* (await import("./database.js")).anythingLlmRows(db);
  },
  convert: loaded(async () => {
    const { anythingLlmRecord, anythingLlmConversations } = await import("./conversation.js");
    return grouped(anythingLlmRecord, anythingLlmConversations);
  }),
};

/** anythingllm.db: its workspaces and workspace_chats tables, with the columns every version has. */
function isDatabase(sample: Sample): boolean {
  return hasTables(sample, REQUIRED_COLUMNS);
}
