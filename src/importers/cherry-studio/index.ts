// Cherry Studio's (CherryHQ/cherry-studio) backup: Settings → Data Settings → Backup writes
// cherry-studio.<time>.zip (also to WebDAV, S3 or a local folder on a schedule), holding data.json and the
// Data folder of attached files. data.json is `{ time, version: 5, localStorage, indexedDB }`
// (src/renderer/src/services/BackupService.ts `getBackupData`): localStorage's redux state holds the
// assistants and their topics' names, indexedDB every table of the app's Dexie database as a list
// (src/renderer/src/databases/index.ts): `topics` (`{ id, messages }`), `message_blocks` and the rest.
// The backups of March 2026 on (PR #13587, "direct backup", metadata.json version 6, and v2's version 7)
// copy the IndexedDB and Local Storage folders instead (Chromium's LevelDB files): direct.ts reads them
// into data.json's shape, read here as data.json is; so are those folders in the app's own data folder
// (Electron's userData), read as the running app leaves them. The JSON backup stays as "Legacy Backup". A
// data.json can pass 512 MB (issue #12072), mostly images as base64: it is read a record at a time, never whole.
// Cherry Studio 2 (August 2026) keeps its chats in the data folder's Data/cherrystudio.sqlite (database.ts, v2.ts).
import path from "node:path";
import { hasTables, loaded, type Importer, type Sample } from "../importer.js";
import { arrayOf, isObject, jsonObjectIn } from "../json-values.js";
import { DATABASE_FILES, DIRECT_BACKUP_FILE } from "./direct-layout.js";
import { V2_COLUMNS } from "./tables.js";

const TOPICS = ["indexedDB", "topics"];

export const cherryStudio: Importer = {
  id: "cherry-studio",
  name: "Cherry Studio",
  chatApp: true,
  accepts:
    "its data folder (…/CherryStudio), 2.x's Data/cherrystudio.sqlite in it, its backup zip (cherry-studio.….zip) or the unzipped folder, or the data.json of a Legacy Backup",
  howToGet:
    "Pass its data folder as it is, even while the app runs (Settings → Data Settings shows where; --apps finds it in the usual place, ~/.config/CherryStudio, ~/Library/Application Support/CherryStudio, %APPDATA%\\CherryStudio, or where you moved it there; 2.x, since August 2026, keeps the chats in Data/cherrystudio.sqlite in it, read with what the app has not yet written into it from the -wal beside it); or Settings → Data Settings → Backup's cherry-studio.<date>.zip (since March 2026 it holds the same database folders; a Legacy Backup's data.json is read too). A topic's Export → Markdown file is read too.",
  extensions: [".json", "cherrystudio.sqlite"],
  // data.json opens with localStorage (the app's whole redux state, often past the sample): its topics
  // are the records, read one at a time, and each converted with the blocks read from the same file.
  wrappers: [TOPICS],
  foreignLayout: {
    marks: DIRECT_BACKUP_FILE,
    folders: ["IndexedDB", "Local Storage"], // the app's data folder (userData): its caches are never walked
    files: DATABASE_FILES, // 2.x's database (its -wal read beside it)
    read: async (sources) => (await import("./direct.js")).withDirectBackups(sources),
  },
  // Electron's userData, named for package.json's `name` (CherryStudio; not electron-builder's productName,
  // "Cherry Studio"): Homebrew's cask removes ~/Library/Application Support/CherryStudio. One moved in its
  // settings (Settings → Data Settings) is named in ~/.cherrystudio/config/config.json (src/main/utils/init.ts).
  // A dev build's is CherryStudioDev (src/main/config.ts), a Windows portable build's the `data` folder
  // beside its .exe: each passed as a folder.
  // Watched: 2.x's database alone (the folder's IndexedDB, Local Storage and caches change constantly), 2.0's
  // place (a beta's, at the folder's top, moves there at 2.0's first start); 1.x's IndexedDB is imported, not watched.
  appFolders: [
    {
      home: ".cherrystudio/config/config.json",
      listed: movedDataFolders,
      listNames: "the data folders it names",
      watchedDatabase: DATABASE_FILES,
    },
    { appData: "CherryStudio", watchedDatabase: DATABASE_FILES },
  ],
  watchedDatabase: true, // 2.x writes each message into it as it streams
  detect: (sample) => (isTopic(sample) || hasTables(sample, V2_COLUMNS) ? {} : undefined),
  // The topics, the assistants' prompts and the messages, less the searchable copy of their text.
  smallerDatabase:
    `sqlite3 cherrystudio.sqlite "ATTACH 'cherry-chats.sqlite' AS chats; CREATE TABLE chats.topic AS SELECT * FROM topic; ` +
    "CREATE TABLE chats.assistant AS SELECT id, prompt FROM assistant; " +
    `CREATE TABLE chats.message AS SELECT id, parent_id, topic_id, role, data, status, siblings_group_id, created_at, deleted_at FROM message"`,
  database: async function* (db) {
    yield* (await import("./database.js")).cherryStudioRows(db);
  },
  convert: loaded(async () => (await import("./convert.js")).cherryStudioConversations),
};

/**
 * The data folders config.json's `appDataPath` names (init.ts `getAppDataPathFromConfig`): one per
 * installed copy of the app, `[{ executablePath, dataPath }]`, or before that the one path as a string.
 * Every copy's: which copy runs here is the app's to know. None when it names none.
 */
function movedDataFolders(text: string): string[] {
  const named = jsonObjectIn(text)?.["appDataPath"];
  const paths = typeof named === "string" ? [named] : arrayOf(named).map((item) => (isObject(item) ? item["dataPath"] : undefined));
  return paths.filter((folder): folder is string => typeof folder === "string" && path.isAbsolute(folder));
}

/**
 * A topic row (`{ id, messages }`) in data.json's `indexedDB.topics`, or, read alone (a record found
 * again after damage), one whose first message names both its topic and its assistant (`topicId`,
 * `assistantId`): no other app's message has the two. Past the sample, a row shows only its keys.
 */
function isTopic(sample: Sample): boolean {
  if (!sample.keys.has("id") || !sample.keys.has("messages")) return false;
  if (sample.wrapper.join("/") === TOPICS.join("/")) return true;
  const message = sample.listKeys("messages");
  return message.has("topicId") && message.has("assistantId");
}
