// DeepChat's chats (ThinkInAIXYZ/deepchat, the desktop AI chat app): the sessions of its SQLite
// database in <userData>/app_db: agent.db since 1.0 (March 2026), chat.db before it, which 1.0 copies
// into agent.db at its first start and leaves in place (src/main/app/startupMigrations/
// legacyChatImportService.ts). userData is Electron's, named for the product: ~/Library/Application
// Support/DeepChat, %APPDATA%\DeepChat, ~/.config/DeepChat (electron-builder.yml productName; only
// DeepChat's end-to-end tests move it, DEEPCHAT_E2E_USER_DATA_DIR in src/main/appMain.ts).
// database.ts reads the databases, session.ts makes the conversations. With "SQLite database
// encryption" on (1.0.5 on: src/main/app/databaseSecurity.ts), agent.db is SQLCipher's, unreadable
// without the password: said so (encrypted.ts), not taken for a file of no format.
import { hasTables, loaded, perRecord, type Importer } from "../importer.js";
import { AGENT_COLUMNS, LEGACY_COLUMNS } from "./tables.js";

export const deepchat: Importer = {
  id: "deepchat",
  name: "DeepChat",
  chatApp: true,
  accepts: "its app_db folder, or the agent.db (1.0 and later) or chat.db (before 1.0) database in it",
  howToGet:
    "DeepChat keeps every chat in agent.db (chat.db before 1.0) in the app_db folder of its data folder: pass ~/Library/Application Support/DeepChat/app_db on macOS, %APPDATA%\\DeepChat\\app_db on Windows, ~/.config/DeepChat/app_db on Linux; what it has not yet written into the database, in the agent.db-wal beside it, is read too. With database encryption on, turn it off first (Settings → Data → SQLite database encryption).",
  extensions: ["agent.db", "chat.db"],
  appFolders: [{ appData: "DeepChat/app_db" }],
  watchedDatabase: true, // the app writes each message as it streams
  detect: (sample) => (isAgentDb(sample) || isChatDb(sample) ? {} : undefined),
  // The sessions and their messages with the structured tables of prompts and answers (schema 26 on),
  // without generated images' bytes (the blocks' extra_json, the `content` the blocks stand for), the
  // search index, the traces and the tape; indexed by message as DeepChat's tables are (CREATE TABLE … AS
  // SELECT copies no index), which the reader looks each message's rows up by (database.ts perMessage).
  smallerDatabase:
    `sqlite3 agent.db "ATTACH 'deepchat-chats.db' AS chats; CREATE TABLE chats.new_sessions AS SELECT * FROM new_sessions; ` +
    "CREATE TABLE chats.deepchat_messages AS SELECT id, session_id, order_seq, role, status, metadata, created_at, updated_at, " +
    "CASE WHEN id IN (SELECT message_id FROM deepchat_assistant_blocks) THEN '[]' ELSE content END AS content FROM deepchat_messages; " +
    "CREATE TABLE chats.deepchat_user_messages AS SELECT * FROM deepchat_user_messages; " +
    "CREATE TABLE chats.deepchat_user_message_files AS SELECT message_id, ordinal, name, mime_type FROM deepchat_user_message_files; " +
    "CREATE TABLE chats.deepchat_assistant_blocks AS SELECT message_id, block_index, block_type, text_content, tool_name FROM deepchat_assistant_blocks; " +
    "CREATE INDEX chats.deepchat_user_message_files_message ON deepchat_user_message_files(message_id, ordinal); " +
    `CREATE INDEX chats.deepchat_assistant_blocks_message ON deepchat_assistant_blocks(message_id, block_index)"`,
  encryptedDatabase: async (source) => (await import("./encrypted.js")).encryptedDatabase(source),
  database: async function* (db) {
    yield* (await import("./database.js")).deepchatSessions(db);
  },
  convert: loaded(async () => perRecord((await import("./session.js")).deepchatConversation)),
};

function isAgentDb(sample: Parameters<Importer["detect"]>[0]): boolean {
  return hasTables(sample, AGENT_COLUMNS);
}

/** chat.db: DeepChat's conversations and messages, without agent.db's tables (agent.db keeps tables of these names too). */
function isChatDb(sample: Parameters<Importer["detect"]>[0]): boolean {
  return hasTables(sample, LEGACY_COLUMNS) && !sample.tables.has("new_sessions");
}
