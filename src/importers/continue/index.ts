// Continue's sessions (continue.dev: its VS Code and JetBrains extensions, and its CLI `cn`): each
// session a file, ~/.continue/sessions/<session id>.json, rewritten whole on each save, and beside
// them sessions.json, the list the history view shows, the only place with the sessions' dates
// (core/util/history.ts HistoryManager.save).
import { grouped, loaded, type Importer, type Sample } from "../importer.js";

export const continueDev: Importer = {
  id: "continue",
  name: "Continue",
  chatApp: true,
  accepts: "a session's .json file, ~/.continue/sessions (every session, with sessions.json for their dates), or a zip of it",
  howToGet:
    "Continue (its VS Code and JetBrains extensions, and its CLI) keeps every session on disk: pass ~/.continue/sessions (on Windows, .continue\\sessions in your user folder; $CONTINUE_GLOBAL_DIR/sessions when you set that variable).",
  extensions: [".json"],
  appFolders: [{ home: ".continue/sessions", moved: { env: "CONTINUE_GLOBAL_DIR", path: "sessions" } }], // core/util/paths.ts
  sessionLogs: true,
  companionFiles: ["sessions.json"],
  detect: (sample) => (isSession(sample) || isListed(sample) ? {} : undefined),
  convert: loaded(async () => {
    const { continueRecord, continueSessions } = await import("./session.js");
    return grouped(continueRecord, continueSessions);
  }),
};

/**
 * A session (Session, formerly PersistedSessionInfo): its id, its history, and its workspace or
 * title; or one the Python server wrote before 0.8 (`session_state`, before it `session_info`), never
 * with the `cwd` of Kiro CLI's session .json, which has those two keys too.
 */
function isSession(sample: Sample): boolean {
  const { keys } = sample;
  if (keys.has("session_id") && keys.has("session_state") && !keys.has("cwd")) return true;
  if (keys.has("session_info") && keys.has("history")) return true;
  return keys.has("sessionId") && keys.has("history") && (keys.has("workspaceDirectory") || keys.has("title"));
}

/**
 * An entry of sessions.json (BaseSessionMetadata): the session's title and creation time; or one
 * Continue's Python server wrote before 0.8 (SessionInfo, `session_id`, `date_created`), which a
 * list may still open with, its newer entries after it.
 */
function isListed(sample: Sample): boolean {
  const { keys } = sample;
  if (!keys.has("title") || keys.has("history")) return false;
  return (keys.has("sessionId") && keys.has("dateCreated")) || (keys.has("session_id") && keys.has("date_created"));
}
