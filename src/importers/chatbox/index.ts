// Chatbox's (chatboxai/chatbox) data export: Settings → General → Backup → Export writes
// chatbox-exported-data-<Y-M-D>.json, the app's storage read whole (src/renderer/routes/settings/general.tsx
// `onExport`): `{ "chat-sessions-list": [...], "session:<id>": {...}, settings, myCopilots, __exported_items,
// __exported_at }`, or sessions in one `chat-sessions` list (src/renderer/storage/StoreStorage.ts, before
// sessions had a key each). The desktop app's own data folder (Electron's userData, named for
// release/app/package.json's productName: xyz.chatboxapp.ce, xyz.chatboxapp.app for 0.10.0 and 1.18)
// holds the same keys in IndexedDB since 1.16 (storage.ts), read into the export's shape.
import { loaded, type Importer, type Sample } from "../importer.js";
import { CHATBOX_STORAGE_FILE } from "./storage-layout.js";
import { LEVELDB_NOT_WATCHED } from "../leveldb/not-watched.js";

export const chatbox: Importer = {
  id: "chatbox",
  name: "Chatbox",
  chatApp: true,
  accepts: "the file its data export saves (chatbox-exported-data-….json), or the desktop app's data folder (…/xyz.chatboxapp.ce)",
  howToGet:
    "Settings → General → Data Backup, with Chat History ticked → Export Selected Data; pass chatbox-exported-data-<date>.json as it is. Or pass the desktop app's data folder, where it keeps its chats since 1.16 (--apps finds it: ~/.config/xyz.chatboxapp.ce, ~/Library/Application Support/xyz.chatboxapp.ce, %APPDATA%\\xyz.chatboxapp.ce; xyz.chatboxapp.app for some versions).",
  extensions: [".json"],
  foreignLayout: {
    marks: CHATBOX_STORAGE_FILE,
    folders: ["IndexedDB"], // the app's data folder (userData): its caches are never walked
    read: async (sources) => (await import("./storage.js")).withChatboxStorage(sources),
  },
  appFolders: [{ appData: "xyz.chatboxapp.ce" }, { appData: "xyz.chatboxapp.app" }],
  notWatched: LEVELDB_NOT_WATCHED,
  detect: (sample) => (isExport(sample) ? {} : undefined),
  convert: loaded(async () => (await import("./sessions.js")).chatboxSessions),
};

/** The storage's keys: a session's own key (`session:<id>`), the list of them, the older list of sessions, or the export's stamp. */
function isExport(sample: Sample): boolean {
  return (
    sample.keys.has("chat-sessions-list") ||
    sample.keys.has("chat-sessions") ||
    sample.keys.has("__exported_items") ||
    [...sample.keys].some((key) => key.startsWith("session:"))
  );
}
