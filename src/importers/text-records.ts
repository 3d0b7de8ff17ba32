// A file of a text format (a Markdown transcript) is one record: its whole text. Bytes that are not
// UTF-8 are repaired to U+FFFD and said so, as in a JSON record (repair.ts); the byte-order mark
// goes, and Windows line ends become \n, so a converter sees one kind of text.
import { isUtf8 } from "node:buffer";
import { AppError } from "../shared/errors.js";
import { withoutBom } from "../text/utf8.js";
import { readFailure } from "./json-error.js";
import type { RawRecord } from "./json-records.js";
import { cutText } from "../text/cut-text.js";
import type { ByteSource, ByteTally } from "./source.js";

/**
 * The largest text file read: a transcript is one conversation, and an upload holds at most
 * 100,000 tokens (~400 KB of text), so a file this large is no transcript a person saved.
 */
export const MAX_TEXT_BYTES = 64 * 1024 * 1024;

/** The file's text as its one record. */
export async function* textRecords(source: ByteSource, tally: ByteTally): AsyncGenerator<RawRecord> {
  if (source.size > MAX_TEXT_BYTES) {
    throw new AppError(
      "invalid_input",
      `${source.label}: a text file of ${source.size} bytes, over the ${MAX_TEXT_BYTES / 1024 ** 2} MB a transcript is read to`,
      {
        suggestion: "A transcript is one conversation: split the file into one file per conversation.",
      },
    );
  }
  const bytes = await readAll(source, tally);
  const text = normalised(bytes.toString("utf8"));
  const bad = isUtf8(bytes) ? 0 : [...text.matchAll(/\uFFFD/g)].length;
  const repair = bad > 0 ? { fields: ["(the text)"], count: bad, text: cutText(firstRepaired(text), 80) } : undefined;
  yield { value: text, index: 0, byte: 0, repair };
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
