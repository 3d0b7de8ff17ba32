import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, Utf8StreamDecoder } from "../../src/text/utf8.js";

const ILL_FORMED = [[0xff], [0xc3], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf0, 0x9f, 0xa6]];

describe("decodeUtf8", () => {
  it("decodes well-formed UTF-8 exactly as TextDecoder does, a BOM and U+FFFD included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        expect(decodeUtf8(Buffer.from(text))).toBe(text);
      }),
    );
    expect(decodeUtf8(Buffer.from("\ufeff{} \ufffd"))).toBe("\ufeff{} \ufffd");
  });

  it("turns every byte of an ill-formed sequence into a lone surrogate, which no well-formed text holds", () => {
    for (const bytes of ILL_FORMED) {
      const text = decodeUtf8(Buffer.from([0x61, ...bytes, 0x62]));
      expect(text.isWellFormed(), JSON.stringify(bytes)).toBe(false);
      expect(text.startsWith("a") && text.endsWith("b")).toBe(true);
    }
    expect(decodeUtf8(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe("caf\udce9");
  });

  it("streams: a sequence cut between chunks is joined, one cut off at the end is ill-formed", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.array(fc.nat(), { maxLength: 5 }), (text, cuts) => {
        const bytes = Buffer.from(text);
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const decoder = new Utf8StreamDecoder();
        let out = "";
        let from = 0;
        for (const point of [...points, bytes.length]) {
          out += decoder.write(bytes.subarray(from, point));
          from = point;
        }
        expect(out + decoder.end()).toBe(text);
      }),
    );
    const decoder = new Utf8StreamDecoder();
    expect(decoder.write(Buffer.from([0x61, 0xe2, 0x82]))).toBe("a");
    expect(decoder.end().isWellFormed()).toBe(false);
  });
});
