// Format detection by structure: tokenise the first bytes of a file and show the shape of its first
// records (a Sample) to each importer's detector (registry.ts), never looking at the file's name.
import parser from "stream-json/parser.js";
import { Readable, type Duplex } from "node:stream";
import { finished } from "node:stream/promises";
import { AppError, isAppError } from "../shared/errors.js";
import { withoutBom } from "../text/utf8.js";
import type { Sample } from "./importer.js";
import { locateJsonError, malformedJson, readFailure } from "./json-error.js";
import { assertNotMedia, isBinary } from "./media-files.js";
import { DEFAULT_WRAPPER, jsonRecords, type JsonLayout, type WrapperPath } from "./json-records.js";
import { isObject, type JsonObject } from "./json-values.js";
import { IMPORTERS, recognise, recogniseMemories } from "./registry.js";
import { scanTokens, type Token } from "./detect-scan.js";
import { databaseShape, SMALLER_DATABASE, startsAsSqlite } from "./sqlite.js";
import { ByteTally, type ByteSource } from "./source.js";
import { normalised } from "./text-records.js";
import { isActivityPage, recordsIn } from "./activity-page/records.js";
import type { ExportFormat, Layout } from "./types.js";

/**
 * How much of a file is looked at: 64 KB, then 256 KB when that tells no format or a format's shape
 * without its data (a Takeout file whose first records are another product's). A ChatGPT record
 * shows `mapping` within its first few keys; a file whose first record holds a longer field before
 * the keys that tell its format is then streamed whole (scannedDetection), so that normal files cost
 * no more than their prefix.
 */
const SNIFF_BYTES = [64 * 1024, 256 * 1024] as const;
/** The prefix is fed in slices so that tokens before a fault are still seen. */
const SLICE_BYTES = 4 * 1024;

export interface Detection {
  format: ExportFormat;
  layout: Layout;
  /** Where a wrapped file's records are: DEFAULT_WRAPPER unless a format says otherwise (Importer.wrappers). */
  wrapper?: WrapperPath | undefined;
  /** The format's shape without its data: inside a zip or folder the file is not read, for this reason (Match.aside). */
  aside?: string | undefined;
  /** The file is an empty top-level array: nothing to import. */
  empty: boolean;
  /** The file is one of the format's memory files (Importer.memories), not its conversations. */
  memories?: boolean;
}

