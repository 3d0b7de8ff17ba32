// SillyTavern's chats: a .jsonl file per chat (data/<user>/chats/<character>/, group chats in
// data/<user>/group chats/), as "Export chat" (.jsonl) also gives it: a header line, then a message a line.
import { loaded, perFile, type Importer, type Sample } from "../importer.js";

export const sillytavern: Importer = {
  id: "sillytavern",
  name: "SillyTavern",
  chatApp: true,
  accepts: "a chat's .jsonl file, or a folder of them (SillyTavern's data/default-user/chats, or a character's folder in it)",
  howToGet:
    "Chat menu → Manage chat files → export a chat as .jsonl; or pass SillyTavern's data/default-user/chats folder (a folder per character) and its group chats folder.",
  extensions: [".jsonl"],
  detect: (sample) => (isHeader(sample) || isMessage(sample) ? {} : undefined),
  convert: loaded(async () => perFile((await import("./chat.js")).sillyTavernChat)),
};

/** A chat's first line: who talks with whom, and the chat's settings. */
function isHeader(sample: Sample): boolean {
  return sample.keys.has("user_name") && sample.keys.has("character_name") && !sample.keys.has("mes");
}

/** A message line (a group chat's file has no header). */
function isMessage(sample: Sample): boolean {
  return sample.keys.has("mes") && sample.keys.has("is_user") && sample.keys.has("name");
}
