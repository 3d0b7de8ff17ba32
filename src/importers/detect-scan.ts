// The tokens detection needs from a whole file, for one whose first record does not show its format
// within the prefix detect.ts reads (a first conversation with a field of megabytes before `mapping`).
// The file is streamed, never held: only the tokens near the records' level are kept, and each
// string at most its first STRING_CHARS characters.
import parser from "stream-json/parser.js";
import { readFailure } from "./json-error.js";
import type { ByteSource } from "./source.js";

export interface Token {
  name: string;
  value?: unknown;
}

/** How much of a string is kept: detectors look at a string's start (a header, a title's verb). */
const STRING_CHARS = 4 * 1024;
/**
 * How many tokens are kept at most: a record of that many fields and values is read enough to tell
 * its format (a ChatGPT conversation's `mapping` of 60,000 messages is past its format's keys), and a
 * large file of no format (an object of a million keys) is not held whole.
 */
const MAX_TOKENS = 200_000;

/** Where a top-level object may hold its records (detect.ts's WRAPPERS), and when enough is read. */
export interface ScanPlan {
  wrappers: readonly (readonly string[])[];
  /**
   * Told the tokens so far each time a record ends (`ended`), and when one of the first fields of a
   * file's one object has been read (a Chatbox export whose settings hold an image inline: its
   * sessions' keys tell the format long before the object ends); true stops the scan.
   */
  enough(tokens: Token[], ended: boolean): boolean;
}

/** The fields of a file's one object after which the format is looked for: the keys that tell it come first. */
const FIELDS_LOOKED_AFTER = 20;

/**
 * The file's tokens at the depths detect.ts looks at: a record's fields and the strings in them,
 * for records that are the elements of a top-level list, the file's top-level object itself, or the
 * elements of a list at a wrapper path; `failed` when the JSON breaks off or is damaged, with the
 * tokens before that.
 */
export async function scanTokens(source: ByteSource, plan: ScanPlan): Promise<{ tokens: Token[]; failed: boolean }> {
  const input = await source.open();
  const tokenizer = parser.asStream({
    jsonStreaming: true,
    packKeys: true,
    packNumbers: true,
    packStrings: false,
    streamKeys: false,
    streamNumbers: false,
  });
  const scope = new Scope(plan.wrappers);
  const tokens: Token[] = [];
  let string: string | undefined; // the kept start of the string being read
  let first = true;
  input.on("data", (chunk: Buffer) => {
    const bytes = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
    first = false;
    if (!tokenizer.write(bytes)) input.pause();
  });
  tokenizer.on("drain", () => input.resume());
  input.on("end", () => tokenizer.end());
  input.on("error", (error) => tokenizer.destroy(error));
  try {
    for await (const token of tokenizer as AsyncIterable<Token>) {
      if (token.name === "startString") string = "";
      else if (token.name === "stringChunk")
        string = string !== undefined && string.length < STRING_CHARS ? string + String(token.value) : string;
      else if (token.name === "endString") {
        if (scope.keeps()) tokens.push({ name: "stringValue", value: (string ?? "").slice(0, STRING_CHARS) });
        string = undefined;
      } else {
        const kept = scope.keeps(token);
        if (kept) tokens.push(token);
        const moved = scope.move(token);
        if ((moved !== undefined && plan.enough(tokens, moved === "record")) || tokens.length >= MAX_TOKENS)
          return { tokens, failed: false };
      }
    }
    return { tokens, failed: false };
  } catch (error) {
    if (input.errored) throw await readFailure(error, source, true); // e.g. a damaged zip entry
    return { tokens, failed: true };
  } finally {
    input.destroy();
    tokenizer.destroy();
  }
}

/**
 * Which tokens are kept, by where they are: inside at most RECORD_FIELDS levels of a record (its
 * fields, the values and elements of those), records being the top-level list's elements, the
 * top-level object, or the elements of a list at a wrapper path.
 */
class Scope {
  /** For each open container: whether it is a list, and the last key read in it. */
  private readonly open: { list: boolean; key?: string }[] = [];
  private topLevelList = false;
  /** Keys read at the top level, of all the file's values: FIELDS_LOOKED_AFTER bounds the looks in all. */
  private topLevelKeys = 0;

  constructor(private readonly wrappers: readonly (readonly string[])[]) {}

  /** Whether a token at the current depth is kept (a string's value: no token given). */
  keeps(token?: Token): boolean {
    const closes = token?.name === "endObject" || token?.name === "endArray";
    const depth = this.open.length - (closes ? 1 : 0); // a closing token belongs where its opening one stood
    return depth <= this.recordStart() + RECORD_FIELDS;
  }

  /**
   * Follows the token: "record" when it ends a record, "field" when it starts one of the file's first
   * top-level fields after its first (the field before it is read).
   */
  move(token: Token): "record" | "field" | undefined {
    if (token.name === "keyValue" && this.open.length > 0) {
      this.open.at(-1)!.key = String(token.value);
      if (this.open.length !== 1 || this.topLevelList) return undefined;
      this.topLevelKeys += 1;
      return this.topLevelKeys > 1 && this.topLevelKeys <= FIELDS_LOOKED_AFTER + 1 ? "field" : undefined;
    }
    if (token.name === "startObject" || token.name === "startArray") {
      if (this.open.length === 0) this.topLevelList = token.name === "startArray";
      this.open.push({ list: token.name === "startArray" });
      return undefined;
    }
    if (token.name === "endObject" || token.name === "endArray") {
      const ended = this.open.length - 1 === this.recordStart() || this.open.length === 1;
      this.open.pop();
      return ended ? "record" : undefined;
    }
    return undefined;
  }

  /** The depth at which the records being read open: 1 in a top-level list, past the wrapper path when on one, else 0. */
  private recordStart(): number {
    if (this.topLevelList) return 1;
    for (const path of this.wrappers) if (this.onPath(path)) return path.length + 1;
    return 0;
  }

  private onPath(path: readonly string[]): boolean {
    if (this.open.length <= path.length || !this.open[path.length]!.list) return false;
    return path.every((key, depth) => !this.open[depth]!.list && this.open[depth]!.key === key);
  }
}

/** Levels below a record's opening that are kept: its fields (1), the strings of a field's list (2). */
const RECORD_FIELDS = 2;
