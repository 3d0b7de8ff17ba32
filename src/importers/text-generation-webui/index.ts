// text-generation-webui's (oobabooga) chat histories: a JSON file per chat, written whole at every
// turn by modules/chat.py save_history: user_data/logs/chat/<character>/<unique_id>.json in chat and
// chat-instruct modes, user_data/logs/instruct/<unique_id>.json in instruct mode (logs/ beside the
// app before April 2025; logs/persistent_<character>.json, earlier logs/<character>_persistent.json,
// one history per character, before September 2023). The app lives wherever it was cloned or unzipped
// (modules/paths.py: user_data beside the portable and desktop builds' app folder; --user-data-dir
// since March 2026), so no folder is looked in by --apps. history.ts reads a file.
import { loaded, perRecord, type Importer, type Sample } from "../importer.js";

export const textGenerationWebUi: Importer = {
  id: "text-generation-webui",
  name: "text-generation-webui",
  chatApp: true,
  accepts: "a chat history's .json file, or the logs folder holding them (user_data/logs; logs before 2025)",
  howToGet:
    "text-generation-webui keeps each chat as a file in user_data/logs, where you installed or unzipped it (logs in versions before 2025): pass that folder, or a history the Chat tab's download button saved.",
  extensions: [".json"],
  detect: (sample) => (isHistory(sample) ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./history.js")).textGenerationWebUiHistory)),
};

/** `{ internal, visible, metadata }` since August 2023; `{ data, data_visible }` before (load_history still reads both). */
function isHistory(sample: Sample): boolean {
  const { keys } = sample;
  return (keys.has("internal") && keys.has("visible")) || (keys.has("data") && keys.has("data_visible"));
}
