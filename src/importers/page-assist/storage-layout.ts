// Where Page Assist's database may be among an import's files: a Chromium extension's IndexedDB folder
// (storage.ts reads it and keeps it when its database is Page Assist's).

/**
 * A file of an extension's IndexedDB folder in a profile's IndexedDB (its first group the folder that
 * holds it: "" or a path ending in "IndexedDB/"), or a LevelDB's MANIFEST at the top of what was passed:
 * the extension's folder itself (`--apps` finds it so).
 */
export const EXTENSION_DATABASE_FILE = /^(?:(.*?)chrome-extension_[a-p]{32}_0\.indexeddb\.leveldb\/[^/]+|MANIFEST-\d+)$/;
