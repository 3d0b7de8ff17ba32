// Chromium's IndexedDB on LevelDB (chromium content/browser/indexed_db: indexed_db_leveldb_coding.cc
// for the keys, and Blink's SerializedScriptValue and IDBValueWrapper for the values): each key starts
// with a prefix of the database, object store and index ids (their byte lengths packed in the first
// byte); a database's name maps to its id, an object store's id to its name in the database's
// metadata, and an object store's rows are its entries under index id 1. A row's value is a version
// varint, then Blink's envelope (0xFF and its version; from version 21 a 0xFE trailer offset and size,
// 12 bytes) around V8's serialization, which Node's v8.Deserializer reads. Blink marks a value it
// compressed (0xFF 0x11 0x02, Snappy) or, when it stays large, moved to a blob file in the folder beside
// the database (0xFF 0x11 0x01, then the blob's size and its place in the row's blob list): the row's
// blob list is the entry under index id 3 with the row's key (each blob: a type byte, its number, ...),
// its file `<database id, hex>/<second byte of the number, 2 hex digits>/<number, hex>` in the
// `.indexeddb.blob` folder (indexed_db_backing_store.cc GetBlobFileNameForKey).
import { Deserializer } from "node:v8";
import { Reader, type LevelEntry, uncompressSnappy } from "./leveldb.js";

/** A blob file's bytes by its path in the `.indexeddb.blob` folder ("1/00/3"); undefined when missing. */
export type BlobFile = (path: string) => Promise<Buffer | undefined>;

export interface StoreRows {
  /** Each object store asked for, its rows in key order (none when the database lacks it). */
  rows: Map<string, unknown[]>;
  /** Rows whose values could not be read (damaged, or kept in a blob file). */
  unreadable: number;
  /** Whether the database was found. */
  found: boolean;
}

const DATABASE_NAME = 201;
const OBJECT_STORE_META = 50;
const STORE_NAME = 0;
const ROWS = 1;
const BLOB_LISTS = 3;
const IN_BLOB = 1;
/** Blink's mark of a value it processed before storing it (IDBValueWrapper). */
const PROCESSED = 0x11;
const SNAPPY = 2;
const TRAILER = 0xfe;
/**
 * The V8 format Node 20 to 26 read to. V8 15.2's format 16 (Chromium from 2026) writes buffers' lengths
 * as 64-bit varints (denoland/rusty_v8#2071, nodejs/node#63475), the same bytes as 15's below 4 GB: it is
 * read as 15 by a Node that refuses it (Chromium 156's rows of plain objects, the fixture's, read so).
 */
const NODE_V8_FORMAT = 15;

interface Prefix {
  database: number;
  store: number;
  index: number;
  /** Where the rest of the key starts. */
  end: number;
}

/** The rows of the named object stores of database `name`, from the origin folder's LevelDB entries. */
export async function objectStoreRows(
  entries: readonly LevelEntry[],
  name: string,
  stores: readonly string[],
  blobFile: BlobFile = async () => undefined,
): Promise<StoreRows> {
  const rows = new Map(stores.map((store) => [store, [] as unknown[]]));
  const database = databaseId(entries, name);
  if (database === undefined) return { rows, unreadable: 0, found: false };
  const names = storeNames(entries, database);
  const blobLists = new Map<string, Buffer>();
  for (const { key, value } of entries) {
    const prefix = keyPrefix(key);
    if (prefix?.database === database && prefix.index === BLOB_LISTS) blobLists.set(rowId(prefix.store, key, prefix.end), value);
  }
  // Chromium numbers each blob it writes anew: rows naming one blob were made to have it read (and its
  // value held) once per row, a thousand rows of a backup a thousand copies of one 200 MB file.
  const blobsRead = new Set<string>();
  const blob = async (prefix: Prefix, key: Buffer): Promise<Buffer | undefined> => {
    const list = blobLists.get(rowId(prefix.store, key, prefix.end));
    if (list === undefined) return undefined;
    const path = blobPath(database, firstBlobNumber(list));
    if (blobsRead.has(path)) throw new Error("a blob file another row has");
    blobsRead.add(path);
    return blobFile(path);
  };
  let unreadable = 0;
  for (const { key, value } of entries) {
    const prefix = keyPrefix(key);
    if (prefix?.database !== database || prefix.index !== ROWS) continue;
    const list = rows.get(names.get(prefix.store) ?? "");
    if (list === undefined) continue;
    try {
      list.push(await rowValue(value, () => blob(prefix, key)));
    } catch {
      unreadable++;
    }
  }
  return { rows, unreadable, found: true };
}

