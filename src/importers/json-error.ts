// Turns a JSON parse failure into an AppError that names the file, the record and the position.
// Where only the byte is known (json-records.ts), the file is read again to its line and column; a
// file that is not JSON at all (detect.ts) is read once more through stream-json's verifier, which
// gives line, column and character offset, the offset converted to a byte here.
import { finished } from "node:stream/promises";
import type { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import verifier from "stream-json/utils/verifier.js";
import { AppError, isAppError } from "../shared/errors.js";
import { byteAt, type ByteSource, type TextEncoding } from "./source.js";

export interface JsonPosition {
  /** Zero-based byte offset of the problem (undefined if it could not be mapped). */
  byte: number | undefined;
  /** One-based line and column (column counted in characters), when known. */
  line?: number | undefined;
  column?: number | undefined;
  problem: string;
}

/** The record a problem is in: its number (one-based) and where it starts. */
export interface RecordAt {
  record: number;
  start: number;
}

interface DecodedChunk {
  text: string;
  charStart: number;
  byteStart: number;
}

interface VerifierError extends Error {
  line: number;
  pos: number;
  offset: number;
}

const CHUNK_WINDOW = 3; // the verifier may report a position slightly before the chunk being fed

/** Where the JSON in `source` first goes wrong; undefined if the verifier finds no fault. */
export async function locateJsonError(source: ByteSource, jsonStreaming: boolean): Promise<JsonPosition | undefined> {
  const input = await source.open();
  const check = verifier.asStream({ jsonStreaming });
  check.on("error", () => undefined); // failures surface through the write callbacks
  const decoder = new StringDecoder("utf8");
  const window: DecodedChunk[] = [];
  let charStart = 0;
  let byteStart = 0;
  const feed = async (text: string): Promise<void> => {
    window.push({ text, charStart, byteStart });
    if (window.length > CHUNK_WINDOW) window.shift();
    charStart += text.length;
    byteStart += Buffer.byteLength(text);
    await write(check, text);
  };
  try {
    for await (const chunk of input) await feed(decoder.write(chunk as Buffer));
    await feed(decoder.end());
    check.end();
    await finished(check, { readable: false });
    return undefined;
  } catch (error) {
    return isVerifierError(error) ? positionOf(error, window) : undefined;
  } finally {
    input.destroy();
    check.destroy();
  }
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

function isVerifierError(error: unknown): error is VerifierError {
  return error instanceof Error && typeof (error as Partial<VerifierError>).offset === "number";
}

function positionOf(error: VerifierError, window: DecodedChunk[]): JsonPosition {
  const problem = error.message.replace(/^ERROR at \d+ \(\d+, \d+\): /, "").replace(/^Verifier (cannot parse input: )?/, "");
  return { byte: byteOffset(error.offset, window), line: error.line, column: error.pos, problem };
}

function byteOffset(charOffset: number, window: DecodedChunk[]): number | undefined {
  for (const chunk of window) {
    const within = charOffset - chunk.charStart;
    if (within >= 0 && within <= chunk.text.length) {
      return chunk.byteStart + Buffer.byteLength(chunk.text.slice(0, within));
    }
  }
  return undefined;
}

/**
 * The error for a file that is not valid JSON (or is cut short); with `record`, for that record of
 * it, which is left out while the rest is read.
 */
export function malformedJson(source: ByteSource, found: JsonPosition | undefined, fallbackProblem: string, record?: RecordAt): AppError {
  // A file cut inside a multi-byte character decodes to U+FFFD (3 bytes): keep the offset in the file.
  const position = found?.byte === undefined ? found : { ...found, byte: Math.min(found.byte, source.size) };
  const truncated = position !== undefined && looksTruncated(position, source.size);
  const where = position === undefined ? "" : ` at ${describePosition(position, source.encoding)}`;
  const problem = truncated ? "unexpected end of file (the file looks truncated)" : (position?.problem ?? fallbackProblem);
  const name = record === undefined ? source.label : `${source.label}, record ${record.record}`;
  return new AppError("invalid_input", `${name}: invalid JSON${where}: ${problem}`, {
    suggestion: truncated
      ? "The export looks incomplete: download it again, or re-extract it from the original zip."
      : record !== undefined
        ? "That record is damaged and left out; the rest of the file is read. Download the export again to have it too."
        : "The file is not valid JSON: check that it is an unmodified export (or valid upload-shape JSON / NDJSON).",
    details: {
      ...(position === undefined ? {} : { line: position.line, column: position.column, byte: position.byte }),
      ...(record === undefined ? {} : { record: record.record, recordByte: record.start }),
    },
  });
}

/** The line and column (one-based, the column in characters) of a byte of the file, read again to it. */
export async function locateByte(source: ByteSource, byte: number): Promise<{ line: number; column: number }> {
  const input = await source.open();
  let line = 1;
  let column = 1;
  let read = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      const end = Math.min(chunk.length, byte - read);
      for (let i = 0; i < end; i++) {
        const value = chunk[i]!;
        if (value === 0x0a) {
          line += 1;
          column = 1;
        } else if ((value & 0xc0) !== 0x80) column += 1; // a character's first byte
      }
      read += chunk.length;
      if (read >= byte) break;
    }
  } finally {
    input.destroy();
  }
  return { line, column };
}

/** A `\uXXXX` escape takes 6 bytes: one that the end of the file cuts is a cut, not a bad escape. */
const ESCAPE_BYTES = 6;

/**
 * The data stops inside a value: the position is the end of the file, the verifier wanted more, or
 * an escape sequence runs into the end of the file.
 */
function looksTruncated(position: JsonPosition, size: number): boolean {
  if (position.byte !== undefined && position.byte >= size) return true;
  if (position.byte !== undefined && /escap/i.test(position.problem) && size - position.byte < ESCAPE_BYTES) return true;
  return position.problem.startsWith("has expected");
}

function describePosition(position: JsonPosition, encoding: TextEncoding | undefined): string {
  const lineColumn = position.line === undefined ? undefined : `line ${position.line}, column ${position.column}`;
  if (position.byte === undefined) return lineColumn ?? "an unknown position";
  const byte = byteAt(position.byte, encoding);
  return lineColumn === undefined ? byte : `${byte} (${lineColumn})`;
}

/** Maps any failure while reading `source` as JSON to an AppError (parse errors get a position). */
export async function readFailure(error: unknown, source: ByteSource, jsonStreaming: boolean): Promise<AppError> {
  if (isAppError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("Parser ") || message.startsWith("Top-level object")) {
    const position = await locateJsonError(source, jsonStreaming).catch(() => undefined);
    return malformedJson(source, position, message.replace(/^Parser (cannot parse input: )?/, ""));
  }
  return new AppError("invalid_input", `${source.label}: cannot be read (${message})`, {
    suggestion: "The file or archive may be damaged: download the export again.",
    cause: error,
  });
}
