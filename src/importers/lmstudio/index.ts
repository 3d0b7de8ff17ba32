// LM Studio's conversations: a file per chat, ~/.lmstudio/conversations/<created ms>.conversation.json
// (~/.cache/lm-studio/conversations before 0.3), in folders of the user's making. The app's home folder
// moved, ~/.lmstudio-home-pointer holds its path (lmstudio-ai/lmstudio-js
// packages/lms-common-server/src/findLMStudioHome.ts: the pointer, else ~/.cache/lm-studio, else ~/.lmstudio).
import path from "node:path";
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
    "LM Studio keeps each chat as a file: pass its conversations folder, ~/.lmstudio/conversations (on Windows, .lmstudio in your user folder; --apps finds it where ~/.lmstudio-home-pointer says when moved), or a zip of it.",
  extensions: [".json"],
  appFolders: [
    { home: ".lmstudio-home-pointer", listed: conversationsOfHome, listNames: "the folder it names" },
    { home: ".lmstudio/conversations" },
    { home: ".cache/lm-studio/conversations" }, // before 0.3
  ],
  sessionLogs: true, // each chat's file is written again as it goes on
  detect: (sample) =>
    (sample.keys.has("messages") || sample.keys.has("name")) && LM_STUDIO_KEYS.some((key) => sample.keys.has(key)) ? {} : undefined,
  convert: loaded(async () => perRecord((await import("./conversation.js")).lmStudioConversation)),
};

/** The conversations folder of the home ~/.lmstudio-home-pointer names (its text, a path); none when it names none. */
function conversationsOfHome(text: string): string[] {
  const home = text.trim();
  return path.isAbsolute(home) ? [path.join(home, "conversations")] : [];
}
