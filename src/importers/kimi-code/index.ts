// Kimi Code CLI's sessions (MoonshotAI/kimi-code), Kimi CLI's successor: a folder each,
// ~/.kimi-code/sessions/<wd_ bucket of the work folder>/<session id>/, holding state.json (title,
// agents) and agents/<agent id>/wire.jsonl, the main agent's under agents/main. session.ts says how it is read.
import { groupedPerFile, loaded, type Importer, type Sample } from "../importer.js";

export const kimiCode: Importer = {
  id: "kimi-code",
  name: "Kimi Code CLI",
  chatApp: true,
  accepts: "a session's agents/main/wire.jsonl, ~/.kimi-code/sessions (every session), or a zip of it",
  howToGet:
    "Kimi Code CLI keeps every session on disk: pass ~/.kimi-code/sessions (on Windows, .kimi-code\\sessions in your user folder; $KIMI_CODE_HOME/sessions when you set that variable).",
  extensions: [".jsonl"],
  appFolders: [{ home: ".kimi-code/sessions", moved: { env: "KIMI_CODE_HOME", path: "sessions" } }], // app/bootstrap/bootstrap.ts
  sessionLogs: true,
  detect: (sample) => (isWire(sample) ? {} : undefined),
  convert: loaded(async () => {
    const { kimiCodeLine, kimiCodeSessions } = await import("./session.js");
    return groupedPerFile(kimiCodeLine, kimiCodeSessions);
  }),
};

/**
 * wire.jsonl (agent-core-v2 wire/wire.ts): a first line `{ type: "metadata", protocol_version,
 * created_at }` (Kimi CLI's has no `created_at`), then records `{ type: "turn.prompt" |
 * "context.append_message" | …, …payload, time }`, their types dotted.
 */
function isWire(sample: Sample): boolean {
  const { keys } = sample;
  if (!keys.has("type")) return false;
  const types = sample.strings("type");
  if (keys.has("protocol_version")) return keys.has("created_at") && types.includes("metadata");
  return types.some((type) => WIRE_TYPES.has(type));
}

/** The records only Kimi Code's wire has, by which a wire cut before its metadata line is known. */
const WIRE_TYPES = new Set(["context.append_message", "context.append_loop_event", "turn.prompt"]);
