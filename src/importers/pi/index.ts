// Pi's sessions (badlogic/pi-mono, the `pi` coding agent of @mariozechner/pi-coding-agent): a file per
// session, one entry a line, ~/.pi/agent/sessions/--<its folder, / \ and : as ->--/<time>_<session id>.jsonl
// ($PI_CODING_AGENT_DIR/sessions when that is set; --session-dir puts them elsewhere). session.ts reads them.
import { groupedPerFile, loaded, type Importer } from "../importer.js";

/** The keys of a session file's first line, its header (session-manager.ts SessionHeader), in every version. */
const HEADER = ["type", "id", "timestamp", "cwd"];

export const pi: Importer = {
  id: "pi",
  name: "Pi coding agent",
  chatApp: true,
  accepts: "a session's .jsonl file, ~/.pi/agent/sessions (every project's), or a zip of it",
  howToGet:
    "Pi keeps every session on disk: pass ~/.pi/agent/sessions (on Windows, .pi\\agent\\sessions in your user folder; $PI_CODING_AGENT_DIR/sessions when you set that variable).",
  extensions: [".jsonl"],
  appFolders: [{ home: ".pi/agent/sessions", moved: { env: "PI_CODING_AGENT_DIR", path: "sessions", tilde: true } }], // config.ts getAgentDir
  sessionLogs: true,
  detect: (sample) => (HEADER.every((key) => sample.keys.has(key)) && sample.strings("type").includes("session") ? {} : undefined),
  convert: loaded(async () => {
    const { sessionEntry, sessions } = await import("./session.js");
    return groupedPerFile(sessionEntry, sessions);
  }),
};
