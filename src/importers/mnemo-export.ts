// Reads mnemo's own export format (written by core/jobs/export.ts, whose header comment describes
// it): JSON Lines, gzip-compressed or not (told apart by the first bytes), validated a line at a time
// against schemas/export.ts. Streaming: one line in memory at a time, whatever the file's size.
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { constants, createGunzip, gunzipSync } from "node:zlib";
import { formatPath } from "../schemas/parse.js";
import { EXPORT_FORMAT, EXPORT_VERSION, ExportHeader, ExportRecord } from "../schemas/export.js";
import { AppError } from "../shared/errors.js";
import { withoutBom } from "../text/utf8.js";
import { ByteTally, statPath } from "./source.js";
import { chatAppNames } from "./words.js";

const GZIP_MAGIC = [0x1f, 0x8b];
/** Bytes looked at to tell an export from anything else: its header line is a few hundred. */
const SNIFF_BYTES = 64 * 1024;
/** The fewest compressed bytes tried for the header line when the first ones are damaged. */
const SHORTEST_HEAD = 256;

/**
 * For an error of `records` where the file stops being readable (a gzip stream cut or damaged
 * there), what a restore of it says: what it kept and where it stopped. Undefined for another error.
 */
export function breakNote(error: unknown, dryRun = false): string | undefined {
  const line = error instanceof AppError ? error.details["unreadableAfterLine"] : undefined;
  if (typeof line !== "number") return undefined;
  const { message } = error as AppError;
  const restored = dryRun ? "would be restored" : "is restored";
  if ((error as AppError).details["afterEnd"] === true)
    return `${message}: every record was read and ${restored}, but a value in one of them may differ from what was exported; use another copy of the export if you have one`;
  return `${message}: what could be read before line ${line + 1} ${restored}, nothing after it`;
}

export interface MnemoExportReader {
  header: ExportHeader;
  /** Bytes of the file (compressed, for a .gz), and how many were read: for progress. */
  totalBytes: number;
  bytesRead(): number;
  /**
   * The records after the header, each with its line number. A line that cannot be read is told to
   * `onBadLine` and skipped; a record with a damaged vector is told and given without its vectors
   * (a restore makes them again). `complete()` says, once they are all read, whether the `end` record came.
   */
  records(onBadLine: (problem: AppError) => void): AsyncGenerator<{ record: ExportRecord; line: number }>;
  complete(): boolean;
}

/** Whether the file at `path` is a mnemo export (plain or gzip): its first line is the format's header. */
export async function isMnemoExport(path: string): Promise<boolean> {
  let head: Buffer;
  try {
    head = await readHead(path);
  } catch {
    return false;
  }
  const end = head.indexOf(0x0a);
  try {
    const first = JSON.parse(withoutBom(head.subarray(0, end === -1 ? head.length : end).toString("utf8"))) as { format?: unknown };
    return first.format === EXPORT_FORMAT;
  } catch {
    return false;
  }
}

