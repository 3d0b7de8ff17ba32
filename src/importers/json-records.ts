// The records of a JSON file (the elements of its top-level list, of the list a top-level object
// wraps, or its top-level values), found by a scan of the bytes that follows JSON's grammar, then
// each parsed on its own (JSON.parse). Damage stays with the record it is in: a record that cannot
// be parsed is skipped with its position and the reason, and where the damage breaks the file's
// structure (a quote or a brace lost), reading starts again at the next object that parses whole and
// is a record of the file's format. Memory holds one record's bytes, whatever the file's size.
import type { AppError } from "../shared/errors.js";
import { locateByte, malformedJson, readFailure } from "./json-error.js";
import { repairRecord, type Repair } from "./repair.js";
import type { ByteSource, ByteTally } from "./source.js";
import type { Layout } from "./types.js";

/** The layouts of a JSON document read value by value (NDJSON is read line by line, json-lines.ts). */
export type JsonLayout = Exclude<Layout, "lines" | "text" | "page">;

/** The key under which a wrapped file holds its records (`{ "conversations": [...] }`). */
export const WRAPPER_KEY = "conversations";

/**
 * The keys, from the top-level object down, of the list a wrapped file holds its records in:
 * `["conversations"]` unless a format says otherwise (`{ "data": { "chats": [...] } }` is `["data", "chats"]`).
 */
export type WrapperPath = readonly string[];

export const DEFAULT_WRAPPER: WrapperPath = [WRAPPER_KEY];

/** A record as read, before its format's converter sees it. */
export interface RawRecord {
  value: unknown;
  /** Zero-based position among the file's records (a damaged one counts too). */
  index: number;
  /** Where the record starts in the file. */
  byte: number;
  /** Text in it that was not valid Unicode, repaired. */
  repair: Repair | undefined;
}

export interface RecordReading {
  /** Whether a value is a record of the file's format: a record found again after damage must be one. */
  isRecord(value: unknown): boolean;
  /** Takes a record that cannot be read, which is then skipped. Without it, the first one ends the read. */
  onUnreadable?: ((problem: AppError) => void) | undefined;
  /** Where a wrapped file's records are (DEFAULT_WRAPPER when not said). */
  wrapper?: WrapperPath | undefined;
}

type Parsed = { value: unknown; repair: Repair | undefined } | { failure: string; at: number };

type Event =
  | { kind: "more" }
  | { kind: "record"; start: number; end: number; parsed?: Parsed }
  | { kind: "damage"; at: number; reason: string }
  | { kind: "end" };

const MORE: Event = { kind: "more" };
const END: Event = { kind: "end" };
/** Positions (line and column) are worked out, by reading the file again, for this many problems of a file. */
const LOCATED_PROBLEMS = 10;

export async function* jsonRecords(
  source: ByteSource,
  layout: JsonLayout,
  tally: ByteTally,
  reading: RecordReading,
): AsyncGenerator<RawRecord> {
  const input = await source.open();
  const window = new ByteWindow(input[Symbol.asyncIterator](), tally, source);
  const scanner = new RecordScanner(window, layout, (value) => reading.isRecord(value), reading.wrapper ?? DEFAULT_WRAPPER);
  let index = 0;
  let problems = 0;
  const unreadable = async (at: number, start: number, reason: string) => {
    const located = problems++ < LOCATED_PROBLEMS ? await locateByte(source, at).catch(() => undefined) : undefined;
    const position = { byte: at, line: located?.line, column: located?.column, problem: reason };
    const problem = malformedJson(source, position, reason, { record: index + 1, start });
    index += 1;
    if (!reading.onUnreadable) throw problem;
    reading.onUnreadable(problem);
  };
  try {
    for (;;) {
      const event = await scanner.next();
      if (event.kind === "end") return;
      if (event.kind === "damage") {
        const start = scanner.recordStart >= 0 ? scanner.recordStart : event.at;
        await unreadable(event.at, start, event.reason);
        scanner.resyncAfter(start);
        continue;
      }
      if (event.kind !== "record") continue;
      const parsed = event.parsed ?? scanner.parse(event.start, event.end);
      window.release(event.end);
      if ("failure" in parsed) await unreadable(parsed.at, event.start, parsed.failure);
      else yield { value: parsed.value, index: index++, byte: event.start, repair: parsed.repair };
    }
  } finally {
    input.destroy();
  }
}

