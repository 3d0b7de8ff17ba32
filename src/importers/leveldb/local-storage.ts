// Chromium's Local Storage on LevelDB (chromium components/services/storage/dom_storage:
// local_storage_impl.cc): an item's key is `_`, the origin, 0x00, then its key; the key and the value
// each open with a byte saying how the text is stored (0: UTF-16LE, 1: Latin-1).
import type { LevelEntry } from "./leveldb.js";

/** The value an origin (`file://`, `https://example.com`) stored under `name`, else the first any origin stored under it. */
export function localStorageItem(entries: readonly LevelEntry[], name: string, origin: string): string | undefined {
  let other: string | undefined;
  for (const { key, value } of entries) {
    const end = key.indexOf(0);
    if (key[0] !== 0x5f || end === -1 || storedText(key.subarray(end + 1)) !== name) continue; // "_"
    const text = storedText(value);
    if (key.subarray(1, end).toString("latin1") === origin && text !== undefined) return text;
    other ??= text;
  }
  return other;
}

function storedText(bytes: Buffer): string | undefined {
  if (bytes[0] === 1) return bytes.subarray(1).toString("latin1");
  if (bytes[0] === 0 && bytes.length % 2 === 1) return bytes.subarray(1).toString("utf16le");
  return undefined;
}
