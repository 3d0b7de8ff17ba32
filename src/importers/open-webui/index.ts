// Open WebUI's exports: Settings → Data Controls → Export Chats (every chat, one list), or one chat's
// Download → Export chat (.json) (a list of one). Both are lists of the API's chat records, which are
// the rows of the `chat` table of its database, webui.db, read as well (database.ts): in DATA_DIR, the
// Docker image's /app/backend/data (its volume), a pip install's open_webui/data folder in
// site-packages, the desktop app's (open-webui/desktop src/main/utils: DATA_DIR is userData's `data`).
import { hasTables, loaded, perRecord, type Importer, type Sample } from "../importer.js";

/** Keys beside `chat` in a chat record (any one: a temporary chat's export has fewer). */
const RECORD_KEYS = ["id", "user_id", "title", "created_at", "updated_at"];

export const openWebUi: Importer = {
  id: "open-webui",
  name: "Open WebUI",
  chatApp: true,
  accepts: "the file Export Chats saves (chat-export-….json), one chat's Export chat (.json), or its database, webui.db",
  howToGet:
    "Settings → Data Controls → Export Chats saves every chat; a chat's ⋯ menu → Download → Export chat (.json) saves one. A server's webui.db holds them too (Docker: `docker cp open-webui:/app/backend/data/webui.db .`; a pip install keeps it in open_webui/data, or $DATA_DIR): on a server of several users, its first admin's chats are imported.",
  extensions: [".json", "webui.db"],
  // The desktop app: Electron's userData is named after the app, `Open WebUI` (electron-builder's
  // productName) or `open-webui` (package.json's name): both are looked in.
  appFolders: [
    { appData: "Open WebUI/data/webui.db", file: true },
    { appData: "open-webui/data/webui.db", file: true },
  ],
  watchedDatabase: true,
  // A chat record holds the chat under `chat`; a bare chat (as early versions, which kept chats in
  // the browser, exported them) has `history` and `models`.
  detect: (sample) =>
    isDatabase(sample) ||
    (sample.keys.has("chat") && RECORD_KEYS.some((key) => sample.keys.has(key))) ||
    (sample.keys.has("history") && sample.keys.has("models"))
      ? {}
      : undefined,
  // The chats alone (no share links' copies) and the users, who tell whose chats they are.
  smallerDatabase:
    `sqlite3 webui.db "ATTACH 'webui-chats.db' AS chats; CREATE TABLE chats.chat AS SELECT * FROM chat WHERE user_id NOT LIKE 'shared-%'; ` +
    `CREATE TABLE chats.user AS SELECT * FROM main.user"`,
  database: async function* (db) {
    yield* (await import("./database.js")).openWebUiRows(db);
  },
  convert: loaded(async () => perRecord((await import("./conversation.js")).openWebUiConversation)),
};

/** webui.db: its chat table, with the columns every version has (database.ts REQUIRED_COLUMNS). */
function isDatabase(sample: Sample): boolean {
  return hasTables(sample, { chat: ["id", "user_id", "title", "chat"] });
}
