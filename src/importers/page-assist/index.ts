// Page Assist's (n4ze3m/page-assist, the browser extension for local models) data export: Settings → System
// Settings → Export Data writes page-assist-<ISO time>.json (src/libs/export-import.ts
// `exportPageAssistData`): `{ knowledge, chat, vector, prompts, … }`, `chat` a list of `{ history,
// messages }` (src/db/dexie/helpers.ts `exportChatHistory`). Every version keeps that `chat` list: May
// 2024 (677aa6ef, chats then in chrome.storage.local, messages newest first) `{ knowledge, chat, vector,
// prompts }`; the Dexie move of June 2025 (42980e68) the same; August 2025 (0628f1db) adds `oaiConfigs`,
// `nicknames`, `models`; November 2025 (5d839545) `storageLocal`, `storageSync`; March 2026 `mcpServers`;
// April 2026 (2aeda2c2) writes only the sections picked. The extension's own database in a Chromium
// profile (Chrome, Edge, Brave, Chromium) is read into the same shape (storage.ts). Firefox keeps an
// extension's IndexedDB in SQLite files of its own encoding: not read.
import { basename, dirname, join } from "node:path";
import { loaded, perRecord, type AppFolder, type Importer, type Sample } from "../importer.js";
import { isObject, jsonObjectIn } from "../json-values.js";
import { EXTENSION_DATABASE_FILE } from "./storage-layout.js";
import { LEVELDB_NOT_WATCHED } from "../leveldb/not-watched.js";

const CHAT = ["chat"];
/** The extension's ids in the Chrome Web Store (Chrome, Brave, Chromium, Edge too) and Edge Add-ons (README.md). */
const CHROME_WEB_STORE = "jfgfiigpkhlkbnfnbobbkinehhfdhndo";
const EDGE_ADD_ONS = "ogkogooadflifpmmidmhjedogicnhooa";

/** Each browser's user data folder per system, and the ids the extension has there. */
const BROWSERS: readonly { linux: string; darwin: string; win32: string; ids: readonly string[] }[] = [
  { linux: "google-chrome", darwin: "Google/Chrome", win32: "Google/Chrome/User Data", ids: [CHROME_WEB_STORE] },
  { linux: "microsoft-edge", darwin: "Microsoft Edge", win32: "Microsoft/Edge/User Data", ids: [EDGE_ADD_ONS, CHROME_WEB_STORE] },
  {
    linux: "BraveSoftware/Brave-Browser",
    darwin: "BraveSoftware/Brave-Browser",
    win32: "BraveSoftware/Brave-Browser/User Data",
    ids: [CHROME_WEB_STORE],
  },
  { linux: "chromium", darwin: "Chromium", win32: "Chromium/User Data", ids: [CHROME_WEB_STORE] },
];

export const pageAssist: Importer = {
  id: "page-assist",
  name: "Page Assist",
  chatApp: true,
  accepts:
    "the file its export saves (page-assist-….json), or a Chromium profile's folder (Chrome, Edge, Brave), its IndexedDB folder, or the extension's database folder in it (chrome-extension_…_0.indexeddb.leveldb)",
  howToGet:
    "Settings → System Settings → Export Data (with Chat History ticked) saves page-assist-<date>.json: pass it as it is. Or pass the browser profile's folder (Chrome, Edge, Brave, Chromium), where the extension keeps its chats in IndexedDB: --apps finds them in each profile (~/.config/google-chrome/Default and the like). Firefox's copy is not read: export it.",
  extensions: [".json"],
  wrappers: [CHAT],
  foreignLayout: {
    marks: EXTENSION_DATABASE_FILE,
    folders: ["IndexedDB"], // a browser profile: its caches are never walked
    read: async (sources) => (await import("./storage.js")).withPageAssistStorage(sources),
  },
  appFolders: browserProfiles(),
  notWatched: LEVELDB_NOT_WATCHED,
  detect: (sample) => (isChat(sample) ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./chat.js")).pageAssistChat)),
};

/**
 * A `{ history, messages }` of the export's `chat` list; or, read alone (a record found again after
 * damage), one whose first message names its chat by `history_id`, as no other app's does.
 */
function isChat(sample: Sample): boolean {
  if (!sample.keys.has("history") || !sample.keys.has("messages")) return false;
  return sample.wrapper.join("/") === CHAT.join("/") || sample.listKeys("messages").has("history_id");
}

/**
 * The extension's database folder in each profile of each browser, from the browser's Local State in
 * its user data folder (~/.config, ~/Library/Application Support, %LOCALAPPDATA%), which lists every profile.
 */
function browserProfiles(): AppFolder[] {
  return BROWSERS.flatMap((browser) => {
    const listing = {
      listed: (text: string, list: string) => extensionDatabases(text, dirname(list), browser.ids),
      listNames: "each profile's Page Assist database",
    };
    return [
      { appData: `${browser.linux}/Local State`, only: "linux", ...listing },
      { appData: `${browser.darwin}/Local State`, only: "darwin", ...listing },
      { localAppData: `${browser.win32}/Local State`, only: "win32", ...listing },
    ];
  });
}

/**
 * Chromium's Local State names each profile's folder under the user data folder (`profile.info_cache`,
 * profile_attributes_storage.cc: Default, Profile 1, …, whatever the user added): the extension's
 * database in each, under each id the browser may have given it. A name that is not one folder is not followed.
 */
function extensionDatabases(text: string, userData: string, ids: readonly string[]): string[] {
  const profiles = jsonObjectIn(text)?.["profile"];
  const cache = isObject(profiles) ? profiles["info_cache"] : undefined;
  const names = isObject(cache) ? Object.keys(cache).filter((name) => name === basename(name) && name !== ".." && name !== ".") : [];
  return names.flatMap((profile) => ids.map((id) => join(userData, profile, "IndexedDB", `chrome-extension_${id}_0.indexeddb.leveldb`)));
}