/** The bytes read and not yet let go, as the chunks they came in: a record's bytes are sliced out once it is whole. */
class ByteWindow {
  private chunks: Buffer[] = [];
  private starts: number[] = [];
  /** Bytes read so far: the window ends here. */
  end = 0;
  private done = false;

  constructor(
    private readonly input: AsyncIterator<unknown>,
    private readonly tally: ByteTally,
    private readonly source: ByteSource,
  ) {}

  /** Where the bytes still held start. */
  get start(): number {
    return this.starts[0] ?? this.end;
  }

  /** Reads the next chunk; false at the end of the file. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    let next: IteratorResult<unknown>;
    try {
      next = await this.input.next();
    } catch (error) {
      throw await readFailure(error, this.source, true); // e.g. a damaged zip entry
    }
    if (next.done) {
      this.done = true;
      return false;
    }
    const chunk = next.value as Buffer;
    this.chunks.push(chunk);
    this.starts.push(this.end);
    this.end += chunk.length;
    this.tally.add(chunk.length);
    return true;
  }

  /** The chunk holding `position` (which the window holds), and where it starts. */
  chunkAt(position: number): { chunk: Buffer; start: number } {
    for (let i = this.chunks.length - 1; i >= 0; i--) {
      if (this.starts[i]! <= position) return { chunk: this.chunks[i]!, start: this.starts[i]! };
    }
    throw new Error(`byte ${position} is no longer held`);
  }

  byteAt(position: number): number {
    const { chunk, start } = this.chunkAt(position);
    return chunk[position - start]!;
  }

  slice(from: number, to: number): Buffer {
    const pieces = this.pieces(from, to);
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  }

  /** The bytes from `from` to `to`, as the parts of the chunks that hold them (not copied). */
  pieces(from: number, to: number): Buffer[] {
    const pieces: Buffer[] = [];
    for (const [i, chunk] of this.chunks.entries()) {
      const start = this.starts[i]!;
      if (start + chunk.length <= from || start >= to) continue;
      pieces.push(chunk.subarray(Math.max(0, from - start), Math.min(chunk.length, to - start)));
    }
    return pieces;
  }

  /** Lets go of the chunks wholly before `position`. */
  release(position: number): void {
    let drop = 0;
    while (drop < this.chunks.length - 1 && this.starts[drop + 1]! <= position) drop++;
    if (drop === 0) return;
    this.chunks.splice(0, drop);
    this.starts.splice(0, drop);
  }
}

/** Records this large are parsed without the base64 of their data URLs (images pasted into a chat, screenshots a tool took). */
const LARGE_RECORD = 8 * 1024 * 1024;
const BASE64_MARK = Buffer.from(";base64,");
/** A payload this short is kept: it costs nothing, and may be no image's (`;base64,` written in a sentence). */
const SMALL_PAYLOAD = 1024;
const SEMICOLON = 0x3b;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;

/**
 * A large record's bytes, given as the window's chunks, with the payload of each data URL
 * (`data:image/png;base64,` kept) left out: no importer reads an image's bytes (placeholders.ts
 * writes `[image]`), and a session file of one record holding screenshots (Continue's, 100 MB and
 * more) was held four times over, chunks, their copy, text and value, past 600 MB. Base64 holds no
 * quote and no backslash but JSON's `\/`, so what is left out is within one JSON string; a mark or
 * a payload may run across chunks.
 */
