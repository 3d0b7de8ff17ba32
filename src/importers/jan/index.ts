// Jan's (janhq/jan) chats, as the desktop app keeps them in its data folder: threads/<id>/thread.json
// (the thread: `object: "thread"`, title, assistants) and threads/<id>/messages.jsonl (one message a line,
// `object: "thread.message"`), written by src-tauri/src/core/threads/commands.rs (constants.rs names
// the files). There is no export: the folder is the history.
import { loaded, type Importer, type Sample } from "../importer.js";

export const jan: Importer = {
  id: "jan",
  name: "Jan",
  chatApp: true,
  accepts: "the threads folder of Jan's data folder (a folder per chat, thread.json and messages.jsonl), or a zip of it",
  howToGet: "Jan keeps each chat in its data folder (Settings → General shows where): pass its threads folder, or a zip of it.",
  extensions: [".json", ".jsonl"],
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
