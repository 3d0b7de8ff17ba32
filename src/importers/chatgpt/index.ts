// ChatGPT's data export (Settings → Data controls → Export data): conversations.json, or since 2026
// conversations-NNN.json shards listed by export_manifest.json, beside the account's other files.
import { loaded, type Importer } from "../importer.js";

const INSTEAD = "Pass conversations.json (or the conversations-NNN.json files) from the same folder, or the zip as downloaded.";

export const chatgpt: Importer = {
  id: "chatgpt",
  name: "ChatGPT",
  chatApp: true,
  accepts: "the export zip, its conversations.json, or the sharded conversations-NNN.json files with export_manifest.json",
  howToGet: "Settings → Data controls → Export data; the link in the email downloads the zip.",
  extensions: [".json"],
  // DeepSeek's export has a `mapping` too, beside `inserted_at` where ChatGPT has `create_time`.
  detect: ({ keys }) => (keys.has("mapping") && !keys.has("inserted_at") ? {} : undefined),
  // Its deep-research reports are in the library beside the conversations (library.ts).
  convert: loaded(async () => (await import("./library.js")).withLibraryReports((await import("./conversation.js")).chatgptConversation)),
  sideFiles: [
    { keys: ["email", "chatgpt_plus_user"], what: "ChatGPT's user.json (the account's details)", instead: INSTEAD },
    { keys: ["conversation_id", "is_anonymous"], what: "ChatGPT's shared_conversations.json (the links you shared)", instead: INSTEAD },
    { keys: ["conversation_id", "rating"], what: "ChatGPT's message_feedback.json (your ratings of answers)", instead: INSTEAD },
    {
      keys: ["file_id", "library_artifact_type"],
      what: "ChatGPT's library_files.json (the files of your library, deep-research reports among them)",
      instead:
        "Pass the zip as downloaded, or the folder it unzips to (or the conversations.json or conversations-NNN.json in it): the reports are read from beside the conversations, each with its own.",
    },
    {
      keys: ["export_version", "logical_files"],
      what: "ChatGPT's export_manifest.json (the list of the export's files)",
      instead: INSTEAD,
    },
  ],
};
