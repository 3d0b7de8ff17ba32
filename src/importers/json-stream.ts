// Streams the records of a JSON file one at a time with stream-json (parser + streamArray /
// streamValues): memory stays bounded by the largest single record, whatever the file size.
import { pipeline, type Duplex } from "node:stream";
import pick from "stream-json/filters/pick.js";
import parser from "stream-json/parser.js";
import streamArray from "stream-json/streamers/stream-array.js";
import streamValues from "stream-json/streamers/stream-values.js";
import { readFailure } from "./json-error.js";
import { jsonLines } from "./json-lines.js";
import type { ByteSource, ByteTally } from "./source.js";
import type { Layout, SkippedRecord } from "./types.js";

/** Records assembled ahead of the consumer; kept small because one record can be megabytes. */
const RECORD_BUFFER = 2;
/** stream-chain passes these on to the Duplex it creates (its typings list only assembler options). */
type RecordStreamOptions = NonNullable<Parameters<typeof streamArray.asStream>[0]> & { highWaterMark: number };
const RECORD_STREAM_OPTIONS: RecordStreamOptions = { highWaterMark: RECORD_BUFFER };

/** The key under which a wrapped file holds its records. */
export const WRAPPER_KEY = "conversations";

/**
 * Yields the records of `source` as laid out (see Layout). Records yielded before a parse
 * failure stay yielded; the failure is thrown as an AppError naming the file and position. A bad
 * NDJSON line goes to `onSkipped` instead when given, and the next line is read.
 */
export function jsonRecords(source: ByteSource, layout: Layout, tally: ByteTally, onSkipped?: SkippedRecord): AsyncGenerator<unknown> {
  return layout === "lines" ? jsonLines(source, tally, onSkipped) : streamedRecords(source, layout, tally);
}

async function* streamedRecords(source: ByteSource, layout: "array" | "values" | "wrapped", tally: ByteTally): AsyncGenerator<unknown> {
  const jsonStreaming = layout === "values";
  let records: Duplex | undefined;
  try {
    const input = await source.open();
    records = layout === "values" ? streamValues.asStream(RECORD_STREAM_OPTIONS) : streamArray.asStream(RECORD_STREAM_OPTIONS);
    // Packed values only: the assembler needs whole keys/strings/numbers, not their chunks.
    const tokens = parser.asStream({ jsonStreaming, packValues: true, streamValues: false });
    if (layout === "wrapped") {
      const inner = pick.asStream({ filter: WRAPPER_KEY, once: true });
      pipeline(input, tally.counter(), tokens, inner, records, () => undefined); // errors surface through `records`
    } else {
      pipeline(input, tally.counter(), tokens, records, () => undefined);
    }
    for await (const item of records) yield (item as { value: unknown }).value;
  } catch (error) {
    throw await readFailure(error, source, jsonStreaming);
  } finally {
    records?.destroy();
  }
}
