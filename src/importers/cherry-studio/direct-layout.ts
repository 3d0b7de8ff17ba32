// Where a direct backup (Cherry Studio's since March 2026) is known: its IndexedDB folder's files.

/** A file of a direct backup's IndexedDB folder; its first group is the backup's root ("" or a folder it sits in). */
export const DIRECT_BACKUP_FILE = /^(.*?)IndexedDB\/[^/]+\.indexeddb\.leveldb\/[^/]+$/;

/** Cherry Studio 2's database, its path in the app's data folder (since CherryHQ/cherry-studio PR #17553, July 2026, before 2.0). */
export const DATABASE_FILE = "Data/cherrystudio.sqlite";
