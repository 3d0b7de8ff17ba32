// Aider's chat history: aider appends each session to .aider.chat.history.md in the repository it
// runs in (--chat-history-file), a `# aider chat started at …` heading first (aider/io.py).
import { type Importer, loaded } from "../importer.js";
import { isAiderHistory, SESSION_HEADING } from "./history.js";

export const aider: Importer = {
  id: "aider",
  name: "Aider",
  chatApp: true,
  accepts: "a repository's .aider.chat.history.md, the repository's folder, or a zip of it",
  howToGet:
    "Aider appends every session to .aider.chat.history.md in the repository it ran in (a hidden file): pass that file, or the repository's folder.",
  extensions: [".md"],
  sessionLogs: true,
  sessionFileName: /^\.aider\.chat\.history\.md$/,
  sectionHeading: SESSION_HEADING,
  detect: (sample) => (isAiderHistory(sample.text) ? {} : undefined),
  convert: loaded(async () => (await import("./sessions.js")).aiderSessions),
};
