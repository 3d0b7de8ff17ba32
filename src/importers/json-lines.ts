// NDJSON (one JSON value per line), read line by line: a bad line is reported by line number
// and byte offset. Each line stands alone, so a bad one is skipped when the caller takes the
// report (`onSkipped`); otherwise it ends the read, every line before it yielded.
import { AppError } from "../shared/errors.js";
import { readFailure } from "./json-error.js";
import type { ByteSource, ByteTally } from "./source.js";
import type { SkippedRecord } from "./types.js";

const NEWLINE = 0x0a;

interface LineStart {
  number: number;
  byte: number;
}

/** Yields the parsed value of each non-blank line of `source`. */
export async function* jsonLines(source: ByteSource, tally: ByteTally, onSkipped?: SkippedRecord): AsyncGenerator<unknown> {
  const input = await source.open();
  const line: LineStart = { number: 1, byte: 0 };
  let pending: Buffer[] = [];
  try {
    for await (const chunk of readChunks(input, source)) {
      tally.add(chunk.length);
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        pending.push(chunk.subarray(start, end));
        const bytes = Buffer.concat(pending);
        pending = [];
        const value = parseLine(bytes, line, source, onSkipped);
        if (value !== undefined) yield value;
        line.number += 1;
        line.byte += bytes.length + 1;
        start = end + 1;
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
    const value = parseLine(Buffer.concat(pending), line, source, onSkipped);
    if (value !== undefined) yield value;
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

/** The line's value; undefined for a blank line, or a bad one that `onSkipped` took. */
function parseLine(bytes: Buffer, line: LineStart, source: ByteSource, onSkipped: SkippedRecord | undefined): unknown {
  const text = bytes.toString("utf8");
  if (text.trim() === "") return undefined;
  const bom = text.startsWith("\uFEFF") ? 1 : 0;
  try {
    return JSON.parse(text.slice(bom)) as unknown;
  } catch (error) {
    const problem = badLine(error, text, bom, line, source);
    if (!onSkipped) throw problem;
    onSkipped(problem);
    return undefined;
  }
}

/** `text` is the whole line; JSON.parse saw it without its `bom` leading characters. */
function badLine(error: unknown, text: string, bom: number, line: LineStart, source: ByteSource): AppError {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  const index = position === undefined ? text.trimEnd().length : Number(position) + bom;
  const byte = line.byte + Buffer.byteLength(text.slice(0, index));
  const problem = message.replace(/ in JSON at position \d+.*$/s, "").replace(/ \(line \d+ column \d+\)$/, "");
  return new AppError(
    "invalid_input",
    `${source.label}: invalid JSON at byte ${byte} (line ${line.number}, column ${index + 1}): ${problem}`,
    {
      suggestion: "Each line of an NDJSON file must be one complete JSON object: fix or remove that line.",
      details: { line: line.number, column: index + 1, byte },
    },
  );
}
