// LibreChat's export of a conversation: its menu → Export → JSON, one file per conversation.
import { loaded, perRecord, type Importer } from "../importer.js";

/** Keys of the export's header, beside `conversationId` and the messages (any one). */
const HEADER_KEYS = ["exportAt", "endpoint", "recursive", "branches"];

export const libreChat: Importer = {
  id: "librechat",
  name: "LibreChat",
  chatApp: true,
  accepts: "a conversation's JSON export (any of its options: branches, recursive, with options)",
  howToGet: "Open the conversation, then its menu (or the export icon) → Export → JSON; each conversation is its own file.",
  extensions: [".json"],
  detect: ({ keys }) =>
    keys.has("conversationId") && (keys.has("messages") || keys.has("messagesTree")) && HEADER_KEYS.some((key) => keys.has(key))
      ? {}
      : undefined,
  convert: loaded(async () => perRecord((await import("./conversation.js")).libreChatConversation)),
};
