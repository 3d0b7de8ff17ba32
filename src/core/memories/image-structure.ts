/**
 * Whether a file that starts like an image is one whole, read from its framing alone (no pixels
 * decoded): a header followed by a web page, or a header cut off after the dimensions, passes
 * image-size but is not an image. Bytes after a whole image are let be: phones append motion-photo
 * videos and vendor trailers to JPEGs, and images are served with `nosniff` as their own type.
 */
import { crc32 } from "node:zlib";

export type ImageFormat = "png" | "jpg" | "gif" | "webp";

const WHOLE: Record<ImageFormat, { name: string; ends: (data: Uint8Array) => boolean; end: string }> = {
  png: { name: "PNG", ends: pngChunksEndWithIend, end: "its chunks do not lead from the signature to an IEND chunk" },
  jpg: { name: "JPEG", ends: jpegSegmentsEndWithEoi, end: "its segments do not lead from the start to the end-of-image marker FF D9" },
  gif: { name: "GIF", ends: (data) => data.at(-1) === 0x3b, end: "it does not end with the GIF trailer 0x3B" },
  webp: { name: "WebP", ends: riffFits, end: "it is shorter than its RIFF header says" },
};

/** Why `data`, which starts like a `format` image, is not one whole; undefined when it is. */
export function structureProblem(data: Uint8Array, format: ImageFormat): string | undefined {
  const whole = WHOLE[format];
  if (whole.ends(data)) return undefined;
  return `is not a whole ${whole.name} image (cut short, or not an image after its header): ${whole.end}`;
}

const PNG_SIGNATURE_BYTES = 8;
/** Length, type and CRC around each chunk's data. */
const PNG_CHUNK_FRAME_BYTES = 12;

/** Chunk by chunk from the signature: every chunk fits in the file, up to an empty IEND. */
function pngChunksEndWithIend(data: Uint8Array): boolean {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = PNG_SIGNATURE_BYTES;
  while (offset + PNG_CHUNK_FRAME_BYTES <= data.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...data.subarray(offset + 4, offset + 8));
    if (!/^[A-Za-z]{4}$/.test(type)) return false;
    const next = offset + PNG_CHUNK_FRAME_BYTES + length;
    if (type === "IEND") return length === 0 && next <= data.length;
    offset = next;
  }
  return false;
}

/**
 * The first PNG chunk whose CRC does not match its type and data: a byte changed on disk since the
 * image was stored. PNG is the one format mnemo keeps that checks its own bytes; a changed byte
 * inside a JPEG's, GIF's or WebP's coded data cannot be told from the framing.
 */
export function pngChecksumProblem(data: Uint8Array): string | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let offset = PNG_SIGNATURE_BYTES; offset + PNG_CHUNK_FRAME_BYTES <= data.length; ) {
    const length = view.getUint32(offset);
    const end = offset + 8 + length;
    if (end + 4 > data.length) return undefined; // the framing check tells a cut file
    if (crc32(data.subarray(offset + 4, end)) !== view.getUint32(end))
      return `holds bytes changed since it was stored (the CRC of its ${String.fromCharCode(...data.subarray(offset + 4, offset + 8))} chunk does not match)`;
    offset = end + 4;
  }
  return undefined;
}

/** The RIFF header's size counts every byte after its first 8: that many must be there. */
function riffFits(data: Uint8Array): boolean {
  if (data.length < 12) return false;
  const size = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(4, true);
  return size + 8 <= data.length;
}

const JPEG_EOI = 0xd9;
const JPEG_SOS = 0xda;

/**
 * Marker by marker from SOI: each segment's length keeps it in the file (an EXIF thumbnail's own
 * FF D9 lies inside one), and after a start of scan the coded data runs to the next marker (FF
 * followed by 00 or a restart marker D0–D7 is data), until FF D9.
 */
function jpegSegmentsEndWithEoi(data: Uint8Array): boolean {
  let offset = 2;
  while (offset + 4 <= data.length) {
    if (data[offset] !== 0xff) return false;
    const marker = data[offset + 1]!;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === JPEG_EOI) return true;
    const next = offset + 2 + ((data[offset + 2]! << 8) | data[offset + 3]!);
    offset = marker === JPEG_SOS ? endOfScan(data, next) : next;
  }
  return offset + 2 <= data.length && data[offset] === 0xff && data[offset + 1] === JPEG_EOI;
}

/** Where the coded data that starts at `from` ends: at the next marker that is not data. */
function endOfScan(data: Uint8Array, from: number): number {
  for (let i = from; i + 1 < data.length; i++) {
    if (data[i] !== 0xff) continue;
    const next = data[i + 1]!;
    if (next !== 0 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) return i;
  }
  return data.length;
}
