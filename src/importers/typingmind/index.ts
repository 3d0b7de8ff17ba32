// TypingMind's export (Settings → App data & storage → Export): data.json, `{ data: { chats: [...],
// folders, userPrompts, userCharacters, … } }`, or in a zip, data.json naming chunks/chats_part_N.json
// files that each hold a list of chats.
import { loaded, perRecord, type Importer } from "../importer.js";

export const typingmind: Importer = {
  id: "typingmind",
  name: "TypingMind",
  chatApp: true,
  accepts: "the export's zip or folder, its data.json, or its chunks/chats_part_N.json files",
  howToGet: "Settings → App data & storage → Export; pass the downloaded file as it is (a zip, or data.json).",
  extensions: [".json"],
  wrappers: [["data", "chats"]],
  detect: (sample) => (sample.keys.has("chatID") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./chat.js")).typingMindChat)),
};
