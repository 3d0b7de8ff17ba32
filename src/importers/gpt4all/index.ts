// GPT4All's chats (nomic-ai/gpt4all, the desktop app): a file each, `gpt4all-<chat id>.chat`, in its
// data folder (its models folder, MySettings::modelPath: QStandardPaths' AppLocalDataLocation,
// "nomic.ai/GPT4All", unless moved in its settings), written with Qt's QDataStream (chat-file.ts),
// read as a JSON record (Importer.binary, met by utf16.ts asUtf8) into conversations (conversation.ts).
import { loaded, perRecord, type Importer } from "../importer.js";
import { startsAsGpt4allChat } from "./magic.js";

export const gpt4all: Importer = {
  id: "gpt4all",
  name: "GPT4All",
  chatApp: true,
  accepts: "its data folder (…/nomic.ai/GPT4All), or a gpt4all-….chat file in it",
  howToGet:
    "GPT4All keeps each chat as a gpt4all-<id>.chat file in its data folder: pass ~/.local/share/nomic.ai/GPT4All (macOS: ~/Library/Application Support/nomic.ai/GPT4All; Windows: %LOCALAPPDATA%\\nomic.ai\\GPT4All), or the download path set in its settings; --apps finds the usual one.",
  extensions: [".chat"],
  // QStandardPaths::AppLocalDataLocation for organization "nomic.ai", application "GPT4All" (main.cpp).
  appFolders: [
    { xdgData: "nomic.ai/GPT4All", only: "linux" },
    { appData: "nomic.ai/GPT4All", only: "darwin" },
    { localAppData: "nomic.ai/GPT4All", only: "win32" },
  ],
  binary: { starts: startsAsGpt4allChat, asJson: async (source) => (await import("./chat-file.js")).chatFileAsJson(source) },
  detect: (sample) => (sample.keys.has("gpt4allChat") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).gpt4allConversation)),
};
