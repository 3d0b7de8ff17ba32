// big-AGI's (enricoros/big-AGI) chats at rest: Backup (backup_chats_<host>_<n>_<time>.agi.json,
// `{ conversations, models, folders }`) or one chat's JSON download (conversation_<title>_<time>.agi.json,
// the conversation alone), written by src/modules/trade/trade.client.ts (`downloadAllJsonV1B`,
// `downloadSingleChat`) through src/common/stores/chat/chats.converters.ts `DataAtRestV1`; or the flash
// backup of the whole app (Backup & Restore → Backup, `{ _t: "agi.flash-backup", storage }`,
// src/modules/trade/BackupRestore.tsx `createFlashObject`), whose chats are read alone.
import { loaded, type Importer, type Sample } from "../importer.js";

export const bigAgi: Importer = {
  id: "big-agi",
  name: "big-AGI",
  chatApp: true,
  accepts: "its chats backup (backup_chats_….agi.json), a chat's JSON download (conversation_….agi.json), or its flash backup",
  howToGet:
    "Export in the chats menu → Backup All · JSON saves backup_chats_<host>_<count>_<date>.agi.json (Download · JSON saves one chat); a flash backup of the whole app (Backup & Restore) works too, its chats alone read.",
  extensions: [".json"],
  detect: (sample) => (isConversation(sample) || sample.strings("_t").includes("agi.flash-backup") ? {} : undefined),
  convert: loaded(async () => (await import("./conversation.js")).bigAgiRecords),
};

/**
 * A conversation names the persona it was held with (no other app's record has that key); one longer
 * than the sample shows only `id` and `messages`, written first: then its first message tells, with its
 * `fragments` (or before May 2024 `sender` and `typing`) beside `tokenCount`.
 */
function isConversation(sample: Sample): boolean {
  const { keys } = sample;
  if (!keys.has("messages")) return false;
  if (keys.has("systemPurposeId")) return true;
  const message = sample.listKeys("messages");
  const parts = message.has("fragments") || (message.has("sender") && message.has("typing"));
  return keys.has("id") && message.has("role") && message.has("tokenCount") && parts;
}