function withoutImageBytes(pieces: readonly Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let matched = 0; // the mark's bytes met so far
  let payload: Place | undefined; // where the payload being passed over starts
  let length = 0; // its bytes so far
  let backslash = false; // met in the payload, the byte after it not yet
  /** The payload ends before `end`: left out, or kept when too short to be an image (`;base64,` in a sentence). */
  const payloadEnd = (end: Place, escaped: boolean) => {
    if (length < SMALL_PAYLOAD) kept.push(...between(pieces, payload!, end));
    else if (escaped) kept.push(Buffer.from([BACKSLASH])); // the string's own escape, after the payload
    payload = undefined;
  };
  for (const [p, piece] of pieces.entries()) {
    let from = 0; // where the bytes kept of this piece start, outside a payload
    let i = 0;
    while (i < piece.length) {
      const byte = piece[i]!;
      if (payload !== undefined) {
        const escaped: boolean = backslash;
        backslash = !escaped && byte === BACKSLASH;
        if (escaped ? byte === SLASH : byte === BACKSLASH || isBase64Byte(byte)) {
          i++;
          length++;
          continue;
        }
        payloadEnd({ piece: p, at: i }, escaped);
        from = i;
      } else if (matched > 0 && byte === BASE64_MARK[matched]) {
        i++;
        matched++;
        if (matched < BASE64_MARK.length) continue;
        kept.push(piece.subarray(from, i));
        payload = { piece: p, at: i };
        length = 0;
        matched = 0;
      } else {
        const semicolon = piece.indexOf(SEMICOLON, i);
        matched = semicolon === -1 ? 0 : 1;
        i = semicolon === -1 ? piece.length : semicolon + 1;
      }
    }
    if (payload === undefined) kept.push(piece.subarray(from));
  }
  if (payload !== undefined) payloadEnd({ piece: pieces.length - 1, at: pieces.at(-1)!.length }, backslash);
  return Buffer.concat(kept);
}

/** A byte's place among the pieces of a record. */
interface Place {
  piece: number;
  at: number;
}

/** The bytes from one place to another, as parts of the pieces. */
function between(pieces: readonly Buffer[], start: Place, end: Place): Buffer[] {
  const parts: Buffer[] = [];
  for (let p = start.piece; p <= end.piece; p++) {
    parts.push(pieces[p]!.subarray(p === start.piece ? start.at : 0, p === end.piece ? end.at : pieces[p]!.length));
  }
  return parts;
}

function isBase64Byte(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    (byte >= 0x30 && byte <= 0x39) ||
    byte === 0x2b ||
    byte === SLASH ||
    byte === 0x3d
  );
}

const OBJECT = 1;
const LIST = 2;

/** What the next byte outside a string may be. */
enum Expect {
  Value,
  ValueOrListEnd,
  KeyOrObjectEnd,
  Key,
  Colon,
  CommaOrEnd,
}

/**
 * Follows the grammar byte by byte outside strings (and from quote to quote inside them), telling
 * where each record starts and ends, or where the bytes stop being JSON.
 */
class RecordScanner {
  /** Where the record being scanned starts; -1 between records. */
  recordStart = -1;
  private position = 0;
  private expect = Expect.Value;
  private stack: number[] = [];
  /** Beside `stack`: where each object that is a list's element starts, while a try runs after damage (-1 otherwise). */
  private elementStarts: number[] = [];
  private inString = false;
  private stringIsKey = false;
  private escaped = false;
  private inScalar = false;
  /** The depth of the containers a record sits in: 1 in a list, one more than the wrapper's keys in a wrapped list, 0 for top-level values. */
  private readonly recordDepth: number;
  /** Records are being read (a wrapped file's records only once the list at its wrapper path has opened). */
  private inRecords: boolean;
  /** The wrapped list has closed: nothing after it is read. */
  private finished = false;
  private keyStart = -1;
  /** In a wrapped file, the last key read in each of the objects open on the way to the records (by depth, from 0). */
  private readonly pathKeys: string[] = [];
  /** The first backslash in `backslashChunk` at or after `backslashFrom` (the chunk's length: none). */
  private backslashChunk: Buffer | undefined;
  private backslashFrom = 0;
  private backslashAt = 0;
  /** After damage: where the next record is looked for, and where the one being tried starts (-1: none). */
  private resync: { from: number; trying: number } | undefined;

  constructor(
    private readonly window: ByteWindow,
    private readonly layout: JsonLayout,
    private readonly isRecord: (value: unknown) => boolean,
    private readonly wrapper: WrapperPath,
  ) {
    this.recordDepth = layout === "values" ? 0 : layout === "array" ? 1 : wrapper.length + 1;
    this.inRecords = layout === "values";
  }

  /** The next record, damage, or the end. */
  async next(): Promise<Event> {
    for (;;) {
      const event = this.resync?.trying === -1 ? this.findCandidate() : this.scan();
      if (event.kind !== "more") {
        const settled = this.settle(event);
        if (settled.kind !== "more") return settled;
        continue;
      }
      if (this.resync === undefined && this.recordStart < 0 && this.keyStart < 0) this.window.release(this.position);
      if (!(await this.window.more())) {
        const settled = this.settle(this.atEnd());
        if (settled.kind !== "more") return settled;
      }
    }
  }

