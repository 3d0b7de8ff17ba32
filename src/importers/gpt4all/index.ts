// GPT4All's chats (nomic-ai/gpt4all, the desktop app): a file each, `gpt4all-<chat id>.chat`, in its
// data folder (its models folder, MySettings::modelPath: QStandardPaths' AppLocalDataLocation,
// "nomic.ai/GPT4All", unless moved in its settings), written with Qt's QDataStream (chat-file.ts),
// read as a JSON record (Importer.binary, met by utf16.ts asUtf8) into conversations (conversation.ts).
// Version 0 (2.4.0 and 2.4.1, May 2023) kept them in its settings folder (~/.config/nomic.ai): read
// when passed, not looked for (GPT4All itself converts them at its next start).
import path from "node:path";
import { loaded, perRecord, type Importer } from "../importer.js";
import { startsAsGpt4allChat } from "./magic.js";

/**
 * The download folder GPT4All.ini names (MySettings::setModelPath: `modelPath`, in [General], the
 * folder's canonical path and a slash; `modelPaths` as 2.4.11 wrote it, until the app renames it), where
 * the chats are kept when it was moved in the app's settings.
 */
export function modelFolders(ini: string): string[] {
  if (ini.length > MAX_INI_CHARS) return [];
  const values = new Map<string, string>();
  let section = "General";
  for (const line of ini.split(/\r?\n/)) {
    const header = /^\s*\[(.*)\]\s*$/.exec(line);
    if (header) section = header[1] ?? "";
    const entry = /^\s*(modelPaths?)\s*=(.*)$/.exec(line);
    if (entry && section === "General") values.set(entry[1]!, iniString(entry[2]!.trim()));
  }
  const folder = values.get("modelPath") ?? values.get("modelPaths");
  return folder !== undefined && path.isAbsolute(folder) ? [path.resolve(folder)] : [];
}

/** More than GPT4All.ini holds (a few KB): a larger file is not its settings, and is not split into lines (150 MB of line breaks ran --apps out of memory). */
const MAX_INI_CHARS = 1024 * 1024;

/** A string value as QSettings writes it to an INI file: quoted where it must be, `\\`, `\"` and `\xHHHH` escaped. */
function iniString(raw: string): string {
  return raw
    .replace(/^"(.*)"$/, "$1")
    .replace(/\\(?:x([0-9a-fA-F]{1,4})|(.))/g, (_, hex: string | undefined, char: string) =>
      hex === undefined ? char : String.fromCharCode(Number.parseInt(hex, 16)),
    );
}

const SETTINGS = { listed: modelFolders, listNames: "the download folder it names" } as const;

export const gpt4all: Importer = {
  id: "gpt4all",
  name: "GPT4All",
  chatApp: true,
  accepts: "its data folder (…/nomic.ai/GPT4All), or a gpt4all-….chat file in it",
  howToGet:
    "GPT4All keeps each chat as a gpt4all-<id>.chat file in its data folder: pass ~/.local/share/nomic.ai/GPT4All (macOS: ~/Library/Application Support/nomic.ai/GPT4All; Windows: %LOCALAPPDATA%\\nomic.ai\\GPT4All), or the download path set in its settings; --apps finds it, from GPT4All.ini where it was moved.",
  extensions: [".chat"],
  // QStandardPaths::AppLocalDataLocation for organization "nomic.ai", application "GPT4All" (main.cpp).
  appFolders: [
    { xdgData: "nomic.ai/GPT4All", only: "linux" },
    { appData: "nomic.ai/GPT4All", only: "darwin" },
    { localAppData: "nomic.ai/GPT4All", only: "win32" },
    // Its settings file (QSettings' IniFormat, main.cpp: ~/.config or $XDG_CONFIG_HOME, ~/.config on macOS, %APPDATA%) names the folder it was moved to.
    { appData: "nomic.ai/GPT4All.ini", only: "linux", ...SETTINGS },
    { home: ".config/nomic.ai/GPT4All.ini", only: "darwin", ...SETTINGS },
    { appData: "nomic.ai/GPT4All.ini", only: "win32", ...SETTINGS },
  ],
  sessionLogs: true, // each chat's file is written again as it goes on
  sessionFileName: /^gpt4all-.+\.chat$/,
  binary: { starts: startsAsGpt4allChat, asJson: async (source) => (await import("./chat-file.js")).chatFileAsJson(source) },
  detect: (sample) => (sample.keys.has("gpt4allChat") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).gpt4allConversation)),
};
