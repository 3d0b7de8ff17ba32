// Gemini CLI's sessions: the coding assistant records each session as a file,
// ~/.gemini/tmp/<project hash>/chats/session-<start>-<id>.json (to April 2026: one JSON object) or
// .jsonl (since: a record a line); subagents' sessions in chats/<session id>/. And the chats saved with
// `/chat save <tag>`: ~/.gemini/tmp/<project hash>/checkpoint-<tag>.json (checkpoint.ts). Qwen Code's
// of 2025, under ~/.qwen/tmp, are the same files, stored as Qwen Code's (qwen.ts).
import { loaded, perFile, type Importer, type Sample } from "../importer.js";

export const geminiCli: Importer = {
  id: "gemini-cli",
  name: "Gemini CLI",
  chatApp: true,
  accepts:
    "a session's .json or .jsonl file, a chat /chat save saved (checkpoint-….json), a project's chats folder, ~/.gemini/tmp (every project), or a zip of it",
  howToGet:
    "Gemini CLI keeps every session, and the chats saved with /chat save, on disk: pass ~/.gemini/tmp (on Windows, .gemini\\tmp in your user folder; $GEMINI_CLI_HOME/.gemini/tmp when you set that variable), or one project's chats folder in it. Qwen Code's sessions of 2025 are the same files, in ~/.qwen/tmp.",
  extensions: [".json", ".jsonl"],
  // GEMINI_CLI_HOME stands for the home folder (packages/core/src/utils/paths.ts homedir). Qwen Code's
  // ~/.qwen/tmp is named under Qwen Code (qwen-code/index.ts).
  appFolders: [{ home: ".gemini/tmp", moved: { env: "GEMINI_CLI_HOME", path: ".gemini/tmp" } }],
  sessionLogs: true,
  // The session's own record (a .jsonl file's first line, or the whole .json file): ChatRecordingService writes these three first.
  detect: (sample) =>
    ["sessionId", "projectHash", "startTime"].every((key) => sample.keys.has(key)) || isCheckpoint(sample) ? {} : undefined,
  convert: loaded(async () => {
    const { geminiCliSession } = await import("./session.js");
    const { geminiCliCheckpoint, isCheckpoint } = await import("./checkpoint.js");
    const { withQwenCode } = await import("./qwen.js");
    return perFile((records) => withQwenCode(records, isCheckpoint(records) ? geminiCliCheckpoint(records) : geminiCliSession(records)));
  }),
};

/**
 * A chat saved with /chat save (core/core/logger.ts): `{ history, authType }`, the history a list of
 * Gemini API `Content`; to November 2025 that list alone. Not a file edit's restore point
 * (checkpoints/*.json), whose `history` is the screen's and `clientHistory` the model's.
 */
function isCheckpoint(sample: Sample): boolean {
  const { keys } = sample;
  if (keys.has("history")) {
    const content = sample.listKeys("history");
    return !keys.has("toolCall") && !keys.has("clientHistory") && content.has("role") && content.has("parts");
  }
  return (
    keys.size === 2 && keys.has("role") && keys.has("parts") && sample.strings("role").every((role) => role === "user" || role === "model")
  );
}
