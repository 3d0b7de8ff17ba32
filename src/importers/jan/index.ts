// Jan's (janhq/jan) chats, as the desktop app keeps them in its data folder: threads/<id>/thread.json
// (the thread: `object: "thread"`, title, assistants) and threads/<id>/messages.jsonl (one message a line,
// `object: "thread.message"`), written by src-tauri/src/core/threads/commands.rs (constants.rs names
// the files). There is no export: the folder is the history.
//
// Where the data folder is: settings.json's `data_folder` (written at the first start, changed by Settings →
// General → Change data folder, the folder's files copied there). Jan 0.6 on (Tauri,
// src-tauri/src/core/app/commands.rs `get_app_configurations`, `default_data_folder_path`) keeps settings.json
// in dirs::data_dir()/Jan (~/.local/share/Jan, ~/Library/Application Support/Jan, %APPDATA%\Jan), the data
// folder by default in its data/; Jan 0.5 (Electron, core/src/node/helper/config.ts) kept settings.json in
// its userData (~/.config/Jan, and the same two folders elsewhere), the data folder by default in ~/jan,
// which an upgrade keeps (Tauri reads the same settings.json; on Linux it copies ~/.config/Jan's over).
import path from "node:path";
import { loaded, type Importer, type Sample } from "../importer.js";

const SETTINGS = { listed: threadsFolder, listNames: "the data folder it names" } as const;

export const jan: Importer = {
  id: "jan",
  name: "Jan",
  chatApp: true,
  accepts: "the threads folder of Jan's data folder (a folder per chat, thread.json and messages.jsonl), or a zip of it",
  howToGet:
    "Jan keeps each chat in its data folder (Settings → General shows where; --apps finds it from Jan's settings.json): pass its threads folder, or a zip of it.",
  extensions: [".json", ".jsonl"],
  appFolders: [
    { appData: "Jan/settings.json", ...SETTINGS },
    { xdgData: "Jan/settings.json", only: "linux", ...SETTINGS }, // Jan 0.6 on: Tauri's data folder, not Electron's ~/.config
  ],
  // A thread's messages.jsonl is appended to as it goes on, beside its thread.json: a watch imports the thread's folder.
  sessionLogs: true,
  sessionFolder: (file) => path.dirname(file),
  detect: (sample) => (isThread(sample) || isMessages(sample) ? {} : undefined),
  convert: loaded(async () => (await import("./thread.js")).janThreads),
};

/** thread.json: the thread object, with the assistants it was started with. */
function isThread(sample: Sample): boolean {
  return sample.keys.has("assistants") && sample.strings("object").includes("thread");
}

/**
 * A line of messages.jsonl: a thread message, naming its thread. The app writes its keys sorted (a
 * serde_json map), so a line longer than the sample (an image pasted as a data URL) shows only those
 * before its content: then `completed_at`, and its first content part's `text` or `image_url` (its
 * `type` comes after them).
 */
function isMessages(sample: Sample): boolean {
  const { keys } = sample;
  if (keys.has("thread_id") && sample.strings("object").includes("thread.message")) return true;
  const part = sample.listKeys("content");
  return keys.has("completed_at") && keys.has("content") && (part.has("text") || part.has("image_url"));
}

/** The threads folder of the data folder settings.json names; none when it names none, or a relative path (not one the app would have made). */
function threadsFolder(text: string): string[] {
  try {
    const folder: unknown = (JSON.parse(text) as { data_folder?: unknown } | null)?.data_folder;
    return typeof folder === "string" && path.isAbsolute(folder) ? [path.join(folder, "threads")] : [];
  } catch {
    return [];
  }
}
