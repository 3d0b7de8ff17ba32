// A file saved as UTF-16 (PowerShell 5's `Out-File` and `>`, Notepad's "Unicode") is read as the
// UTF-8 text it holds: every reader (detection, JSON, NDJSON, text) opens the source, so the source
// itself hands out UTF-8, transcoded as it streams. A lone surrogate is written as the byte FF (no
// UTF-8), so that the readers repair it to U+FFFD and report it as they do bad UTF-8.
import { Transform, pipeline, type Readable, type TransformCallback } from "node:stream";
import type { ByteSource, TextEncoding } from "./source.js";
import { IMPORTERS } from "./registry.js";

/** How much of the file's start tells its encoding. */
const SNIFF_BYTES = 1024;

/**
 * The source as UTF-8: itself unless its first bytes show UTF-16 (utf16Of). Its size is that of its
 * UTF-8 text, counted by a read of the file: the readers' offsets, the progress and the judgement that
 * a file stops short (an offset at its end) are all in the text they read.
 */
export async function asUtf8(source: ByteSource): Promise<ByteSource> {
  const head = await headOf(source);
  // A binary format (GPT4All's Qt stream, its texts UTF-16) is read into the JSON record its importer reads.
  const binary = IMPORTERS.find((importer) => importer.binary?.starts(head))?.binary;
  if (binary !== undefined) return binary.asJson(source);
  const encoding = utf16Of(head);
  if (encoding === undefined) return source;
  const open = async () => transcoded(await source.open(), encoding);
  return { ...source, encoding, open, size: await lengthOf(open) };
}

/** How many bytes the stream `open` gives has; what it gives before a failure, which its reader reports. */
async function lengthOf(open: () => Promise<Readable>): Promise<number> {
  const input = await open();
  let length = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) length += chunk.length;
  } catch {
    // A damaged zip entry is reported by the reader that meets it.
  } finally {
    input.destroy();
  }
  return length;
}

/**
 * UTF-16 by its byte-order mark, or without one when the first KB is unmistakable: a NUL in every
 * other byte (ASCII text as UTF-16) and none between, which no UTF-8 text or JSON holds. FF FE 00 00
 * is UTF-32's mark, not taken.
 */
export function utf16Of(head: Buffer): TextEncoding | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return head[2] === 0 && head[3] === 0 ? undefined : "UTF-16LE";
  if (head[0] === 0xfe && head[1] === 0xff) return "UTF-16BE";
  const pairs = Math.floor(Math.min(head.length, SNIFF_BYTES) / 2);
  if (pairs < 2) return undefined;
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0) evenNuls += 1;
    if (head[2 * i + 1] === 0) oddNuls += 1;
  }
  if (evenNuls === 0 && oddNuls * 2 >= pairs) return "UTF-16LE";
  if (oddNuls === 0 && evenNuls * 2 >= pairs) return "UTF-16BE";
  return undefined;
}

async function headOf(source: ByteSource): Promise<Buffer> {
  const input = await source.open();
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= SNIFF_BYTES) break;
    }
  } catch {
    // A source that cannot be read is said so by the reader that reads it, with its words.
  } finally {
    input.destroy();
  }
  return Buffer.concat(chunks).subarray(0, SNIFF_BYTES);
}

/** The stream transcoded to UTF-8; a failure of the input (a damaged zip entry) reaches the reader. */
function transcoded(input: Readable, encoding: TextEncoding): Readable {
  return pipeline(input, new Utf16ToUtf8(encoding), () => undefined);
}

/** A lone surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

class Utf16ToUtf8 extends Transform {
  private pending = Buffer.alloc(0);
  private first = true;

  constructor(private readonly encoding: TextEncoding) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let bytes = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.first && bytes.length >= 2) {
      this.first = false;
      if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) bytes = bytes.subarray(2);
    }
    let end = bytes.length - (bytes.length % 2);
    // A high surrogate last waits for its low half in the next chunk.
    if (end >= 2 && isHighSurrogate(this.unitAt(bytes, end - 2))) end -= 2;
    this.pending = Buffer.from(bytes.subarray(end));
    callback(null, this.utf8Of(bytes.subarray(0, end)));
  }

  override _flush(callback: TransformCallback): void {
    // An odd last byte is no code unit: it stays a byte that is not UTF-8, repaired and reported.
    const units = this.pending.subarray(0, this.pending.length - (this.pending.length % 2));
    const odd = this.pending.length % 2 === 1 ? NOT_UTF8 : Buffer.alloc(0);
    callback(null, Buffer.concat([this.utf8Of(units), odd]));
  }

  private unitAt(bytes: Buffer, at: number): number {
    return this.encoding === "UTF-16LE" ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at);
  }

  private utf8Of(units: Buffer): Buffer {
    const text = (this.encoding === "UTF-16LE" ? units : Buffer.from(units).swap16()).toString("utf16le");
    return LONE_SURROGATE.test(text) ? withLoneSurrogatesMarked(text) : Buffer.from(text, "utf8");
  }
}

/** A byte that no UTF-8 text holds. */
const NOT_UTF8 = Buffer.from([0xff]);

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** The text as UTF-8, each lone surrogate as the byte FF. */
function withLoneSurrogatesMarked(text: string): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (const match of text.matchAll(new RegExp(LONE_SURROGATE, "g"))) {
    parts.push(Buffer.from(text.slice(start, match.index), "utf8"), NOT_UTF8);
    start = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(start), "utf8"));
  return Buffer.concat(parts);
}
