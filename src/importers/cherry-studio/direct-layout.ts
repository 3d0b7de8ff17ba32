// Where a direct backup (Cherry Studio's since March 2026) is known: its IndexedDB folder's files.

/** A file of a direct backup's IndexedDB folder; its first group is the backup's root ("" or a folder it sits in). */
export const DIRECT_BACKUP_FILE = /^(.*?)IndexedDB\/[^/]+\.indexeddb\.leveldb\/[^/]+$/;
