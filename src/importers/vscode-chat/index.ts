// VS Code's chat (GitHub Copilot Chat, and the chat built into VS Code): each session a file in
// <user dir>/workspaceStorage/<workspace id>/chatSessions/ (a window without a folder:
// globalStorage/emptyWindowChatSessions/), <session id>.json (the whole session, before 1.109) or
// <session id>.jsonl (a log of the changes to it, since: chatSessionStore.ts getStorageLocation).
import { VS_CODE } from "../editors.js";
import { loaded, perFile, type Importer, type Sample } from "../importer.js";

export const vscodeChat: Importer = {
  id: "vscode-chat",
  name: "VS Code chat",
  chatApp: true,
  accepts:
    "a session's .json or .jsonl file from a chatSessions folder, VS Code's workspaceStorage folder (every workspace), or a zip of it",
  howToGet:
    "VS Code keeps every chat session on disk: pass the workspaceStorage folder of its user folder (~/.config/Code/User on Linux, ~/Library/Application Support/Code/User on macOS, %APPDATA%\\Code\\User on Windows), and globalStorage/emptyWindowChatSessions in it.",
  extensions: [".json", ".jsonl"],
  appFolders: VS_CODE.flatMap((editor) => [
    { appData: `${editor}/User/workspaceStorage` },
    { appData: `${editor}/User/globalStorage/emptyWindowChatSessions` },
  ]),
  sessionLogs: true,
  detect: (sample) => (isSession(sample) || isLogStart(sample) ? {} : undefined),
  convert: loaded(async () => perFile((await import("./session.js")).vscodeChatSession)),
};

/** A whole session (ISerializableChatData: versions 2 and 3 say so, version 1 has no `version`), by its fields before the requests. */
function isSession(sample: Sample): boolean {
  const { keys } = sample;
  return (
    keys.has("responderUsername") &&
    (keys.has("version") || keys.has("requesterUsername")) &&
    (keys.has("requests") || keys.has("sessionId"))
  );
}

/** A log's first line: `{ kind: 0, v: <the session> }` (objectMutationLog.ts), nothing else. */
function isLogStart(sample: Sample): boolean {
  return sample.keys.size === 2 && sample.keys.has("kind") && sample.keys.has("v");
}
