// Codex's sessions (the CLI, its IDE extension and app): the coding agent writes each session as a file, one record a line,
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl (archived_sessions/ for archived ones).
import { groupedPerFile, loaded, type Importer } from "../importer.js";

/** The record types of a rollout line, `{ timestamp, type, payload }` (codex-rs/protocol, RolloutItem). */
const ROLLOUT_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);

export const codex: Importer = {
  id: "codex",
  name: "Codex",
  chatApp: true,
  accepts: "a session's rollout-….jsonl file, or ~/.codex/sessions (every session), or a zip of it",
  howToGet:
    "Codex (the CLI and its IDE extension) keeps every session on disk: pass ~/.codex/sessions (on Windows, .codex\\sessions in your user folder; $CODEX_HOME/sessions when you set that variable).",
  extensions: [".jsonl"],
  appFolders: [{ home: ".codex/sessions", moved: { env: "CODEX_HOME", path: "sessions" } }], // codex-rs/utils/home-dir find_codex_home
  sessionLogs: true,
  detect: (sample) =>
    ["timestamp", "type", "payload"].every((key) => sample.keys.has(key)) && sample.strings("type").some((type) => ROLLOUT_TYPES.has(type))
      ? {}
      : undefined,
  convert: loaded(async () => {
    const { rolloutLine, rollouts } = await import("./rollout.js");
    return groupedPerFile(rolloutLine, rollouts);
  }),
};
