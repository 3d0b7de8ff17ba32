// Qwen Code's sessions (QwenLM/qwen-code) since late 2025: a JSONL transcript each,
// ~/.qwen/projects/<working folder, each character not a letter or digit as ->/chats/<session id>.jsonl
// (chats/archive/ for archived ones). Its records are Claude Code's envelope (`uuid`, `parentUuid`,
// `sessionId`, `cwd`, `version`, `message`) around a Gemini message; Claude Code's alone carry `userType`
// and `isSidechain` on every message (Qwen Code's only on a subagent's).
// Qwen Code's sessions of 2025, Gemini CLI's files under ~/.qwen/tmp, are read by gemini-cli (qwen.ts there).
import { groupedPerFile, loaded, type Importer } from "../importer.js";

const QWEN_RUNTIME = ["QWEN_RUNTIME_DIR", "QWEN_HOME"];

export const qwenCode: Importer = {
  id: "qwen-code",
  name: "Qwen Code",
  chatApp: true,
  accepts: "a session's .jsonl file, a project's chats folder, ~/.qwen/projects (every project), or a zip of it",
  howToGet:
    "Qwen Code keeps every session on disk: pass ~/.qwen/projects (on Windows, .qwen\\projects in your user folder; under $QWEN_RUNTIME_DIR or $QWEN_HOME when you set one); its sessions of 2025 are in ~/.qwen/tmp, read as Gemini CLI's files are.",
  extensions: [".jsonl"],
  // ~/.qwen/tmp holds its sessions of 2025, Gemini CLI's files (read as theirs, stored as Qwen Code's):
  // `--apps` names the folder by the app, and reads each file by what it is.
  // QWEN_RUNTIME_DIR, else QWEN_HOME, moves them, ~ read as home (packages/core/src/config/storage.ts getRuntimeBaseDir).
  appFolders: [
    { home: ".qwen/projects", moved: { env: QWEN_RUNTIME, path: "projects", tilde: true } },
    { home: ".qwen/tmp", moved: { env: QWEN_RUNTIME, path: "tmp", tilde: true } },
  ],
  sessionLogs: true,
  detect: (sample) =>
    ["sessionId", "uuid", "parentUuid", "message"].every((key) => sample.keys.has(key)) &&
    !sample.keys.has("userType") &&
    !sample.keys.has("isSidechain")
      ? {}
      : undefined,
  convert: loaded(async () => {
    const { qwenRecord, qwenSessions } = await import("./transcript.js");
    return groupedPerFile(qwenRecord, qwenSessions);
  }),
};
