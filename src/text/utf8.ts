import { isUtf8 } from "node:buffer";

/**
 * UTF-8 that keeps its faults visible. A decoder that replaces bad bytes with U+FFFD would store
 * them as text nobody wrote; one that throws cannot say which field held them. Here each byte of an
 * ill-formed sequence becomes the lone surrogate U+DC80–U+DCFF (as Python's "surrogateescape"
 * does), which no well-formed text holds, so the one check for lone surrogates
 * (schemas/parse.ts) refuses it and names the field it sits in.
 */
/** Text without the byte order mark an editor on Windows may put before a file's first character. */
export function withoutBom(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `bytes` as text, each byte of an ill-formed sequence as a lone surrogate (see above). */
export function decodeUtf8(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return strict.decode(bytes);
  let out = "";
  let runStart = 0;
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length > 0) {
      at += length;
      continue;
    }
    out += strict.decode(bytes.subarray(runStart, at)) + escaped(bytes[at]!);
    runStart = ++at;
  }
  return out + strict.decode(bytes.subarray(runStart));
}

/** The same for a stream of chunks: a sequence cut between two chunks is joined, not escaped. */
export class Utf8StreamDecoder {
  private pending = new Uint8Array(0);

  write(chunk: Uint8Array): string {
    const bytes = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const cut = completeUpTo(bytes);
    this.pending = bytes.slice(cut);
    return decodeUtf8(bytes.subarray(0, cut));
  }

  /** What is left: a sequence the stream ended in the middle of is ill-formed. */
  end(): string {
    const rest = decodeUtf8(this.pending);
    this.pending = new Uint8Array(0);
    return rest;
  }
}

const escaped = (byte: number) => String.fromCharCode(0xdc00 + byte);

/** Where the last sequence that might still be completed by more bytes starts (the end when none). */
function completeUpTo(bytes: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!;
    if (byte < 0x80) return bytes.length;
    if (byte >= 0xc0) return back < leadLength(byte) ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function leadLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The length of the well-formed sequence at `at` (Unicode's table 3-7), or 0 when it is ill-formed. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  const length = leadLength(lead);
  if (length === 0 || at + length > bytes.length) return 0;
  const second = bytes[at + 1]!;
  const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  if (second < low || second > high) return 0;
  for (let i = 2; i < length; i++) {
    const next = bytes[at + i]!;
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}
