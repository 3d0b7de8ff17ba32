// Chromium's Local Storage on LevelDB (chromium components/services/storage/dom_storage:
// local_storage_impl.cc): an item's key is `_`, the origin, 0x00, then its key; the key and the value
// each open with a byte saying how the text is stored (0: UTF-16LE, 1: Latin-1).
import type { LevelEntry } from "./leveldb.js";

/** The items an origin (`file://`, `https://example.com`) stored, by key. */
export function localStorageItems(entries: readonly LevelEntry[], origin: string): Map<string, string> {
  const prefix = Buffer.from(`_${origin}\u0000`, "latin1");
  const items = new Map<string, string>();
  for (const { key, value } of entries) {
    if (key.length <= prefix.length || !key.subarray(0, prefix.length).equals(prefix)) continue;
    const name = storedText(key.subarray(prefix.length));
    const text = storedText(value);
    if (name !== undefined && text !== undefined) items.set(name, text);
  }
  return items;
}

function storedText(bytes: Buffer): string | undefined {
  if (bytes[0] === 1) return bytes.subarray(1).toString("latin1");
  if (bytes[0] === 0 && bytes.length % 2 === 1) return bytes.subarray(1).toString("utf16le");
  return undefined;
}
