// Claude Code's sessions: the coding assistant keeps each session as a file, one record a line,
// ~/.claude/projects/<project folder, its / as ->/<session id>.jsonl (subagents' in <session id>/subagents/).
import { groupedPerFile, loaded, type Importer } from "../importer.js";

export const claudeCode: Importer = {
  id: "claude-code",
  name: "Claude Code",
  chatApp: true,
  accepts: "a session's .jsonl file, a project's folder of them, ~/.claude/projects (every project), or a zip of it",
  howToGet:
    "Claude Code keeps every session on disk: pass ~/.claude/projects (on Windows, .claude\\projects in your user folder; $CLAUDE_CONFIG_DIR/projects when you set that variable), or one project's folder in it.",
  extensions: [".jsonl"],
  // CLAUDE_CONFIG_DIR moves all of ~/.claude (code.claude.com/docs/en/claude-directory).
  appFolders: [{ home: ".claude/projects", moved: { env: "CLAUDE_CONFIG_DIR", path: "projects" } }],
  sessionLogs: true,
  detect: (sample) => (RECORDS.some((keys) => keys.every((key) => sample.keys.has(key))) ? {} : undefined),
  convert: loaded(async () => {
    const { sessionLine, sessions, withoutResumed } = await import("./session.js");
    const perFile = groupedPerFile(sessionLine, sessions);
    return (records) => withoutResumed(perFile(records));
  }),
};

/**
 * The keys of the records a session file starts with, any one of which tells it: a message (a user's
 * or the assistant's, in a tree of `uuid`s), a file-history snapshot, a queued prompt, or the
 * `summary` that titles a session (older versions wrote files of those alone).
 */
const RECORDS = [
  ["sessionId", "uuid", "parentUuid", "message", "isSidechain"], // Qwen Code's records lack it (qwen-code/index.ts)
  ["sessionId", "uuid", "parentUuid", "message", "userType"],
  ["snapshot", "isSnapshotUpdate", "messageId"],
  ["operation", "sessionId", "timestamp", "type"],
  ["summary", "leafUuid", "type"],
];
