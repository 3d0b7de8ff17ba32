// LM Studio's conversations: a file per chat, ~/.lmstudio/conversations/<created ms>.conversation.json
// (~/.cache/lm-studio/conversations before 0.3), in folders of the user's making.
import { loaded, perRecord, type Importer } from "../importer.js";

/** Keys only LM Studio's conversation files have (one of them is within the first few). */
const LM_STUDIO_KEYS = [
  "tokenCount",
  "lastUsedModel",
  "usePerChatPredictionConfig",
  "perChatPredictionConfig",
  "clientInput",
  "userFilesSizeBytes",
];

export const lmstudio: Importer = {
  id: "lmstudio",
  name: "LM Studio",
  chatApp: true,
  accepts: "a .conversation.json file, or the conversations folder (~/.lmstudio/conversations)",
  howToGet:
    "LM Studio keeps each chat as a file: pass its conversations folder, ~/.lmstudio/conversations (on Windows, .lmstudio in your user folder), or a zip of it.",
  extensions: [".json"],
  appFolders: [{ home: ".lmstudio/conversations" }],
  detect: (sample) =>
    (sample.keys.has("messages") || sample.keys.has("name")) && LM_STUDIO_KEYS.some((key) => sample.keys.has(key)) ? {} : undefined,
  convert: loaded(async () => perRecord((await import("./conversation.js")).lmStudioConversation)),
};
