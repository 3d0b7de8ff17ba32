// NextChat's (ChatGPT-Next-Web) backup: Settings → Sync → Export writes Backup-<date>.json, the app's
// stores by name (ChatGPTNextWeb/NextChat app/store/sync.ts `export()`, app/constant.ts `StoreKey`):
// `{ "chat-next-web-store": { sessions: [...], currentSessionIndex }, "access-control", "app-config", … }`.
import { loaded, perRecord, type Importer } from "../importer.js";

export const nextChat: Importer = {
  id: "nextchat",
  name: "NextChat",
  chatApp: true,
  accepts: "the backup file Export saves (Backup-….json)",
  howToGet: "Settings → Sync (Local data) → Export saves Backup-<date>.json with every chat; pass it as it is.",
  extensions: [".json"],
  wrappers: [["chat-next-web-store", "sessions"]],
  // A session's own keys: the summary NextChat keeps of a long chat, and where that summary ends.
  detect: (sample) => (sample.keys.has("memoryPrompt") && sample.keys.has("lastSummarizeIndex") ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./session.js")).nextChatSession)),
};
