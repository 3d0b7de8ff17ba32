// Cline's tasks, and those of its forks Roo Code and Kilo Code: the VS Code extension keeps each task
// as a folder, <VS Code's user data>/User/globalStorage/<extension>/tasks/<task id>/ (Cline's CLI:
// ~/.cline/data/tasks/<task id>/), holding ui_messages.json (what the chat showed), api_conversation_history.json
// (what the model was sent) and task_metadata.json. ui_messages.json is read (task.ts says why).
// Since its move to the SDK (2026), Cline (the CLI and the VS Code extension) keeps each session as
// ~/.cline/data/sessions/<id>/<id>.messages.json beside its manifest <id>.json (session.ts).
import { VS_CODE_AND_FORKS } from "../editors.js";
import { loaded, type Importer, type Sample } from "../importer.js";
import { MODEL_SIDE } from "./model-side.js";

/** The extensions that keep tasks as Cline does: Cline, Roo Code, Kilo Code. */
const EXTENSIONS = ["saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code"];

export const cline: Importer = {
  id: "cline",
  name: "Cline",
  chatApp: true,
  accepts:
    "Cline's, Roo Code's or Kilo Code's tasks folder (in VS Code's globalStorage), a task's folder, its ui_messages.json, Cline's sessions folder (~/.cline/data/sessions), a session's .messages.json, or a zip of them",
  howToGet:
    "Cline, Roo Code and Kilo Code keep every task on disk: pass the tasks folder in VS Code's globalStorage folder (~/.config/Code/User/globalStorage on Linux, ~/Library/Application Support/Code/User/globalStorage on macOS, %APPDATA%\\Code\\User\\globalStorage on Windows; Cursor, Windsurf or VSCodium in place of Code), under saoudrizwan.claude-dev, rooveterinaryinc.roo-cline or kilocode.kilo-code; Cline's CLI kept them in ~/.cline/data/tasks, and Cline since its 2026 SDK (CLI and VS Code) keeps sessions in ~/.cline/data/sessions.",
  extensions: [".json"],
  appFolders: [
    ...VS_CODE_AND_FORKS.flatMap((editor) =>
      EXTENSIONS.map((extension) => ({ appData: `${editor}/User/globalStorage/${extension}/tasks` })),
    ),
    { home: ".cline/data/tasks" },
    { home: ".cline/data/sessions" },
  ],
  sessionLogs: true,
  detect: (sample) => (isUiMessages(sample) || isSdkSession(sample) ? {} : isApiHistory(sample) ? { aside: MODEL_SIDE } : undefined),
  sideFiles: [
    {
      keys: ["session_id", "source", "pid", "started_at", "status"],
      what: "Cline's session manifest (<id>.json: a session's model, folder and status, not what was said)",
      instead: "Pass the session's folder, or ~/.cline/data/sessions (its <id>.messages.json is the chat).",
    },
    {
      keys: ["files_in_context", "model_usage"],
      what: "Cline's task_metadata.json (the files and models a task used)",
      instead: "Pass the task's folder, or the tasks folder that holds it (ui_messages.json is the task's chat).",
    },
    {
      keys: ["id", "ts", "task", "tokensIn", "tokensOut"],
      what: "Cline's taskHistory.json (the list of tasks, not what was said in them)",
      instead: "Pass the tasks folder instead: ~/.cline/data/tasks, beside the state folder that holds this file.",
    },
  ],
  convert: loaded(async () => (await import("./convert.js")).clineFiles),
};

/** An SDK session's <id>.messages.json: buildMessagesFilePayload's object (session.ts). */
function isSdkSession(sample: Sample): boolean {
  const agents = sample.strings("agent");
  return (
    ["version", "updated_at", "agent", "sessionId", "messages"].every((key) => sample.keys.has(key)) &&
    agents.length > 0 &&
    agents.every((agent) => agent === "lead" || agent === "subagent" || agent === "teammate")
  );
}

/** A ClineMessage list: `{ ts, type: "say" | "ask", say | ask, text }` (Cline's ExtensionMessage.ts, Roo's packages/types message.ts). */
function isUiMessages(sample: Sample): boolean {
  const types = sample.strings("type");
  return (
    sample.keys.has("ts") &&
    (sample.keys.has("say") || sample.keys.has("ask")) &&
    types.length > 0 &&
    types.every((type) => type === "say" || type === "ask")
  );
}

/** Keys a message of the model's history has: an Anthropic MessageParam, and what Cline and Roo add to it. */
const API_KEYS = new Set([
  ...["role", "content", "ts", "id", "modelInfo", "metrics"], // Cline's ClineStorageMessage
  ...["isSummary", "condenseId", "condenseParent", "truncationParent", "isTruncationMarker", "truncationId"], // Roo's
]);

/**
 * The model's side of a task: a list of `{ role, content }` whose first message is the user's, its
 * content blocks (Cline sends a task as `[{ type: "text", text: "<task>…" }, …]`) or a `<task>` string.
 */
function isApiHistory(sample: Sample): boolean {
  const roles = sample.strings("role");
  return (
    sample.keys.has("role") &&
    sample.keys.has("content") &&
    [...sample.keys].every((key) => API_KEYS.has(key)) &&
    roles[0] === "user" &&
    roles.every((role) => role === "user" || role === "assistant") &&
    (sample.listKeys("content").has("type") || sample.strings("content")[0]?.startsWith("<task>") === true)
  );
}
