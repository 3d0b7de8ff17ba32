// Where Chatbox's data folder is known: its page's IndexedDB files (storage.ts reads them).

/** A file of the app page's IndexedDB; its first group is the data folder's root ("" or a folder it sits in). */
export const CHATBOX_STORAGE_FILE = /^(.*?)IndexedDB\/file__0\.indexeddb\.leveldb\/[^/]+$/;
