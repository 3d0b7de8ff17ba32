import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineLimit, type OverLongLine } from "../../src/mcp/line-limit.js";

/** What LineLimit passes on, and the over-long lines it told of, for `chunks` as they arrive. */
async function through(chunks: string[], max: number): Promise<{ text: string; overLong: OverLongLine[] }> {
  const overLong: OverLongLine[] = [];
  const limit = new LineLimit((line) => overLong.push(line), max);
  let text = "";
  for await (const part of Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(limit)) text += String(part);
  return { text, overLong };
}

describe("LineLimit", () => {
  it("passes whole lines on however they are cut into chunks, and drops one over the limit, telling its size and id", async () => {
    const long = `{"jsonrpc":"2.0","method":"tools/call","params":{"text":"${"x".repeat(100)}"},"id":7}\n`;
    const { text, overLong } = await through(
      ['{"id":1}\n{"i', 'd":2}', "\n", long.slice(0, 50), long.slice(50), '{"id":3}\r\n', '{"id":4}'],
      60,
    );
    expect(text).toBe('{"id":1}\n{"id":2}\n{"id":3}\r\n{"id":4}');
    expect(overLong).toEqual([{ bytes: long.length, id: 7 }]);
  });

  it("finds the id first or last, as a string too, and none where it is nested or not there", async () => {
    const pad = "y".repeat(100);
    const cases: [string, string | number | undefined][] = [
      [`{"jsonrpc":"2.0","id":"a\\"b","method":"x","params":{"p":"${pad}"}}`, 'a"b'],
      [`{"method":"x","params":{"p":"${pad}","id":5}}`, undefined],
      [`{"method":"x","params":{"p":"${pad}"}}`, undefined],
      [`${pad}${pad}`, undefined],
    ];
    for (const [line, id] of cases)
      expect((await through([`${line}\n`], 60)).overLong, line.slice(0, 40)).toEqual([{ bytes: line.length + 1, id }]);
  });
});
