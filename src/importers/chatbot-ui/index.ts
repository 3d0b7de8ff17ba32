// Chatbot UI (mckaywrigley/chatbot-ui): the legacy app's Export (chatbot_ui_history_<M-D>.json, export
// formats 1 to 4) and the 2024 app's "Download Chatbot UI 1.0 data as JSON" (chatbot-ui-data.json).
import { loaded, type Importer, type Sample } from "../importer.js";

/** Every key a Chatbot UI conversation has (v1 had the first three). */
const CONVERSATION_KEYS = new Set(["id", "name", "messages", "model", "prompt", "temperature", "folderId"]);

export const chatbotUi: Importer = {
  id: "chatbot-ui",
  name: "Chatbot UI",
  chatApp: true,
  accepts: "the exported chatbot_ui_history JSON (export formats 1–4), or chatbot-ui-data.json",
  howToGet:
    "The legacy app: Export at the foot of the sidebar (chatbot_ui_history_M-D.json); the 2024 app: the download icon in Profile settings (chatbot-ui-data.json).",
  extensions: [".json"],
  wrappers: [["history"]],
  detect: (sample) => (isConversation(sample) || isExport(sample) || sample.keys.has("conversationHistory") ? {} : undefined),
  convert: loaded(async () => (await import("./conversations.js")).chatbotUiConversations),
};

/** A conversation (the records of every export format): its name and messages, and no key Chatbot UI does not write. */
function isConversation(sample: Sample): boolean {
  return sample.keys.has("name") && sample.keys.has("messages") && [...sample.keys].every((key) => CONVERSATION_KEYS.has(key));
}

/** Export formats 2–4 read whole: `{ version?, history, folders, prompts? }` (a `history` of null has no list to read). */
function isExport(sample: Sample): boolean {
  return sample.keys.has("history") && sample.keys.has("folders");
}
