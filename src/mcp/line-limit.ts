import { Transform, type TransformCallback } from "node:stream";

/**
 * The longest message `mnemo mcp` reads on stdin, as the SDK's stdio transport has it (10 MB). The
 * largest a tool takes is recall's conversationHistory: 100 turns of 8,000 characters, under 5 MB
 * even with every character escaped.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The bytes of an over-long line kept to find its id: the SDK's client writes `"id"` last, others first. */
const KEPT = 256;

export interface OverLongLine {
  bytes: number;
  /** The request's id, when the start or end of the line shows it. */
  id: string | number | undefined;
}

/**
 * Passes stdin on to the SDK's transport a whole line at a time, and drops a line over `max` bytes,
 * telling `onOverLong`: the SDK's transport met one by closing itself, stdin was left paused, and
 * the process ended (exit 13) with the store open and every later call unanswered.
 */
export class LineLimit extends Transform {
  private chunks: Buffer[] = [];
  private size = 0;
  /** While dropping an over-long line: its first and last bytes, and how many it had. */
  private dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(
    private readonly onOverLong: (line: OverLongLine) => void,
    private readonly max = MAX_MESSAGE_BYTES,
    /** Whether the caller answered a whole line itself, which is then not passed on. */
    private readonly answered: (line: Buffer) => boolean = () => false,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let rest = chunk;
    for (let end = rest.indexOf(10); end !== -1; end = rest.indexOf(10)) {
      this.addToLine(rest.subarray(0, end + 1));
      this.endLine();
      rest = rest.subarray(end + 1);
    }
    if (rest.length > 0) this.addToLine(rest);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.dropping || this.size > 0) this.endLine();
    done();
  }

  private addToLine(part: Buffer): void {
    if (this.dropping) return this.skip(part);
    this.chunks.push(part);
    this.size += part.length;
    if (this.size <= this.max) return;
    const line = Buffer.concat(this.chunks);
    this.chunks = [];
    this.size = 0;
    this.dropping = { head: line.subarray(0, KEPT), tail: Buffer.alloc(0), bytes: 0 };
    this.skip(line);
  }

  private skip(part: Buffer): void {
    const dropping = this.dropping!;
    dropping.bytes += part.length;
    dropping.tail = Buffer.concat([dropping.tail, part.subarray(-KEPT)]).subarray(-KEPT);
  }

  private endLine(): void {
    if (this.dropping) {
      const { head, tail, bytes } = this.dropping;
      this.dropping = undefined;
      this.onOverLong({ bytes, id: idOf(head.toString("utf8"), tail.toString("utf8")) });
      return;
    }
    if (this.size === 0) return;
    const line = Buffer.concat(this.chunks);
    this.chunks = [];
    this.size = 0;
    if (!this.answered(line)) this.push(line);
  }
}

const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,100}")`;

/** The id of a JSON-RPC request from its first and last bytes: `{"jsonrpc":"2.0","id":4,…` or `…,"id":4}`. */
function idOf(head: string, tail: string): string | number | undefined {
  const found =
    new RegExp(`^\\s*\\{(?:\\s*"(?:jsonrpc|method)"\\s*:\\s*"[^"]*"\\s*,)*\\s*${ID}`).exec(head) ??
    new RegExp(`,\\s*${ID}\\s*\\}\\s*$`).exec(tail);
  try {
    return found ? (JSON.parse(found[1]!) as string | number) : undefined;
  } catch {
    return undefined; // a string with an escape JSON does not have
  }
}