  /** Starts over after damage: at the next object after `start` that is a record. */
  resyncAfter(start: number): void {
    this.resync = { from: start + 1, trying: -1 };
    this.recordStart = -1;
  }

  /** The record's value parsed, repaired where its text was not valid Unicode; or why it cannot be parsed. */
  parse(start: number, end: number): Parsed {
    const large = end - start >= LARGE_RECORD;
    const bytes = large ? withoutImageBytes(this.window.pieces(start, end)) : this.window.slice(start, end);
    const text = bytes.toString("utf8");
    try {
      return repairRecord(JSON.parse(text), bytes, text);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const at = bytes.length === end - start ? /at position (\d+)/.exec(message)?.[1] : undefined;
      const byte = at === undefined ? start : start + Buffer.byteLength(text.slice(0, Number(at)));
      return { failure: message.replace(/ in JSON at position \d+.*$/s, "").replace(/ \(line \d+ column \d+\)$/, ""), at: byte };
    }
  }

  /** While resyncing, what a try found is taken only when it parses whole and is a record of the format. */
  private settle(event: Event): Event {
    const resync = this.resync;
    if (resync === undefined || resync.trying === -1 || event.kind === "end") return event;
    if (event.kind === "record") {
      const parsed = this.parse(event.start, event.end);
      if (!("failure" in parsed) && this.isRecord(parsed.value)) {
        this.resync = undefined;
        return { ...event, parsed };
      }
    }
    // No record starts there: look again from the byte after it.
    resync.from = resync.trying + 1;
    resync.trying = -1;
    this.recordStart = -1;
    return MORE;
  }

  /** The next `{` from `resync.from` that follows a comma, a list's start or a value's end: a try starts there. */
  private findCandidate(): Event {
    const resync = this.resync!;
    for (let at = Math.max(resync.from, this.window.start); at < this.window.end; at++) {
      if (this.window.byteAt(at) !== 0x7b || !this.followsBoundary(at)) continue;
      resync.trying = at;
      this.window.release(at);
      this.startTry(at);
      return this.scan();
    }
    resync.from = this.window.end;
    this.window.release(resync.from);
    return MORE;
  }

  /**
   * Whether the byte before `at`, spaces aside, ends a value or starts a list, or `at` starts a line
   * (values a line each), or the byte is no longer held.
   */
  private followsBoundary(at: number): boolean {
    for (let i = at - 1; i >= this.window.start; i--) {
      const byte = this.window.byteAt(i);
      if (byte === 0x0a) return true;
      if (isSpace(byte)) continue;
      return byte === 0x2c || byte === 0x5b || byte === 0x7d || byte === 0x5d; // , [ } ]
    }
    return true;
  }

  /** The scanner as it is at the start of a record, at `at`. */
  private startTry(at: number): void {
    this.position = at;
    this.stack = this.recordContext();
    this.elementStarts = this.stack.map(() => -1);
    this.expect = Expect.Value;
    this.inString = false;
    this.inScalar = false;
    this.escaped = false;
    this.inRecords = true;
    this.finished = false;
    this.recordStart = -1;
    this.keyStart = -1;
  }

  /** The containers a record sits in. */
  private recordContext(): number[] {
    return this.layout === "values" ? [] : this.layout === "array" ? [LIST] : [...this.wrapper.map(() => OBJECT), LIST];
  }

  /**
   * At the end of the file: the end, a last top-level number, or the record (or list) the file stops
   * inside. After damage it is the end: a try that runs into it is the damaged record's inside.
   */
  private atEnd(): Event {
    if (this.resync !== undefined) return END;
    if (this.inScalar) {
      this.inScalar = false;
      const ended = this.valueEnded(this.window.end);
      if (ended !== undefined) return ended;
    }
    const closed =
      !this.inString && this.stack.length === 0 && this.recordStart < 0 && (this.layout === "values" || this.expect === Expect.CommaOrEnd);
    if (closed || this.finished) return END;
    return { kind: "damage", at: this.window.end, reason: "unexpected end of file" };
  }

