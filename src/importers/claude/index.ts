// Claude's data export (Settings → Privacy → Export data): conversations.json beside users.json,
// projects.json and (since 2026) memories.json.
import { loaded, perRecord, type Importer } from "../importer.js";

const INSTEAD = "Pass conversations.json from the same folder, or the zip as downloaded.";

export const claude: Importer = {
  id: "claude",
  name: "Claude",
  chatApp: true,
  accepts: "the export zip, or its conversations.json",
  howToGet: "Settings → Privacy → Export data; the link in the email downloads the zip.",
  extensions: [".json"],
  detect: (sample) => (sample.keys.has("chat_messages") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).claudeConversation)),
  sideFiles: [
    { keys: ["full_name", "email_address"], what: "Claude's users.json (the account's details)", instead: INSTEAD },
    { keys: ["prompt_template", "docs"], what: "Claude's projects.json (projects and their documents, not chats)", instead: INSTEAD },
    { keys: ["conversations_memory"], what: "Claude's memories.json (what Claude remembers, not chats)", instead: INSTEAD },
  ],
};
