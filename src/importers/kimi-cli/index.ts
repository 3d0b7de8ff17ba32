// Kimi CLI's sessions (MoonshotAI/kimi-cli): a folder each, ~/.kimi/sessions/<md5 of the work
// folder>/<session id>/, holding wire.jsonl (what the UI showed, appended as the session goes on),
// context.jsonl (the model's context, rewritten when it is cleared, compacted or reverted) and
// state.json (the title the user gave). Before 0.59 a session was its context alone,
// sessions/<md5>/<session id>.jsonl; before 0.34 under ~/.local/share/kimi. session.ts says which file is read.
import { groupedPerFile, loaded, type Importer, type Sample } from "../importer.js";

export const kimiCli: Importer = {
  id: "kimi-cli",
  name: "Kimi CLI",
  chatApp: true,
  accepts: "a session's folder or its wire.jsonl, ~/.kimi/sessions (every session), or a zip of it",
  howToGet:
    "Kimi CLI keeps every session on disk: pass ~/.kimi/sessions (on Windows, .kimi\\sessions in your user folder; $KIMI_SHARE_DIR/sessions when you set that variable).",
  extensions: [".jsonl", "state.json"],
  // KIMI_SHARE_DIR moves ~/.kimi (src/kimi_cli/share.py get_share_dir); the folder of before 0.34 stays where it was.
  appFolders: [{ home: ".kimi/sessions", moved: { env: "KIMI_SHARE_DIR", path: "sessions" } }, { home: ".local/share/kimi/sessions" }],
  sessionLogs: true,
  // A session is its folder's files: any one of them changed (the watcher imports it alone) is read with the others.
  companionFiles: ["wire.jsonl", "context.jsonl", "state.json"],
  detect: (sample) => (isWire(sample) || isContext(sample) || isState(sample) ? {} : undefined),
  convert: loaded(async () => {
    const { kimiLine, kimiSessions } = await import("./session.js");
    return groupedPerFile(kimiLine, kimiSessions);
  }),
};

/**
 * wire.jsonl: since 0.86 (January 2026) a first line `{ type: "metadata", protocol_version }`, and no
 * other record with a `type` of its own; before it (from 0.59), records `{ timestamp, message: { type,
 * payload } }` from the first line. Kimi Code, its successor, opens its wire.jsonl with a metadata line
 * too (`created_at` beside the version), then records typed `turn.prompt`, `context.append_message`…: not this.
 */
function isWire(sample: Sample): boolean {
  const { keys } = sample;
  if (keys.has("protocol_version"))
    return keys.size === 2 && keys.has("type") && sample.strings("type").every((type) => type === "metadata");
  return keys.size === 2 && keys.has("timestamp") && keys.has("message");
}

/** The roles of the context's own lines, beside the messages': its system prompt, checkpoints and token counts. */
const CONTEXT_ROLES = new Set(["_system_prompt", "_checkpoint", "_usage"]);

/** context.jsonl (and the session file before 0.59): a Message a line, and the context's own lines among them. */
function isContext(sample: Sample): boolean {
  return sample.keys.has("role") && sample.strings("role").some((role) => CONTEXT_ROLES.has(role));
}

/** state.json (since February 2026): the session's approvals and, from April 2026, its title. */
function isState(sample: Sample): boolean {
  const { keys } = sample;
  return (
    keys.has("version") && keys.has("approval") && ["additional_dirs", "dynamic_subagents", "custom_title"].some((key) => keys.has(key))
  );
}
