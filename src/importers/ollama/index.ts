// The chats of Ollama's desktop app (the chat window of macOS and Windows, from July 2025): every chat
// in db.sqlite, its settings beside them (ollama/ollama app/store/store.go `defaultDBPath`:
// ~/Library/Application Support/Ollama, %LOCALAPPDATA%\Ollama; app/store is built for those two systems
// alone, Linux's Ollama has no chat window). database.ts reads it, chat.ts makes the conversations.
import { hasTables, loaded, perRecord, type Importer } from "../importer.js";
import { REQUIRED_COLUMNS } from "./tables.js";

export const ollama: Importer = {
  id: "ollama",
  name: "Ollama",
  chatApp: true,
  accepts: "the desktop app's db.sqlite database",
  howToGet:
    "Ollama's app (macOS and Windows) keeps every chat in db.sqlite: pass ~/Library/Application Support/Ollama/db.sqlite on macOS, %LOCALAPPDATA%\\Ollama\\db.sqlite on Windows; what the app has not yet written into the database, in the db.sqlite-wal beside it, is read too.",
  extensions: ["db.sqlite"],
  appFolders: [
    { home: "Library/Application Support/Ollama/db.sqlite", file: true, only: "darwin" },
    { localAppData: "Ollama/db.sqlite", file: true, only: "win32" },
  ],
  watchedDatabase: true, // the app writes each message as it streams
  // The chats, their messages without thinking, the tools' names and the files' names: the
  // attachments' bytes (images, documents) are most of a large database.
  smallerDatabase:
    `sqlite3 db.sqlite "ATTACH 'ollama-chats.db' AS chats; CREATE TABLE chats.chats AS SELECT id, title, created_at FROM chats; ` +
    "CREATE TABLE chats.messages AS SELECT id, chat_id, role, content, '' AS thinking, created_at, updated_at FROM messages; " +
    "CREATE TABLE chats.tool_calls AS SELECT id, message_id, function_name FROM tool_calls; " +
    `CREATE TABLE chats.attachments AS SELECT id, message_id, filename FROM attachments"`,
  detect: (sample) => (hasTables(sample, REQUIRED_COLUMNS) ? {} : undefined),
  database: async function* (db) {
    yield* (await import("./database.js")).ollamaChats(db);
  },
  convert: loaded(async () => perRecord((await import("./chat.js")).ollamaConversation)),
};
