// The records of a Takeout My Activity page (HTML): the bytes are cut where each record's
// `<div class="outer-cell…">` begins and each piece is parsed on its own (cell.ts), so memory holds
// one record whatever the page's size, and a damaged record costs only itself.
import { AppError } from "../../shared/errors.js";
import { readFailure } from "../json-error.js";
import type { RawRecord } from "../json-records.js";
import { repairRecord } from "../repair.js";
import { byteAt, type ByteSource, type ByteTally } from "../source.js";
import { pageRecord } from "./cell.js";

const CELL_CLASS = Buffer.from("outer-cell");
/** A record larger than this is no record of a page (a day's longest answers are well under 1 MB). */
const MAX_CELL_BYTES = 32 * 1024 * 1024;

/** Whether a file's first bytes are those of a My Activity page: an HTML page with its record cells. */
export function isActivityPage(prefix: Buffer): boolean {
  return cellStart(prefix, 0) !== -1 && /class\s*=\s*["']?[^"'<>]*\b(?:header-cell|content-cell)\b/.test(prefix.toString("latin1"));
}

/** The page's records, in the page's order (newest first, as Takeout writes them). */
export async function* activityPageRecords(source: ByteSource, tally: ByteTally): AsyncGenerator<RawRecord> {
  let pending = Buffer.alloc(0);
  let offset = 0; // the file's byte at pending[0]
  let index = 0;
  let inCell = false;
  const input = await source.open();
  try {
    for await (const chunk of input) {
      tally.add((chunk as Buffer).length);
      // Before the first record, the page's head: a record may start at its first byte.
      const minOpen = () => (inCell ? 1 : 0);
      const scanFrom = Math.max(minOpen(), pending.length - CELL_CLASS.length);
      pending = Buffer.concat([pending, chunk as Buffer]);
      for (let start = cellStart(pending, minOpen(), scanFrom); start !== -1; start = cellStart(pending, minOpen())) {
        if (inCell) yield recordOf(pending.subarray(0, start), index++, offset);
        inCell = true;
        pending = pending.subarray(start);
        offset += start;
      }
      if (pending.length > MAX_CELL_BYTES) throw tooLarge(source, offset);
    }
  } catch (error) {
    throw error instanceof AppError ? error : await readFailure(error, source, false);
  } finally {
    input.destroy();
  }
  if (inCell) yield recordOf(pending, index, offset);
}

/** The first `limit` complete records within a page's first bytes (what detection sees of it). */
export function recordsIn(prefix: Buffer, complete: boolean, limit: number): unknown[] {
  const records: unknown[] = [];
  let start = cellStart(prefix, 0);
  while (start !== -1 && records.length < limit) {
    const next = cellStart(prefix, start + 1);
    if (next === -1 && !complete) break;
    records.push(recordOf(prefix.subarray(start, next === -1 ? undefined : next), 0, 0).value);
    start = next;
  }
  return records;
}

function recordOf(bytes: Buffer, index: number, byte: number): RawRecord {
  const text = bytes.toString("utf8");
  const { value, repair } = repairRecord(readCell(text), bytes, text);
  return { value, index, byte, repair };
}

/** A cell no page holds (elements nested past the stack's depth) is no record: its converter reports it, alone. */
function readCell(html: string): unknown {
  try {
    return pageRecord(html);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * Where the next record's `<div` begins, at `minOpen` or later, looking for its class from `from` on:
 * the tag whose class names outer-cell. The words "outer-cell" in an answer's text are not one, since
 * a `<` in text is written `&lt;`.
 */
function cellStart(bytes: Buffer, minOpen: number, from = minOpen): number {
  for (let at = bytes.indexOf(CELL_CLASS, from); at !== -1; at = bytes.indexOf(CELL_CLASS, at + 1)) {
    const open = bytes.lastIndexOf("<", at);
    if (open >= minOpen && CELL_TAG.test(bytes.toString("latin1", open, at))) return open;
  }
  return -1;
}

/** A `<div` tag up to its class attribute's value, where "outer-cell" is met. */
const CELL_TAG = /^<div\s[^<>]*\bclass\s*=\s*["']?[^"'<>]*$/i;

function tooLarge(source: ByteSource, byte: number): AppError {
  return new AppError(
    "invalid_input",
    `${source.label}: a record at ${byteAt(byte, source.encoding)} runs past ${MAX_CELL_BYTES / 1024 ** 2} MB`,
    {
      suggestion: "This is no My Activity page as Takeout writes it: pass the page as downloaded, or export My Activity as JSON.",
    },
  );
}
