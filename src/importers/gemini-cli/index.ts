// Gemini CLI's sessions: the coding assistant records each session as a file,
// ~/.gemini/tmp/<project hash>/chats/session-<start>-<id>.json (to April 2026: one JSON object) or
// .jsonl (since: a record a line); subagents' sessions in chats/<session id>/.
import { loaded, perFile, type Importer } from "../importer.js";

export const geminiCli: Importer = {
  id: "gemini-cli",
  name: "Gemini CLI",
  chatApp: true,
  accepts: "a session's .json or .jsonl file, a project's chats folder, ~/.gemini/tmp (every project), or a zip of it",
  howToGet:
    "Gemini CLI keeps every session on disk: pass ~/.gemini/tmp (on Windows, .gemini\\tmp in your user folder), or one project's chats folder in it.",
  extensions: [".json", ".jsonl"],
  appFolders: [{ home: ".gemini/tmp" }],
  sessionLogs: true,
  // The session's own record (a .jsonl file's first line, or the whole .json file): ChatRecordingService writes these three first.
  detect: (sample) => (["sessionId", "projectHash", "startTime"].every((key) => sample.keys.has(key)) ? {} : undefined),
  convert: loaded(async () => perFile((await import("./session.js")).geminiCliSession)),
};
