// Kiro CLI's sessions of its terminal UI (`kiro-cli --tui`; the default since 2.0.1, April 2026) and of
// its ACP agent (`kiro-cli acp`, editors' agent panels): ~/.kiro/sessions/cli/<session id>.json (the
// session's metadata) beside <session id>.jsonl (its event log, appended as it goes on). Its classic UI
// keeps chats in data.sqlite3, read by the amazon-q importer. session.ts says what is read.
import { groupedPerFile, loaded, type Importer, type Sample } from "../importer.js";

export const kiroCli: Importer = {
  id: "kiro-cli",
  name: "Kiro CLI",
  chatApp: true,
  accepts: "~/.kiro/sessions/cli (every session), or a session's .jsonl or .json there",
  howToGet:
    "Kiro CLI's terminal UI (the default since 2.0) keeps every session on disk: pass ~/.kiro/sessions/cli (on Windows, .kiro\\sessions\\cli in your user folder). Its classic UI's chats are in data.sqlite3 (see Amazon Q Developer CLI).",
  extensions: [".jsonl", ".json"],
  // util/paths.rs sessions_dir: dirs::home_dir()/.kiro/sessions/cli on every system (KIRO_TEST_SESSIONS_DIR is the tests' own).
  appFolders: [{ home: ".kiro/sessions/cli" }],
  sessionLogs: true,
  // A session is its two files: either one changed (the watcher imports it alone) is read with the other.
  companionFiles: (name) => {
    const stem = name.replace(/\.jsonl?$/i, "");
    return stem === name ? [] : [`${stem}.json`, `${stem}.jsonl`].filter((file) => file !== name);
  },
  detect: (sample) => (isEventLog(sample) || isSessionData(sample) ? {} : undefined),
  convert: loaded(async () => {
    const { kiroLine, kiroSessions } = await import("./session.js");
    return groupedPerFile(kiroLine, kiroSessions);
  }),
};

/** The LogEntry kinds of crates/agent/src/agent/event_log.rs (serde: `{ version: "v1", kind, data }`). */
export const LOG_KINDS = new Set(["Prompt", "AssistantMessage", "ToolResults", "Compaction", "ResetTo", "CancelledPrompt", "Clear"]);

/** <id>.jsonl: a LogEntry a line, its version and kind first. */
function isEventLog(sample: Sample): boolean {
  const { keys } = sample;
  const kinds = sample.strings("kind");
  return (
    keys.has("version") &&
    keys.has("kind") &&
    [...keys].every((key) => key === "version" || key === "kind" || key === "data") &&
    sample.strings("version").every((version) => version === "v1") &&
    kinds.some((kind) => LOG_KINDS.has(kind)) // a kind of a later version among them is passed over when read
  );
}

/** <id>.json: SessionData (crates/chat-cli-v2/src/agent/session/mod.rs), serde's field order. */
function isSessionData(sample: Sample): boolean {
  return ["session_id", "cwd", "created_at", "updated_at", "session_state"].every((key) => sample.keys.has(key));
}