  /** Scans the bytes the window holds from `position`: stops at a record's end, damage, or the bytes' end. */
  private scan(): Event {
    if (this.position === 0 && this.skipByteOrderMark()) this.position = 3;
    while (this.position < this.window.end) {
      if (this.finished) return END;
      const { chunk, start } = this.window.chunkAt(this.position);
      const event = this.inString ? this.scanString(chunk, start) : this.scanStructure(chunk, start);
      if (event !== undefined) return event;
    }
    return MORE;
  }

  private skipByteOrderMark(): boolean {
    return this.window.end >= 3 && this.window.byteAt(0) === 0xef && this.window.byteAt(1) === 0xbb && this.window.byteAt(2) === 0xbf;
  }

  /** Inside a string: on to its closing quote, over escapes. */
  private scanString(chunk: Buffer, start: number): Event | undefined {
    let i = this.position - start;
    if (this.escaped) {
      this.escaped = false;
      i += 1;
    }
    while (i < chunk.length) {
      const quote = chunk.indexOf(0x22, i);
      const backslash = this.nextBackslash(chunk, i);
      if (backslash < chunk.length && (quote === -1 || backslash < quote)) {
        this.escaped = backslash + 1 >= chunk.length;
        i = Math.min(backslash + 2, chunk.length);
        continue;
      }
      if (quote === -1) break;
      this.position = start + quote + 1;
      this.inString = false;
      return this.stringEnded(start + quote);
    }
    this.position = start + chunk.length;
    return undefined;
  }

  /** The next backslash in the chunk from `i` (the chunk's length: none), without scanning the chunk again for every string. */
  private nextBackslash(chunk: Buffer, i: number): number {
    if (this.backslashChunk !== chunk || i < this.backslashFrom || i > this.backslashAt) {
      const at = chunk.indexOf(0x5c, i);
      this.backslashChunk = chunk;
      this.backslashFrom = i;
      this.backslashAt = at === -1 ? chunk.length : at;
    }
    return this.backslashAt;
  }

  private stringEnded(quote: number): Event | undefined {
    if (!this.stringIsKey) return this.valueEnded(quote + 1);
    if (this.keyStart >= 0) {
      this.pathKeys[this.stack.length - 1] = this.window.slice(this.keyStart + 1, quote).toString("utf8");
      this.keyStart = -1;
    }
    this.expect = Expect.Colon;
    return undefined;
  }