function keyPrefix(key: Buffer): Prefix | undefined {
  const first = key[0];
  if (first === undefined) return undefined;
  const lengths = [(first >> 5) + 1, ((first >> 2) & 7) + 1, (first & 3) + 1] as const;
  let at = 1;
  const ids = lengths.map((length) => {
    const id = at + length <= key.length ? key.readUIntLE(at, length) : Number.NaN;
    at += length;
    return id;
  });
  if (ids.some(Number.isNaN)) return undefined;
  return { database: ids[0] as number, store: ids[1] as number, index: ids[2] as number, end: at };
}

/** The id of the database named `name`: its key is the global prefix, 201, the origin and the name. */
function databaseId(entries: readonly LevelEntry[], name: string): number | undefined {
  for (const { key, value } of entries) {
    const prefix = keyPrefix(key);
    if (prefix === undefined || prefix.database !== 0 || prefix.store !== 0 || key[prefix.end] !== DATABASE_NAME) continue;
    try {
      const reader = new Reader(key, prefix.end + 1);
      stringWithLength(reader); // the origin (storage key)
      if (stringWithLength(reader) === name) return new Reader(value, 0).varint();
    } catch {}
  }
  return undefined;
}

/** The database's object stores by id: metadata keys `50, store id, 0` hold their names. */
function storeNames(entries: readonly LevelEntry[], database: number): Map<number, string> {
  const names = new Map<number, string>();
  for (const { key, value } of entries) {
    const prefix = keyPrefix(key);
    if (prefix?.database !== database || prefix.store !== 0 || prefix.index !== 0 || key[prefix.end] !== OBJECT_STORE_META) continue;
    try {
      const reader = new Reader(key, prefix.end + 1);
      const store = reader.varint();
      if (reader.byte() === STORE_NAME && reader.done()) names.set(store, utf16be(value));
    } catch {}
  }
  return names;
}

function stringWithLength(reader: Reader): string {
  return utf16be(reader.bytes(reader.varint() * 2));
}

function utf16be(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString("utf16le");
}

function rowId(store: number, key: Buffer, end: number): string {
  return `${store}:${key.subarray(end).toString("latin1")}`;
}

/** The number of the first blob of a row's list: a type byte, then the number as a varint. */
function firstBlobNumber(list: Buffer): number {
  const reader = new Reader(list, 1);
  return reader.varint();
}

function blobPath(database: number, blob: number): string {
  return `${database.toString(16)}/${((blob >> 8) & 0xff).toString(16).padStart(2, "0")}/${blob.toString(16)}`;
}

/** A row's value: its version, then what Blink stored, or the blob file it stored it in. */
async function rowValue(value: Buffer, blob: () => Promise<Buffer | undefined>): Promise<unknown> {
  const reader = new Reader(value, 0);
  reader.varint();
  let stored = value.subarray(reader.at);
  if (stored[0] === 0xff && stored[1] === PROCESSED && stored[2] === IN_BLOB) {
    const place = new Reader(stored, 3);
    place.varint(); // the blob's size
    if (place.varint() !== 0) throw new Error("a value in a blob after others"); // Cherry Studio's rows hold no blobs of their own
    stored = (await blob()) ?? Buffer.alloc(0);
  }
  if (stored[0] === 0xff && stored[1] === PROCESSED) {
    if (stored[2] !== SNAPPY) throw new Error("a value Blink processed in a way not known");
    stored = Buffer.from(uncompressSnappy(stored.subarray(3)));
  }
  return blinkValue(stored);
}

/** Blink's envelope around V8's serialization: 0xFF, its version, and from version 21 a trailer's place. */
function blinkValue(stored: Buffer): unknown {
  const reader = new Reader(stored, 0);
  if (reader.byte() !== 0xff) throw new Error("not Blink's serialization");
  reader.varint();
  if (stored[reader.at] === TRAILER) reader.at += 13;
  return v8Value(stored.subarray(reader.at));
}

function v8Value(bytes: Buffer): unknown {
  try {
    return deserialized(bytes);
  } catch (error) {
    // A format newer than this Node's V8 reads: read as the newest it does (NODE_V8_FORMAT says why that is sound).
    if (bytes[0] !== 0xff || (bytes[1] ?? 0) <= NODE_V8_FORMAT) throw error;
    const older = Buffer.from(bytes);
    older[1] = NODE_V8_FORMAT;
    return deserialized(older);
  }
}

function deserialized(bytes: Buffer): unknown {
  const deserializer = new Deserializer(bytes);
  deserializer.readHeader();
  return deserializer.readValue();
}
