/**
 * Why an app that keeps its chats in a page's IndexedDB (Chromium's LevelDB: Chatbox, Page Assist) is
 * imported by `--apps` and not watched (Importer.notWatched).
 */
export const LEVELDB_NOT_WATCHED = "its chats are in IndexedDB, whose files are read together, not one at a time as a watch does";
