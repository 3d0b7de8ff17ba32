// NDJSON (one JSON value per line), read line by line: a bad line is reported by its record number,
// line and byte offset. Each line stands alone, so a bad one is skipped when the caller takes the
// report (`onUnreadable`); otherwise it ends the read, every line before it yielded.
import { AppError } from "../shared/errors.js";
import { readFailure } from "./json-error.js";
import type { RawRecord } from "./json-records.js";
import { repairRecord } from "./repair.js";
import { byteAt, type ByteSource, type ByteTally } from "./source.js";

const NEWLINE = 0x0a;

interface LineStart {
  number: number;
  byte: number;
}

/** Yields the parsed value of each non-blank line of `source`. */
export async function* jsonLines(
  source: ByteSource,
  tally: ByteTally,
  onUnreadable?: (problem: AppError) => void,
): AsyncGenerator<RawRecord> {
  const input = await source.open();
  const line: LineStart = { number: 1, byte: 0 };
  let pending: Buffer[] = [];
  let index = 0;
  const read = (bytes: Buffer): RawRecord | undefined => {
    const text = bytes.toString("utf8");
    if (text.trim() === "") return undefined;
    const record = parseLine(bytes, text, line, index++, source, onUnreadable);
    return record && { ...record, index: index - 1, byte: line.byte };
  };
  try {
    for await (const chunk of readChunks(input, source)) {
      tally.add(chunk.length);
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        pending.push(chunk.subarray(start, end));
        const bytes = Buffer.concat(pending);
        pending = [];
        const record = read(bytes);
        if (record !== undefined) yield record;
        line.number += 1;
        line.byte += bytes.length + 1;
        start = end + 1;
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
    const record = read(Buffer.concat(pending));
    if (record !== undefined) yield record;
  } finally {
    input.destroy();
  }
}

/** The stream's chunks, with read failures (e.g. a damaged zip entry) turned into AppErrors. */
async function* readChunks(input: AsyncIterable<unknown>, source: ByteSource): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of input) yield chunk as Buffer;
  } catch (error) {
    throw await readFailure(error, source, true);
  }
}

/** The line's value, repaired where it is not valid Unicode; undefined for a bad one that `onUnreadable` took. */
function parseLine(
  bytes: Buffer,
  text: string,
  line: LineStart,
  index: number,
  source: ByteSource,
  onUnreadable: ((problem: AppError) => void) | undefined,
): Pick<RawRecord, "value" | "repair"> | undefined {
  const bom = text.startsWith("\uFEFF") ? 1 : 0;
  try {
    return repairRecord(JSON.parse(text.slice(bom)) as unknown, bytes, text);
  } catch (error) {
    const problem = badLine(error, text, bom, line, index, source);
    if (!onUnreadable) throw problem;
    onUnreadable(problem);
    return undefined;
  }
}

/** `text` is the whole line; JSON.parse saw it without its `bom` leading characters. */
function badLine(error: unknown, text: string, bom: number, line: LineStart, index: number, source: ByteSource): AppError {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  const at = position === undefined ? text.trimEnd().length : Number(position) + bom;
  const byte = line.byte + Buffer.byteLength(text.slice(0, at));
  const problem = message.replace(/ in JSON at position \d+.*$/s, "").replace(/ \(line \d+ column \d+\)$/, "");
  return new AppError(
    "invalid_input",
    `${source.label}, record ${index + 1}: invalid JSON at ${byteAt(byte, source.encoding)} (line ${line.number}, column ${at + 1}): ${problem}`,
    {
      suggestion: "Each line of an NDJSON file must be one complete JSON object: fix or remove that line.",
      details: { line: line.number, column: at + 1, byte, record: index + 1, recordByte: line.byte },
    },
  );
}
