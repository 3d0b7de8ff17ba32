// Chatbox's (chatboxai/chatbox) data export: Settings → General → Backup → Export writes
// chatbox-exported-data-<Y-M-D>.json, the app's storage read whole (src/renderer/routes/settings/general.tsx
// `onExport`): `{ "chat-sessions-list": [...], "session:<id>": {...}, settings, myCopilots, __exported_items,
// __exported_at }`, or sessions in one `chat-sessions` list (src/renderer/storage/StoreStorage.ts, before
// sessions had a key each).
import { loaded, type Importer, type Sample } from "../importer.js";

export const chatbox: Importer = {
  id: "chatbox",
  name: "Chatbox",
  chatApp: true,
  accepts: "the file its data export saves (chatbox-exported-data-….json)",
  howToGet:
    "Settings → General → Data Backup, with Chat History ticked → Export Selected Data; pass chatbox-exported-data-<date>.json as it is.",
  extensions: [".json"],
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
