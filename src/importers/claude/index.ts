// Claude's data export (Settings → Privacy → Export data): conversations.json beside users.json,
// projects.json and memories.json (since mid-2026 one zip each, projects/<uuid>.json and
// memories/<uuid>.json). The memories and the projects' instructions and knowledge become memories
// (memories.ts).
import { grouped, loaded, perRecord, type Importer } from "../importer.js";
import type { ExportMemory } from "../types.js";
import { isClaudeMemoryRecord } from "./memory-files.js";

const INSTEAD = "Pass conversations.json from the same folder, or the zip as downloaded.";

export const claude: Importer = {
  id: "claude",
  name: "Claude",
  chatApp: true,
  accepts:
    "the export zip (or the folder of its part archives, conversations-000.zip…), or its conversations.json; its memories and projects become memories",
  howToGet:
    "Settings → Privacy → Export data; the link in the email downloads the zip, or a manifest whose links download its parts: save them in one folder.",
  extensions: [".json"],
  detect: (sample) => (sample.keys.has("chat_messages") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).claudeConversation)),
  sideFiles: [{ keys: ["full_name", "email_address"], what: "Claude's users.json (the account's details)", instead: INSTEAD }],
  memories: {
    detect: (sample) => isClaudeMemoryRecord(sample.keys),
    read: loaded<ExportMemory>(async () => {
      const { readMemoryRecord, claudeMemories } = await import("./memories.js");
      return grouped(readMemoryRecord, claudeMemories);
    }),
  },
};