/** The first bytes of the file, decompressed when it is gzip (as much as the bytes read hold). */
async function readHead(path: string): Promise<Buffer> {
  const head = await readRaw(path, SNIFF_BYTES);
  if (!isGzip(head)) return head;
  // A prefix of the stream: decompress what it holds rather than fail for the missing rest, and
  // a shorter one where the bytes read are damaged (a small export's damage is in them): the
  // header line is its first few hundred bytes.
  for (let length = head.length; length >= SHORTEST_HEAD; length = Math.floor(length / 2)) {
    try {
      return gunzipSync(head.subarray(0, length), { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      // damaged within these bytes
    }
  }
  return Buffer.alloc(0);
}

async function readRaw(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function isGzip(bytes: Buffer): boolean {
  return bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
}

/** Opens an export: reads and checks its header (invalid input when it is not one this mnemo can read). */
export async function openMnemoExport(path: string): Promise<MnemoExportReader> {
  const info = await statPath(path);
  let tally = new ByteTally();
  let sawEnd = false;
  const lines = async function* (): AsyncGenerator<{ text: string; line: number }> {
    tally = new ByteTally();
    const gzip = isGzip(await readRaw(path, 2));
    const raw = createReadStream(path).pipe(tally.counter());
    let line = 0;
    try {
      // Chunk by chunk, so that reading waits for the restore (readline's iterator reads ahead
      // without bound: a 64 MB export held 430 MB of lines while the first batches were stored).
      for await (const text of splitLines(gzip ? gunzipped(path, raw, tally) : raw)) {
        line++;
        if (text.trim() !== "") yield { text: line === 1 ? withoutBom(text) : text, line };
      }
    } catch (error) {
      // Past the end record only gzip's checksum is left to fail: a byte changed, the stream still whole.
      const what = sawEnd
        ? "its gzip checksum does not match what it holds: a byte of it was changed after it was written"
        : `the file stops being readable after line ${line}`;
      throw new AppError("invalid_input", `${path}: ${what} (${(error as Error).message})`, {
        suggestion: "The file is damaged or was cut short; what came before is restored. Use another copy of the export if you have one.",
        details: { unreadableAfterLine: line, afterEnd: sawEnd },
        cause: error,
      });
    } finally {
      raw.destroy();
    }
  };
  const header = await readHeader(path, lines());
  return {
    header,
    totalBytes: info.size,
    bytesRead: () => tally.value,
    complete: () => sawEnd,
    async *records(onBadLine) {
      sawEnd = false;
      let first = true;
      for await (const { text, line } of lines()) {
        // Read on past the end record to the stream's end, where gzip checks its checksum.
        if (first || sawEnd) {
          first = false; // the header, read above
          continue;
        }
        const record = parseRecord(path, text, line);
        if (record instanceof AppError) {
          onBadLine(record);
          continue;
        }
        const damaged = damagedVector(record, header.embedder.dims);
        if (damaged) onBadLine(new AppError("invalid_input", `${path} line ${line} (${record.type}): ${damaged}`));
        if (record.type === "end") sawEnd = true;
        else yield { record: damaged ? withoutVectors(record) : record, line };
      }
    },
  };
}

/** Compressed bytes fed at once while looking for where a damaged gzip stream stops. */
const FINE_PIECE = 64;
/** How far before the point the first read failed at the damage may lie (what streams read ahead). */
const FINE_WINDOW = 1024 * 1024;

/**
 * The decompressed bytes of a gzip file, as read. zlib drops what it inflated in the call that hit
 * the damage (a whole small file's worth), so on an error the file is inflated again: once in pieces
 * of 64 bytes near where it failed, to find the piece with the damage, then byte by byte through
 * that piece, handing on what comes before the damage; then the error.
 */
async function* gunzipped(path: string, raw: Readable, tally: ByteTally): AsyncGenerator<Buffer> {
  const input = raw.pipe(createGunzip());
  let delivered = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      delivered += chunk.length;
      yield chunk;
    }
  } catch (error) {
    const search = { failedAt: Number.POSITIVE_INFINITY };
    for await (const _ of inflateUntilDamage(path, tally.value - FINE_WINDOW, FINE_PIECE, search));
    const exact = { failedAt: Number.POSITIVE_INFINITY };
    let produced = 0;
    for await (const inflated of inflateUntilDamage(path, search.failedAt, 1, exact)) {
      const from = Math.max(0, delivered - produced);
      produced += inflated.length;
      if (from < inflated.length) yield inflated.subarray(from);
    }
    throw error;
  } finally {
    input.destroy();
  }
}

/**
 * What `path` inflates to, fed whole up to `fineFrom` and in pieces of `piece` bytes after it,
 * until the damage; `found.failedAt` is then where the piece that met it starts.
 */
async function* inflateUntilDamage(path: string, fineFrom: number, piece: number, found: { failedAt: number }): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  const out: Buffer[] = [];
  gunzip.on("data", (chunk: Buffer) => out.push(chunk));
  // A write that meets the damage never calls back: the error ends the wait instead.
  let failed = false;
  const damage = new Promise<void>((resolve) => gunzip.once("error", () => resolve(void (failed = true))));
  let offset = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; ) {
        const next = chunk.subarray(at, offset + at < fineFrom ? Math.min(chunk.length, fineFrom - offset) : at + piece);
        await Promise.race([new Promise<void>((resolve) => gunzip.write(next, () => resolve())), damage]);
        yield* out.splice(0);
        if (failed) {
          found.failedAt = offset + at;
          return;
        }
        at += next.length;
      }
      offset += chunk.length;
    }
  } finally {
    gunzip.destroy();
  }
}

