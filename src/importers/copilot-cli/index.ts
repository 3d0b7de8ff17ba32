// GitHub Copilot CLI's sessions: the agent writes each session as a folder,
// ~/.copilot/session-state/<session id>/, whose events.jsonl it appends an event a line to as the session
// goes on, and whose workspace.yaml holds the session's name (read beside it: workspace.ts).
import { groupedPerFile, loaded, type Importer } from "../importer.js";

/** Event types a session's first lines have (github/copilot-sdk, nodejs/src/generated/session-events.ts). */
const EVENT_TYPES = new Set([
  "session.start",
  "session.resume",
  "session.model_change",
  "system.message",
  "user.message",
  "assistant.turn_start",
  "assistant.message",
]);

export const copilotCli: Importer = {
  id: "copilot-cli",
  name: "GitHub Copilot CLI",
  chatApp: true,
  accepts: "a session's events.jsonl file, or ~/.copilot/session-state (every session), or a zip of it",
  howToGet:
    "GitHub Copilot CLI keeps every session on disk: pass ~/.copilot/session-state (on Windows, .copilot\\session-state in your user folder; $COPILOT_HOME/session-state when you set that variable).",
  extensions: [".jsonl"],
  // COPILOT_HOME moves all of ~/.copilot (docs.github.com, copilot-cli-reference/cli-config-dir-reference).
  appFolders: [{ home: ".copilot/session-state", moved: { env: "COPILOT_HOME", path: "session-state" } }],
  sessionLogs: true,
  detect: (sample) =>
    ["type", "data", "id", "timestamp"].every((key) => sample.keys.has(key)) && sample.strings("type").some((type) => EVENT_TYPES.has(type))
      ? {}
      : undefined,
  convert: loaded(async () => {
    const { sessionEvent, sessions } = await import("./events.js");
    return groupedPerFile(sessionEvent, sessions);
  }),
};