  /** Outside strings, byte by byte. */
  private scanStructure(chunk: Buffer, start: number): Event | undefined {
    for (let i = this.position - start; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inScalar) {
        if (isScalarByte(byte)) continue;
        this.inScalar = false;
        const ended = this.valueEnded(start + i);
        if (ended !== undefined) {
          this.position = start + i; // the byte after the number is read next
          return ended;
        }
      }
      if (isSpace(byte)) continue;
      this.position = start + i + 1;
      const event = this.onByte(byte, start + i);
      if (event !== undefined) return event;
      if (this.inString) return undefined;
    }
    this.position = start + chunk.length;
    return undefined;
  }

  /** One byte of structure: a value's start, a comma, a colon or a closing bracket. */
  private onByte(byte: number, at: number): Event | undefined {
    switch (this.expect) {
      case Expect.ValueOrListEnd:
        return byte === 0x5d ? this.close(LIST, at) : this.startValue(byte, at);
      case Expect.Value:
        return this.startValue(byte, at);
      case Expect.KeyOrObjectEnd:
        return byte === 0x7d ? this.close(OBJECT, at) : this.startKey(byte, at);
      case Expect.Key:
        return this.startKey(byte, at);
      case Expect.Colon:
        if (byte !== 0x3a) return damage(at, byte, "':'");
        this.expect = Expect.Value;
        return undefined;
      case Expect.CommaOrEnd:
        return this.afterValue(byte, at);
    }
  }

  private startValue(byte: number, at: number): Event | undefined {
    const record = this.inRecords && this.stack.length === this.recordDepth;
    if (byte === 0x7b || byte === 0x5b) {
      if (record) this.recordStart = at;
      const element = byte === 0x7b && this.stack.at(-1) === LIST && this.resync !== undefined;
      this.elementStarts.push(element ? at : -1);
      this.stack.push(byte === 0x7b ? OBJECT : LIST);
      this.expect = byte === 0x7b ? Expect.KeyOrObjectEnd : Expect.ValueOrListEnd;
      this.opened();
      return undefined;
    }
    if (byte === 0x22 || isScalarByte(byte)) {
      if (record) this.recordStart = at;
      this.inString = byte === 0x22;
      this.stringIsKey = false;
      this.inScalar = byte !== 0x22;
      return undefined;
    }
    return damage(at, byte, "a value");
  }

  /** A list opened: the records are the top-level list's, or a wrapped file's at its wrapper path. */
  private opened(): void {
    if (this.layout === "array" && this.stack.length === 1) this.inRecords = true;
    if (this.layout === "wrapped" && this.stack.length === this.recordDepth && this.stack.at(-1) === LIST && this.onWrapperPath()) {
      this.inRecords = true;
    }
  }

  /** The containers open around the list that just opened are the wrapper path's objects, under its keys. */
  private onWrapperPath(): boolean {
    return this.wrapper.every((key, depth) => this.stack[depth] === OBJECT && this.pathKeys[depth] === key);
  }

  private startKey(byte: number, at: number): Event | undefined {
    if (byte !== 0x22) return damage(at, byte, "a field name");
    this.inString = true;
    this.stringIsKey = true;
    this.keyStart = this.layout === "wrapped" && !this.inRecords && this.stack.length <= this.wrapper.length ? at : -1;
    return undefined;
  }

  private afterValue(byte: number, at: number): Event | undefined {
    const top = this.stack.at(-1);
    if (byte === 0x2c && top !== undefined) {
      this.expect = top === OBJECT ? Expect.Key : Expect.Value;
      return undefined;
    }
    if (byte === 0x7d) return this.close(OBJECT, at);
    if (byte === 0x5d) return this.close(LIST, at);
    // Top-level values may follow one another (concatenated JSON) with nothing between them.
    if (top === undefined && this.layout === "values") return this.startValue(byte, at);
    return damage(at, byte, top === OBJECT ? "',' or '}'" : top === LIST ? "',' or ']'" : "the end of the file");
  }

  private close(kind: number, at: number): Event | undefined {
    if (this.stack.at(-1) !== kind) return damage(at, kind === OBJECT ? 0x7d : 0x5d, "a value");
    this.stack.pop();
    const start = this.elementStarts.pop() ?? -1;
    if (start >= 0 && this.stack.length > this.recordDepth) {
      const found = this.nestedRecord(start, at + 1);
      if (found !== undefined) return found;
    }
    if (this.layout === "wrapped" && this.inRecords && this.stack.length === this.wrapper.length) {
      this.finished = true;
      return END;
    }
    return this.valueEnded(at + 1);
  }

  /**
   * After damage, a try's list may hold what are really the next records, the damage having lost
   * the brackets that closed the record before them: one that parses whole as a record of the format
   * is taken as one, and reading goes on after it as between records.
   */
  private nestedRecord(start: number, end: number): Event | undefined {
    const parsed = this.parse(start, end);
    if ("failure" in parsed || !this.isRecord(parsed.value)) return undefined;
    this.resync = undefined;
    this.stack = this.recordContext();
    this.elementStarts = this.stack.map(() => -1);
    this.inRecords = true;
    this.recordStart = -1;
    this.expect = Expect.CommaOrEnd;
    return { kind: "record", start, end, parsed };
  }

  /** A value ended at `end`: the record's end when it was at the records' depth. */
  private valueEnded(end: number): Event | undefined {
    this.expect = Expect.CommaOrEnd;
    if (this.recordStart < 0 || this.stack.length !== this.recordDepth) return undefined;
    const start = this.recordStart;
    this.recordStart = -1;
    return { kind: "record", start, end };
  }
}

function damage(at: number, byte: number, wanted: string): Event {
  const shown = byte >= 0x21 && byte <= 0x7e ? `'${String.fromCharCode(byte)}'` : `byte 0x${byte.toString(16).padStart(2, "0")}`;
  return { kind: "damage", at, reason: `expected ${wanted}, found ${shown}` };
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The bytes of numbers, true, false and null (JSON.parse judges the value itself). */
function isScalarByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x45
  );
}