/** What the prefix reveals: the shape of the first record, and the strings of every record's fields. */
interface Shape {
  topLevel: "array" | "object" | "other" | undefined;
  /** The top-level array has no element. */
  emptyArray: boolean;
  /** Keys of the first record. */
  keys: Set<string>;
  /** Keys of each record in the prefix, in order (a damaged first record does not hide the format of the rest). */
  recordKeys: Set<string>[];
  /** Whether each record of recordKeys ends within the prefix (all are, in a shape of records parsed whole). */
  recordEnded?: boolean[];
  /** The string values of every record's fields in the prefix (a string, or the strings of an array), by key. */
  strings: Map<string, string[]>;
  /** The prefix as text, when the file is read as text (a Markdown transcript). */
  text?: string;
  /** The keys of the first object of each list the first record holds, by the record's key (Sample.listKeys). */
  listKeys?: Map<string, Set<string>>;
  /** A database's tables and their columns (Sample.tables). */
  tables?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Detects the format of one JSON / NDJSON file. Returns undefined when the file is JSON but
 * not a supported structure; throws invalid_input (with the position) when it is not JSON.
 */
export async function detect(source: ByteSource): Promise<Detection | undefined> {
  return (await inspect(source)).detection;
}

/**
 * What `detect` sees: the format, and the first record's keys (to say what a file that is none of
 * them is); `text` when the file is no JSON but text that no text format takes (a Markdown note).
 */
export async function inspect(
  source: ByteSource,
): Promise<{ detection: Detection | undefined; keys: Set<string>; text?: boolean; database?: boolean }> {
  for (const size of SNIFF_BYTES) {
    const { readings, failed, complete, json } = await readingsOf(source, size);
    const last = complete || size === SNIFF_BYTES.at(-1);
    for (const { shape, layout, wrapper } of readings) {
      const detection = classify(shape, layout, wrapper);
      if (detection !== undefined && (detection.aside === undefined || last)) return { detection, keys: shape.keys };
    }
    if (!last) continue;
    const scanned = failed || complete || !json ? undefined : await scannedDetection(source); // JSON alone: a page is read otherwise
    if (scanned?.found !== undefined) return scanned.found;
    if (readings[0]?.layout === "database") return { detection: undefined, keys: readings[0].shape.keys, database: true };
    if (!failed && !scanned?.failed)
      return { detection: undefined, keys: readings.find((reading) => reading.layout !== "text")?.shape.keys ?? new Set() };
    if (!json) return { detection: undefined, keys: new Set(), text: true };
    const position = await locateJsonError(source, true).catch(() => undefined);
    throw malformedJson(source, position, "not JSON");
  }
  throw new Error("unreachable: the last sniff decides");
}

/** What the importers' detectors are shown of a file, each way it may be laid out (registry.test.ts shows each to every one). */
export async function samples(source: ByteSource): Promise<Sample[]> {
  return (await readingsOf(source, SNIFF_BYTES.at(-1)!)).readings.map(({ shape, wrapper }) => sampleOf(shape, shape.keys, wrapper));
}

/** A way the file may be laid out, and the shape its records have read so. */
interface Reading {
  layout: Layout;
  wrapper?: WrapperPath | undefined;
  shape: Shape;
}

/**
 * The ways to read a file. `failed`: the prefix is not JSON; `json`: it starts as JSON does (a fault
 * in it is a fault of JSON).
 */
interface Readings {
  readings: Reading[];
  failed: boolean;
  complete: boolean;
  json: boolean;
}

/** The paths of the lists a top-level object may hold its records in: `conversations`, then the formats' own. */
const WRAPPERS: readonly WrapperPath[] = [DEFAULT_WRAPPER, ...IMPORTERS.flatMap((importer) => importer.wrappers ?? [])];

/**
 * The ways to read the file, in the order they are tried: its first line alone (NDJSON, or one
 * minified record), the array a top-level object wraps, the whole prefix, and last its text; an
 * HTML file only as a Takeout activity page.
 */
async function readingsOf(source: ByteSource, size: number): Promise<Readings> {
  const { prefix, complete } = await readPrefix(source, size);
  assertNotEmpty(source, prefix, complete);
  if (startsAsSqlite(prefix)) return await databaseReadings(source);
  await assertNotEncryptedDatabase(source, prefix);
  await assertNotMedia(source, prefix);
  assertNotWideText(source, prefix);
  if (startsAsHtml(prefix)) return await pageReadings(source, prefix, complete);
  const readings: Reading[] = [];
  const firstLine = firstLineObject(prefix, complete);
  // A first line that is a record of no known format may still be a whole file of another layout
  // (a minified `{ "conversations": [...] }`): the tokens below tell.
  if (firstLine !== undefined) readings.push({ layout: "lines", shape: shapeOfRecord(firstLine) });
  const { tokens, failed } = await tokenize(prefix, complete);
  readings.push(...tokenReadings(tokens, complete));
  if (failed) readings.push(await salvaged(source, prefix));
  readings.push({ layout: "text", shape: textShape(prefix) });
  return { readings, failed, complete, json: startsAsJson(prefix) };
}

/**
 * The readings of a file's tokens: the arrays a top-level object wraps, then the file's values as they
 * stand. `whole`: the tokens are the whole file's, so a record cut short (a truncated file) shows all the keys it has.
 */
function tokenReadings(tokens: Token[], whole = false): Reading[] {
  const readings: Reading[] = [];
  const shape = shapeOf(tokens, whole);
  for (const wrapper of shape.topLevel === "object" ? WRAPPERS.filter((path) => shape.keys.has(path[0]!)) : []) {
    const wrapped = wrappedShape(tokens, wrapper, whole);
    if (wrapped !== undefined) readings.push({ layout: "wrapped", wrapper, shape: wrapped });
  }
  readings.push({ layout: shape.topLevel === "array" ? "array" : "values", shape });
  return readings;
}

/**
 * The format of a file whose prefix shows none, from the tokens of the whole file streamed
 * (detect-scan.ts): its first record may hold a field longer than the prefix before the keys that
 * tell its format. Read until a format is known or MAX_RECORDS records are read, never held whole.
 * `failed`: the JSON breaks off (a file cut short) or is damaged before a format shows.
 */
async function scannedDetection(source: ByteSource): Promise<{ found?: { detection: Detection; keys: Set<string> }; failed: boolean }> {
  let records = 0;
  let found: { detection: Detection; keys: Set<string> } | undefined;
  const enough = (tokens: Token[], ended: boolean) => {
    if (ended) records += 1;
    found = detectionIn(tokens);
    return found !== undefined || records >= MAX_RECORDS;
  };
  const { tokens, failed } = await scanTokens(source, { wrappers: WRAPPERS, enough });
  found ??= detectionIn(tokens);
  return found === undefined ? { failed } : { found, failed };
}

function detectionIn(tokens: Token[]): { detection: Detection; keys: Set<string> } | undefined {
  for (const { shape, layout, wrapper } of tokenReadings(tokens)) {
    const detection = classify(shape, layout, wrapper);
    if (detection !== undefined) return { detection, keys: shape.keys };
  }
  return undefined;
}

/** The prefix as text, for the text formats' detectors: no keys or strings of JSON records. */
function textShape(prefix: Buffer): Shape {
  return {
    topLevel: undefined,
    emptyArray: false,
    keys: new Set(),
    recordKeys: [],
    strings: new Map(),
    text: normalised(prefix.toString("utf8")),
  };
}

/**
 * Whether the text starts as a JSON document does: an object, or a list of values. Text that does
 * not (a Markdown note) is not called invalid JSON when no format takes it.
 */
function startsAsJson(prefix: Buffer): boolean {
  const head = normalised(prefix.subarray(0, 64).toString("utf8")).trimStart();
  return /^(?:\{|\[\s*(?:[{["\]\d-]|true|false|null|$))/.test(head);
}

/**
 * The prefix read record by record as the importer reads a file (json-records.ts), for a file whose
 * tokens stop at damage: the records after a damaged one still tell the format. A top-level object
 * is a wrapped list when it holds one under the last key of a wrapper path, else values.
 */
async function salvaged(source: ByteSource, prefix: Buffer): Promise<Reading> {
  const head = prefix.toString("latin1");
  const list = head
    .replace(/^\xef\xbb\xbf/, "")
    .trimStart()
    .startsWith("[");
  const wrapper = WRAPPERS.find((path) => new RegExp(`"${path.at(-1)}"\\s*:\\s*\\[`).test(head));
  const layout = list ? "array" : wrapper !== undefined ? "wrapped" : "values";
  return { layout, wrapper, shape: await recordsShape(source, prefix, layout, wrapper) };
}

/** The shape of the records the importer's own reader finds in the prefix, read in `layout`. */
async function recordsShape(source: ByteSource, prefix: Buffer, layout: JsonLayout, wrapper: WrapperPath | undefined): Promise<Shape> {
  const inPrefix: ByteSource = { ...source, size: prefix.length, open: async () => Readable.from([prefix]) };
  const known = (value: unknown) => {
    const sample = isObject(value) ? sampleOf(shapeOfRecord(value)) : undefined;
    return sample !== undefined && (recognise(sample) !== undefined || recogniseMemories(sample) !== undefined);
  };
  const topLevel = layout === "array" ? "array" : "object";
  const shape: Shape = { topLevel, emptyArray: false, keys: new Set(), recordKeys: [], strings: new Map() };
  const records = jsonRecords(inPrefix, layout, new ByteTally(), { isRecord: known, onUnreadable: () => undefined, wrapper });
  for await (const { value } of records) {
    if (isObject(value)) addRecord(shape, value);
    if (shape.recordKeys.length >= MAX_RECORDS) break;
  }
  return shape;
}

/**
 * How far an HTML file is looked at for a Takeout activity page's first record: the page opens with
 * its stylesheet, and a record can hold a long answer.
 */
const PAGE_SNIFF_BYTES = 2 * 1024 * 1024;

/** A Takeout activity page read as its records; any other page refused, saying what it is. */
async function pageReadings(source: ByteSource, prefix: Buffer, complete: boolean): Promise<Readings> {
  let page = { prefix, complete, records: recordsIn(prefix, complete, MAX_RECORDS) };
  if (!complete && page.records.length === 0) {
    const longer = await readPrefix(source, PAGE_SNIFF_BYTES);
    page = { ...longer, records: recordsIn(longer.prefix, longer.complete, MAX_RECORDS) };
  }
  if (!isActivityPage(page.prefix)) throw notAnExport(source, page.prefix);
  return { readings: [{ layout: "page", shape: pageShape(page.records) }], failed: false, complete: page.complete, json: false };
}

/**
 * A SQLite database read as the keys of its key-value tables and its tables' columns, which tell whose
 * it is: Cursor's state.vscdb by its keys (VS Code's own holds none of Cursor's), OpenCode's by its tables.
 */
async function databaseReadings(source: ByteSource): Promise<Readings> {
  const { keys, tables } = await databaseShape(source).catch((error: unknown) => {
    throw withSmallerDatabases(error);
  });
  const shape: Shape = { topLevel: "object", emptyArray: false, keys, recordKeys: [keys], strings: new Map(), tables };
  return { readings: [{ layout: "database", shape }], failed: false, complete: true, json: false };
}

/** A database too large to read, with each database format's command that copies its chats into a smaller one. */
function withSmallerDatabases(error: unknown): unknown {
  if (!isAppError(error) || error.details["problem"] !== "too large") return error;
  const commands = IMPORTERS.filter((importer) => importer.smallerDatabase).map(
    (importer) => `for ${importer.name}, with it closed, ${importer.smallerDatabase}`,
  );
  return new AppError(error.code, error.message, { details: error.details, suggestion: `${SMALLER_DATABASE}: ${commands.join("; ")}` });
}

/** The shape of a Takeout activity page's first records (HTML): those of its JSON. */
function pageShape(records: unknown[]): Shape {
  const shape: Shape = { topLevel: "array", emptyArray: false, keys: new Set(), recordKeys: [], strings: new Map() };
  for (const value of records) if (isObject(value)) addRecord(shape, value);
  return shape;
}

function addRecord(shape: Shape, value: JsonObject): void {
  const record = shapeOfRecord(value);
  if (shape.recordKeys.length === 0) shape.keys = record.keys;
  shape.recordKeys.push(record.keys);
  for (const [key, strings] of record.strings) for (const string of strings) addString(shape, key, string);
}

/**
 * A binary file named as an app's database that app may encrypt (Importer.encryptedDatabase) is said
 * to be such: "not a supported export" would send the user looking for the wrong fault.
 */
async function assertNotEncryptedDatabase(source: ByteSource, prefix: Buffer): Promise<void> {
  const name = source.path.replace(/^.*\//, "").toLowerCase();
  const importer = IMPORTERS.find((entry) => entry.encryptedDatabase !== undefined && entry.extensions.includes(name));
  if (importer?.encryptedDatabase === undefined || !isBinary(prefix)) return;
  throw await importer.encryptedDatabase(source);
}

/** An empty file gets its own message: "not JSON" or "not a supported export" would send the user looking for the wrong fault. */
function assertNotEmpty(source: ByteSource, prefix: Buffer, complete: boolean): void {
  if (!complete || withoutBom(prefix.toString("utf8")).trim() !== "") return;
  throw new AppError("invalid_input", `${source.label}: the file is empty`, {
    suggestion: "Download the export again, or re-extract the file from the original zip.",
  });
}

/**
 * Text of wide characters that is not read (UTF-16 is, utf16.ts: this is UTF-32, or UTF-16 without
 * a byte-order mark whose first KB is not plainly so) is said to be such: read as UTF-8 it is "not
 * JSON at byte 0", which sends the user looking for the wrong fault. Known by a NUL beside its first characters.
 */
function assertNotWideText(source: ByteSource, prefix: Buffer): void {
  const head = prefix.subarray(0, 64);
  const nuls = head.filter((byte) => byte === 0).length;
  if (!(head.length >= 8 && nuls >= head.length / 3)) return;
  throw new AppError(
    "invalid_input",
    `${source.label}: the file is text in an encoding mnemo does not read (UTF-32, or UTF-16 without a byte-order mark); exports are UTF-8`,
    {
      suggestion:
        "Use the file as downloaded (re-extract it from the original zip), or save it again as UTF-8 (or UTF-16 with a byte-order mark).",
    },
  );
}

/** Whether the file starts as an HTML page does. */
function startsAsHtml(prefix: Buffer): boolean {
  return /^<(?:!doctype|html|head|body|meta|div|!--)/i.test(withoutBom(prefix.subarray(0, 4096).toString("utf8")).trimStart());
}

/**
 * What an HTML page that is no Takeout activity page is, with what to pass instead: ChatGPT's
 * chat.html, a page for reading the export beside conversations.json, is the one met.
 */
function notAnExport(source: ByteSource, prefix: Buffer): AppError {
  if (/chatgpt|jsonData/i.test(prefix.toString("utf8"))) {
    return new AppError("invalid_input", `${source.label}: this is ChatGPT's chat.html, a page for reading the export, not its data`, {
      suggestion: "Use conversations.json (or the conversations-NNN.json files) from the same folder, or the zip as downloaded.",
    });
  }
  return new AppError("invalid_input", `${source.label}: an HTML page, not a chat export`, {
    suggestion:
      "Pass the export's data: conversations.json or the zip for ChatGPT and Claude; for Gemini, Google Takeout's zip or its My Activity page.",
  });
}

/** The first `size` bytes of the file; `complete` when that is the whole file. */
async function readPrefix(source: ByteSource, size: number): Promise<{ prefix: Buffer; complete: boolean }> {
  const input = await source.open();
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of input) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= size) return { prefix: Buffer.concat(chunks).subarray(0, size), complete: false };
    }
  } catch (error) {
    throw await readFailure(error, source, true); // e.g. a damaged zip entry
  } finally {
    input.destroy();
  }
  return { prefix: Buffer.concat(chunks), complete: true };
}

/** Tokens of the prefix; `failed` when the JSON is broken (a prefix merely cut short is not). */
async function tokenize(prefix: Buffer, complete: boolean): Promise<{ tokens: Token[]; failed: boolean }> {
  const tokenizer = parser.asStream({ jsonStreaming: true, packValues: true, streamValues: false });
  const tokens: Token[] = [];
  let failure: Error | undefined;
  tokenizer.on("data", (token: Token) => tokens.push(token));
  tokenizer.on("error", (error: Error) => (failure ??= error));
  try {
    for (let start = 0; start < prefix.length && failure === undefined; start += SLICE_BYTES) {
      await writeSlice(tokenizer, prefix.subarray(start, start + SLICE_BYTES));
    }
    // Only a whole file is ended: ending a cut-off prefix would fail for the wrong reason.
    if (complete && failure === undefined) {
      tokenizer.end();
      await finished(tokenizer).catch(() => undefined);
    }
    await new Promise<void>((resolve) => setImmediate(resolve)); // let the last tokens be emitted
  } finally {
    tokenizer.destroy();
  }
  return { tokens, failed: failure !== undefined };
}

function writeSlice(stream: Duplex, slice: Buffer): Promise<void> {
  return new Promise((resolve) => stream.write(slice, () => resolve()));
}

/** Records of the prefix whose keys are kept, to recognise the format by. */
const MAX_RECORDS = 20;

/** Walks the tokens record by record: the first records' keys, every record's strings; `whole`: see tokenReadings. */
function shapeOf(tokens: Token[], whole: boolean): Shape {
  const recordEnded: boolean[] | undefined = whole ? undefined : [];
  const shape: Shape = { topLevel: undefined, emptyArray: false, keys: new Set(), recordKeys: [], recordEnded, strings: new Map() };
  let depth = 0;
  let recordIndex = -1;
  let currentKey: string | undefined; // the record-level key whose value is being read
  let list: ListWalk | undefined; // the first record's list whose first object's keys are being read
  for (const token of tokens) {
    const opens = token.name === "startObject" || token.name === "startArray";
    const closes = token.name === "endObject" || token.name === "endArray";
    const isValue = opens || isScalar(token.name);
    if (depth === 0 && isValue && shape.topLevel === undefined) shape.topLevel = topLevelKind(token.name);
    const recordDepth = shape.topLevel === "array" ? 2 : 1; // depth of a record's fields
    if (depth === recordDepth - 1 && isValue) {
      recordIndex += 1;
      currentKey = undefined;
    }
    if (token.name === "keyValue" && depth === recordDepth) {
      currentKey = String(token.value);
      if (recordIndex === 0) shape.keys.add(currentKey);
      if (recordIndex < MAX_RECORDS) (shape.recordKeys[recordIndex] ??= new Set()).add(currentKey);
    }
    if (token.name === "stringValue" && currentKey !== undefined && depth <= recordDepth + 1) {
      addString(shape, currentKey, String(token.value));
    }
    if (recordIndex === 0 && currentKey !== undefined) list = listKeysOf(shape, list, token, depth - recordDepth, currentKey);
    if (token.name === "endArray" && depth === 1 && shape.topLevel === "array" && recordIndex === -1) shape.emptyArray = true;
    if (closes && depth === recordDepth && recordIndex >= 0 && recordIndex < MAX_RECORDS && recordEnded) recordEnded[recordIndex] = true;
    depth += opens ? 1 : closes ? -1 : 0;
  }
  return shape;
}

/** Where the walk is in a list of the first record: under which key, and how many of its objects have opened. */
interface ListWalk {
  key: string;
  objects: number;
}

/**
 * The walk through a list the first record holds, one token on (`below`: how deep the token is under
 * the record's fields): the keys of its first object are added to the shape's listKeys.
 */
function listKeysOf(shape: Shape, list: ListWalk | undefined, token: Token, below: number, key: string): ListWalk | undefined {
  if (below === 0) return token.name === "startArray" ? { key, objects: 0 } : undefined;
  if (list === undefined) return undefined;
  if (below === 1 && token.name === "startObject") return { ...list, objects: list.objects + 1 };
  if (below === 1 && token.name === "endArray") return undefined;
  if (below === 2 && list.objects === 1 && token.name === "keyValue") {
    shape.listKeys ??= new Map();
    const keys = shape.listKeys.get(list.key) ?? new Set();
    shape.listKeys.set(list.key, keys.add(String(token.value)));
  }
  return list;
}

/**
 * The records of the array a top-level object holds at `wrapper` (`{ "conversations": [...] }`,
 * `{ "data": { "chats": [...] } }`): the tokens of that array alone, to its end or the prefix's.
 */
function wrappedShape(tokens: Token[], wrapper: WrapperPath, whole: boolean): Shape | undefined {
  const keys: string[] = []; // the last key read in each open object, by depth
  const containers: string[] = [];
  for (const [i, token] of tokens.entries()) {
    if (token.name === "keyValue") keys[containers.length - 1] = String(token.value);
    if (token.name === "startArray" && containers.length === wrapper.length && onPath(containers, keys, wrapper)) {
      return shapeOf(tokens.slice(i, arrayEnd(tokens, i)), whole);
    }
    if (token.name === "startObject" || token.name === "startArray") containers.push(token.name);
    if (token.name === "endObject" || token.name === "endArray") containers.pop();
  }
  return undefined;
}

function onPath(containers: string[], keys: string[], wrapper: WrapperPath): boolean {
  return wrapper.every((key, depth) => containers[depth] === "startObject" && keys[depth] === key);
}

/** The index after the token that closes the array opened at `start` (the tokens' end when the prefix stops first). */
function arrayEnd(tokens: Token[], start: number): number {
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    const name = tokens[i]!.name;
    depth += name === "startObject" || name === "startArray" ? 1 : name === "endObject" || name === "endArray" ? -1 : 0;
    if (depth === 0) return i + 1;
  }
  return tokens.length;
}

/** Keeps a string of a record's field, a few hundred of each key at most. */
function addString(shape: Shape, key: string, value: string): void {
  const values = shape.strings.get(key) ?? [];
  if (values.length < MAX_STRINGS_PER_KEY) values.push(value);
  shape.strings.set(key, values);
}

const MAX_STRINGS_PER_KEY = 500;

function topLevelKind(name: string): Shape["topLevel"] {
  return name === "startArray" ? "array" : name === "startObject" ? "object" : "other";
}

function isScalar(name: string): boolean {
  return ["stringValue", "numberValue", "trueValue", "falseValue", "nullValue"].includes(name);
}

/**
 * The first line, when it alone is a JSON object: the file is then NDJSON (or one minified
 * object), read line by line. Undefined for a first line longer than the prefix (streamed instead).
 */
function firstLineObject(prefix: Buffer, complete: boolean): JsonObject | undefined {
  const end = prefix.indexOf(0x0a);
  if (end === -1 && !complete) return undefined;
  const line = withoutBom(prefix.subarray(0, end === -1 ? prefix.length : end).toString("utf8"));
  try {
    const value = JSON.parse(line) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function shapeOfRecord(record: JsonObject): Shape {
  const keys = new Set(Object.keys(record));
  const shape: Shape = { topLevel: "object", emptyArray: false, keys, recordKeys: [keys], strings: new Map() };
  for (const [key, value] of Object.entries(record)) {
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === "string") addString(shape, key, item);
    const first: unknown = Array.isArray(value) ? value[0] : undefined;
    if (isObject(first)) (shape.listKeys ??= new Map()).set(key, new Set(Object.keys(first)));
  }
  return shape;
}

/** Whether a value read from a file of `format` is a record of it, as its detector would judge the file by it. */
export function isRecordOf(format: ExportFormat): (value: unknown) => boolean {
  return (value) => isObject(value) && recognise(sampleOf(shapeOfRecord(value)))?.importer.id === format;
}

/** Whether a value read from a memory file of `format` is a record of one. */
export function isMemoryRecordOf(format: ExportFormat): (value: unknown) => boolean {
  return (value) => isObject(value) && recogniseMemories(sampleOf(shapeOfRecord(value)))?.id === format;
}

function sampleOf(shape: Shape, keys: Set<string> = shape.keys, wrapper: WrapperPath = []): Sample {
  const index = keys === shape.keys ? 0 : shape.recordKeys.indexOf(keys);
  return {
    keys,
    wrapper,
    ended: shape.recordEnded === undefined || shape.recordEnded[index] === true,
    strings: (key) => shape.strings.get(key) ?? [],
    listKeys: (key) => shape.listKeys?.get(key) ?? new Set(),
    emptyList: shape.topLevel === "array" && shape.emptyArray,
    text: shape.text ?? "",
    tables: shape.tables ?? new Map(),
  };
}

/**
 * What the importers' detectors make of a shape, in the layout given: the format most of its records
 * are of (a damaged record, the first too, costs that record, not the file), or the format whose
 * memory file it is; undefined when none.
 */
function classify(shape: Shape, layout: Layout, wrapper?: WrapperPath): Detection | undefined {
  const candidates = [shape.keys, ...shape.recordKeys.filter((keys) => keys !== undefined && keys !== shape.keys)];
  const verdicts = candidates.flatMap((keys) => {
    const detection = recordDetection(sampleOf(shape, keys, wrapper), layout, wrapper);
    return detection === undefined ? [] : [detection];
  });
  return mostSaid(verdicts);
}

/** What one record of the prefix says the file is. */
function recordDetection(sample: Sample, layout: Layout, wrapper: WrapperPath | undefined): Detection | undefined {
  const found = recognise(sample);
  if (found?.match.whole) return { format: found.importer.id, layout: "values", empty: false };
  if (found !== undefined) return { format: found.importer.id, layout, wrapper, aside: found.match.aside, empty: sample.emptyList };
  const memories = recogniseMemories(sample);
  if (memories !== undefined) return { format: memories.id, layout, wrapper, empty: sample.emptyList, memories: true };
  return undefined;
}

/**
 * The format most of the prefix's records say, the first record's on a tie: a byte lost from the
 * first record's key (DeepSeek's `inserted_at`, which alone tells its records from ChatGPT's) had
 * the whole file read as another format's, and every record in it left out.
 */
function mostSaid(verdicts: Detection[]): Detection | undefined {
  const said = (detection: Detection) => `${detection.format}:${detection.memories === true}`;
  const votes = new Map<string, number>();
  for (const detection of verdicts) votes.set(said(detection), (votes.get(said(detection)) ?? 0) + 1);
  let best: Detection | undefined;
  for (const detection of verdicts) if (best === undefined || votes.get(said(detection))! > votes.get(said(best))!) best = detection;
  return best;
}
