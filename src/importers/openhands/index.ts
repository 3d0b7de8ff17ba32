// OpenHands' conversations: the coding agent writes each event of a conversation as a JSON file of
// its own, in one of three layouts (events.ts names the code each rests on):
// - the CLI (OpenHands/OpenHands-CLI, on the agent SDK OpenHands/software-agent-sdk, 2025-10 on):
//   ~/.openhands/conversations/<id>/events/event-<n>-<event id>.json beside base_state.json;
// - the local GUI server and CLI before it (OpenHands/OpenHands "V0", to 0.62): its file store,
//   ~/.openhands/sessions/<id>/events/<n>.json beside metadata.json (~/.openhands-state before 0.44);
// - the local GUI's V1 conversations (OpenHands/OpenHands app_server, 2025-11):
//   ~/.openhands/v1/events/<id>/<YYYYMMDDHHMMSS>_<kind>_<event id>, files without a type.
import path from "node:path";
import { loaded, type Importer, type Sample } from "../importer.js";

/** The SDK's event classes, its `kind` (openhands-sdk/openhands/sdk/event, openhands-agent-server's ServerErrorEvent). */
const SDK_KINDS = new Set([
  "MessageEvent",
  "ActionEvent",
  "ObservationEvent",
  "UserRejectObservation",
  "AgentErrorEvent",
  "SystemPromptEvent",
  "Condensation",
  "CondensationRequest",
  "CondensationSummaryEvent",
  "ConversationStateUpdateEvent",
  "ConversationErrorEvent",
  "HookExecutionEvent",
  "LLMCompletionLogEvent",
  "PauseEvent",
  "InterruptEvent",
  "TokenEvent",
  "StreamingDeltaEvent",
  "ACPToolCallEvent",
  "ServerErrorEvent",
]);

/** EventSource (openhands/events/event.py; the SDK's SourceType adds "hook"). */
const SOURCES = new Set(["user", "agent", "environment", "hook"]);

export const openHands: Importer = {
  id: "openhands",
  name: "OpenHands",
  chatApp: true,
  accepts:
    "~/.openhands/conversations (the CLI's conversations), ~/.openhands/sessions or ~/.openhands/v1/events (the local GUI's), a conversation's folder, or a zip of them",
  howToGet:
    "OpenHands keeps every conversation on disk, an event a file: pass ~/.openhands/conversations for the CLI (in $OPENHANDS_PERSISTENCE_DIR when you set it), ~/.openhands/sessions and ~/.openhands/v1/events for the local GUI (~/.openhands-state/sessions before 0.44); on Windows, .openhands in your user folder.",
  // "": the V1 GUI's event files have no type.
  extensions: [".json", ""],
  appFolders: [
    // openhands_cli/locations.py: OPENHANDS_CONVERSATIONS_DIR names the folder, else OPENHANDS_PERSISTENCE_DIR moves ~/.openhands.
    { home: ".openhands/conversations", moved: { env: "OPENHANDS_CONVERSATIONS_DIR", path: "" } },
    { home: ".openhands/conversations", moved: { env: "OPENHANDS_PERSISTENCE_DIR", path: "conversations" } },
    { home: ".openhands/sessions" },
    // openhands/app_server/config.py: OH_PERSISTENCE_DIR moves the GUI's ~/.openhands.
    {
      home: ".openhands/v1/events",
      moved: { env: "OH_PERSISTENCE_DIR", path: "v1/events" },
      notWatched: "the local GUI's V1 events, which name their conversation only by their folder",
    },
    { home: ".openhands-state/sessions" },
  ],
  // Written an event a file as the conversation goes on: a watch imports the conversation's folder, as one event is no conversation.
  sessionLogs: true,
  sessionFolder: conversationFolder,
  detect: (sample) => (isSdkEvent(sample) || isFileStoreEvent(sample) ? {} : undefined),
  sideFiles: [
    {
      keys: ["id", "agent", "workspace"],
      what: "an OpenHands conversation's base_state.json (its agent's settings, not what was said)",
      instead: "Pass the conversation's folder, or ~/.openhands/conversations: its events folder holds the conversation.",
    },
    {
      keys: ["conversation_id", "selected_repository", "created_at"],
      what: "an OpenHands conversation's metadata.json (its title and repository, not what was said)",
      instead: "Pass the conversation's folder, or ~/.openhands/sessions: its events folder holds the conversation.",
    },
  ],
  convert: loaded(async () => (await import("./events.js")).openHandsEvents),
};

/** An event of the agent SDK: `{ kind, id, timestamp, source, … }` (Event.model_dump_json). */
function isSdkEvent(sample: Sample): boolean {
  const kind = sample.strings("kind")[0];
  return (
    ["kind", "id", "timestamp", "source"].every((key) => sample.keys.has(key)) &&
    kind !== undefined &&
    SDK_KINDS.has(kind) &&
    sample.strings("source").every((source) => SOURCES.has(source))
  );
}

/** An event of V0's file store: an action `{ id, timestamp, source, action, args }` or an observation `{ …, observation, content, extras }` (event_to_dict). */
function isFileStoreEvent(sample: Sample): boolean {
  const sources = sample.strings("source");
  const shaped =
    (sample.keys.has("action") && sample.keys.has("args")) ||
    (sample.keys.has("observation") && sample.keys.has("extras") && sample.keys.has("content"));
  return (
    shaped &&
    ["id", "timestamp", "source"].every((key) => sample.keys.has(key)) &&
    sources.length > 0 &&
    sources.every((source) => SOURCES.has(source))
  );
}

/**
 * The conversation's folder of an event file, read whole as the importer names it (by base_state.json's
 * or metadata.json's id beside its events): <id>/events/<event> for the CLI's and V0's; a sub-agent's
 * (<id>/subagents/<sub-agent>/events/<event>), its parent's, which leaves it out as an import does.
 */
function conversationFolder(file: string): string {
  const folder = path.dirname(file);
  const conversation = path.basename(folder) === "events" ? path.dirname(folder) : folder;
  return path.basename(path.dirname(conversation)) === "subagents" ? path.dirname(path.dirname(conversation)) : conversation;
}
