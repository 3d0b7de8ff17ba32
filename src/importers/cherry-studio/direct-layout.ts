// Where a direct backup (Cherry Studio's since March 2026) is known: its IndexedDB folder's files.

/** A file of a direct backup's IndexedDB folder; its first group is the backup's root ("" or a folder it sits in). */
export const DIRECT_BACKUP_FILE = /^(.*?)IndexedDB\/[^/]+\.indexeddb\.leveldb\/[^/]+$/;

/**
 * Cherry Studio 2's database, its paths in the app's data folder: Data/ since CherryHQ/cherry-studio
 * PR #17553 (July 2026, before 2.0); the folder itself in 2.0's alpha and beta builds (moved into Data/
 * when 2.0 first starts, PR #17779).
 */
export const DATABASE_FILES = ["Data/cherrystudio.sqlite", "cherrystudio.sqlite"] as const;