/** The stream's lines (UTF-8, without their `\n`), read no faster than they are taken. */
async function* splitLines(input: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  for await (const chunk of input) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, end));
      yield Buffer.concat(pending).toString("utf8");
      pending = [];
      start = end + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) yield Buffer.concat(pending).toString("utf8");
}

async function readHeader(path: string, lines: AsyncGenerator<{ text: string }>): Promise<ExportHeader> {
  const first = await lines.next();
  await lines.return(undefined);
  const notExport = (why: string) =>
    new AppError("invalid_input", `${path}: not a mnemo export (${why})`, {
      suggestion: `Pass a file written by \`mnemo export\`, or a chat export (${chatAppNames("or")}).`,
    });
  if (first.done) throw notExport("the file is empty");
  let value: unknown;
  try {
    value = JSON.parse(first.value.text);
  } catch {
    throw notExport("its first line is not JSON");
  }
  const version = (value as { version?: unknown }).version;
  if (typeof version === "number" && version > EXPORT_VERSION) {
    throw new AppError(
      "invalid_input",
      `${path}: written in version ${version} of mnemo's export format; this mnemo reads version ${EXPORT_VERSION}`,
      {
        suggestion: "Upgrade mnemo (npm install -g mnemo) and import it again.",
      },
    );
  }
  const checked = ExportHeader.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw notExport(`header ${formatPath(issue.path) || "line"}: ${issue.message}`);
  }
  return checked.data;
}

function parseRecord(path: string, text: string, line: number): ExportRecord | AppError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new AppError("invalid_input", `${path} line ${line}: not JSON (the file is damaged there); the line is skipped`);
  }
  const checked = ExportRecord.safeParse(value);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  const type = typeof (value as { type?: unknown })?.type === "string" ? ` (${(value as { type: string }).type})` : "";
  return new AppError(
    "invalid_input",
    `${path} line ${line}${type}: ${formatPath(issue.path) || "record"}: ${issue.message}; the line is skipped`,
  );
}

/** Base64 of `bytes` bytes, by how many "=" it ends with: its alphabet and padding exactly. */
const BASE64_PADDED = [/^[A-Za-z0-9+/]*$/, /^[A-Za-z0-9+/]*=$/, /^[A-Za-z0-9+/]*==$/];

/**
 * Where a record's vectors are not `dims` float32 values in base64, said for the user: a byte changed
 * in a damaged file can leave a line JSON of the right shape, and such a vector stopped the whole
 * restore where its text alone is enough to make it again.
 */
function damagedVector(record: ExportRecord, dims: number): string | undefined {
  const bytes = dims * 4;
  const whole = (vector: string) => vector.length === Math.ceil(bytes / 3) * 4 && BASE64_PADDED[(3 - (bytes % 3)) % 3]!.test(vector);
  if (record.type === "memory" && record.vector !== undefined && !whole(record.vector))
    return "vector: not the embedder's values (the file is damaged there); the memory is restored and embedded again";
  if (record.type === "conversation" && record.chunks?.some((chunk) => !whole(chunk.vector)))
    return "a chunk's vector is not the embedder's values (the file is damaged there); the conversation is restored and chunked and embedded again";
  return undefined;
}

/** The record without its vectors: a memory's, or a conversation's chunks (cut again from its messages). */
function withoutVectors(record: ExportRecord): ExportRecord {
  if (record.type === "memory") {
    const { vector: _, ...memory } = record;
    return memory;
  }
  if (record.type === "conversation") {
    const { chunks: _, ...conversation } = record;
    return conversation;
  }
  return record;
}
