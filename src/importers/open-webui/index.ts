// Open WebUI's exports: Settings → Data Controls → Export Chats (every chat, one list), or one chat's
// Download → Export chat (.json) (a list of one). Both are lists of the API's chat records.
import { loaded, perRecord, type Importer } from "../importer.js";

/** Keys beside `chat` in a chat record (any one: a temporary chat's export has fewer). */
const RECORD_KEYS = ["id", "user_id", "title", "created_at", "updated_at"];

export const openWebUi: Importer = {
  id: "open-webui",
  name: "Open WebUI",
  chatApp: true,
  accepts: "the file Export Chats saves (chat-export-….json), or one chat's Export chat (.json)",
  howToGet: "Settings → Data Controls → Export Chats saves every chat; a chat's ⋯ menu → Download → Export chat (.json) saves one.",
  extensions: [".json"],
  // A chat record holds the chat under `chat`; a bare chat (as early versions, which kept chats in
  // the browser, exported them) has `history` and `models`.
  detect: ({ keys }) =>
    (keys.has("chat") && RECORD_KEYS.some((key) => keys.has(key))) || (keys.has("history") && keys.has("models")) ? {} : undefined,
  convert: loaded(async () => perRecord((await import("./conversation.js")).openWebUiConversation)),
};
