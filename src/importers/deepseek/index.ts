// DeepSeek: the data export's conversations.json, and the JSON of one chat as the web app loads it
// (its history_messages response, as browser exporter scripts save it).
import { loaded, perRecord, type Importer, type Sample } from "../importer.js";

export const deepSeek: Importer = {
  id: "deepseek",
  name: "DeepSeek",
  chatApp: true,
  accepts: "the export zip, its conversations.json, or a chat's JSON as the web app loads it (history_messages)",
  howToGet: "chat.deepseek.com → Settings → Data → Export all chats; the zip downloads.",
  extensions: [".json"],
  detect: (sample) => (isExportRecord(sample) || isWebAppChat(sample) ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).deepSeekConversation)),
};

/** The export's record has ChatGPT's `mapping` beside its own `inserted_at` (ChatGPT's times are `create_time`). */
function isExportRecord({ keys }: Sample): boolean {
  return keys.has("mapping") && keys.has("inserted_at");
}

/** The web app's response (`{ code, msg, data }`), its `biz_data`, or the chat inside it. */
function isWebAppChat({ keys }: Sample): boolean {
  return (
    (keys.has("code") && keys.has("msg") && keys.has("data")) ||
    keys.has("biz_data") ||
    (keys.has("chat_session") && keys.has("chat_messages"))
  );
}
