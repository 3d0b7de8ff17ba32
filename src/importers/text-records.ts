// A file of a text format (a Markdown transcript) is one record: its whole text. Bytes that are not
// UTF-8 are repaired to U+FFFD and said so, as in a JSON record (repair.ts); the byte-order mark
// goes, and Windows line ends become \n, so a converter sees one kind of text. A format whose file
// holds a conversation per section (Aider's history, a session per heading) is read a section at a
// time, each section a record: such a file grows for years, past what a transcript is read to.
import { isUtf8 } from "node:buffer";
import { AppError } from "../shared/errors.js";
import { withoutBom } from "../text/utf8.js";
import { readFailure } from "./json-error.js";
import type { RawRecord } from "./json-records.js";
import { cutText } from "../text/cut-text.js";
import { byteAt, type ByteSource, type ByteTally } from "./source.js";
import type { UnreadableRecord } from "./types.js";

/**
 * The largest text file read: a transcript is one conversation, and an upload holds at most
 * 100,000 tokens (~400 KB of text), so a file this large is no transcript a person saved.
 */
export const MAX_TEXT_BYTES = 64 * 1024 * 1024;

/** The file's text as its one record; or, when the format's conversations open with a heading line, each section's (sectionRecords). */
export async function* textRecords(
  source: ByteSource,
  tally: ByteTally,
  heading?: RegExp,
  onUnreadable?: UnreadableRecord,
): AsyncGenerator<RawRecord> {
  if (heading !== undefined) {
    yield* sectionRecords(source, tally, heading, onUnreadable);
    return;
  }
  if (source.size > MAX_TEXT_BYTES) {
    throw new AppError(
      "invalid_input",
      `${source.label}: a text file of ${source.size} bytes, over the ${MAX_TEXT_BYTES / 1024 ** 2} MB a transcript is read to`,
      {
        suggestion: "A transcript is one conversation: split the file into one file per conversation.",
      },
    );
  }
  yield textRecord(await readAll(source, tally), 0, 0);
}

function textRecord(bytes: Buffer, index: number, byte: number): RawRecord {
  const text = normalised(bytes.toString("utf8"));
  const bad = isUtf8(bytes) ? 0 : [...text.matchAll(/\uFFFD/g)].length;
  const repair = bad > 0 ? { fields: ["(the text)"], count: bad, text: cutText(firstRepaired(text), 80) } : undefined;
  return { value: text, index, byte, repair };
}

/** A heading is a short line: longer ones are not decoded to be tested. */
const HEADING_BYTES = 1024;
const NEWLINE = 0x0a;

/**
 * The file cut before each line `heading` matches, the text before the first heading a record too
 * (when it holds any): memory holds one section, and a section over MAX_TEXT_BYTES is left out (said
 * to `onUnreadable`, thrown without it) and the rest read. Lines are cut at their \n byte, which
 * UTF-8 never holds within a character.
 */
async function* sectionRecords(
  source: ByteSource,
  tally: ByteTally,
  heading: RegExp,
  onUnreadable: UnreadableRecord | undefined,
): AsyncGenerator<RawRecord> {
  const sections = new Sections(source, heading, onUnreadable);
  const input = await source.open();
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      tally.add(chunk.length);
      let from = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
        const record = sections.lineEnd(chunk.subarray(from, end + 1));
        if (record !== undefined) yield record;
        from = end + 1;
      }
      if (from < chunk.length) sections.linePart(chunk.subarray(from));
    }
  } catch (error) {
    throw await readFailure(error, source, false);
  } finally {
    input.destroy();
  }
  yield* sections.end();
}

/** The section being read, line by line. */
class Sections {
  private index = 0;
  /** Where the section starts in the file, and its bytes so far. */
  private start = 0;
  private size = 0;
  /** Its bytes, unless it is over MAX_TEXT_BYTES. */
  private held: Buffer[] | undefined = [];
  /** The line being read, unless it is over MAX_TEXT_BYTES (no heading then), and its bytes so far. */
  private line: Buffer[] | undefined = [];
  private lineSize = 0;

  constructor(
    private readonly source: ByteSource,
    private readonly heading: RegExp,
    private readonly onUnreadable: UnreadableRecord | undefined,
  ) {}

  linePart(bytes: Buffer): void {
    this.lineSize += bytes.length;
    this.line?.push(bytes);
    if (this.lineSize > MAX_TEXT_BYTES) this.line = undefined;
  }

  /** The line ends with these bytes: the section that ends before it, when it is a heading. */
  lineEnd(bytes: Buffer): RawRecord | undefined {
    this.linePart(bytes);
    const line = this.line === undefined ? undefined : this.line.length === 1 ? this.line[0]! : Buffer.concat(this.line);
    const record = line !== undefined && this.size > 0 && this.isHeading(line) ? this.close() : undefined;
    this.size += this.lineSize;
    if (line === undefined || this.size > MAX_TEXT_BYTES) this.held = undefined;
    this.held?.push(line!);
    this.line = [];
    this.lineSize = 0;
    return record;
  }

  /** The end of the file: the sections it ends, its last line having no line end. */
  end(): RawRecord[] {
    const records = [this.lineSize > 0 ? this.lineEnd(Buffer.alloc(0)) : undefined, this.close()];
    return records.filter((record) => record !== undefined);
  }

  /** The section read so far as a record (undefined when it holds nothing, or is said unreadable); the next starts after it. */
  private close(): RawRecord | undefined {
    const { held, size, start } = this;
    this.start += size;
    this.size = 0;
    this.held = [];
    if (size === 0) return undefined;
    const index = this.index++;
    if (held !== undefined) return textRecord(Buffer.concat(held), index, start);
    const problem = tooLong(this.source, index, start, size);
    if (!this.onUnreadable) throw problem;
    this.onUnreadable(problem);
    return undefined;
  }

  private isHeading(line: Buffer): boolean {
    return line.length <= HEADING_BYTES && this.heading.test(line.toString("utf8").replace(/\r?\n$/, ""));
  }
}

function tooLong(source: ByteSource, index: number, start: number, size: number): AppError {
  return new AppError(
    "invalid_input",
    `${source.label}, record ${index + 1} (at ${byteAt(start, source.encoding)}): a conversation of ${size} bytes, over the ${MAX_TEXT_BYTES / 1024 ** 2} MB one is read to`,
    {
      suggestion: "That conversation is left out and the rest of the file is read: to import it, cut it into files of less than 64 MB.",
      details: { record: index + 1, recordByte: start },
    },
  );
}

/** The text as detectors and converters see it: no byte-order mark, `\n` line ends. */
export function normalised(text: string): string {
  return withoutBom(text).replace(/\r\n?/g, "\n");
}

/** The line holding the first character repaired, to tell the user where it was. */
function firstRepaired(text: string): string {
  const at = text.indexOf("\uFFFD");
  const start = text.lastIndexOf("\n", at) + 1;
  const end = text.indexOf("\n", at);
  return text.slice(start, end === -1 ? undefined : end).trim();
}

async function readAll(source: ByteSource, tally: ByteTally): Promise<Buffer> {
  const input = await source.open();
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of input) {
      tally.add((chunk as Buffer).length);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw await readFailure(error, source, false);
  } finally {
    input.destroy();
  }
  return Buffer.concat(chunks);
}
