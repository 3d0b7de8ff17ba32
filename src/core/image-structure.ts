/**
 * Whether a file that starts like an image also ends like one, read from its framing alone (no
 * pixels decoded): a header followed by a web page, or a header cut off after the dimensions,
 * passes image-size but is not an image.
 */
export type ImageFormat = "png" | "jpg" | "gif" | "webp";

const WHOLE: Record<ImageFormat, { name: string; ends: (data: Uint8Array) => boolean; end: string }> = {
  png: { name: "PNG", ends: pngChunksEndWithIend, end: "its chunks do not lead from the signature to an IEND chunk at the end of the file" },
  jpg: { name: "JPEG", ends: (data) => data.length >= 4 && data.at(-2) === 0xff && data.at(-1) === 0xd9, end: "it does not end with the end-of-image marker FF D9" },
  gif: { name: "GIF", ends: (data) => data.at(-1) === 0x3b, end: "it does not end with the GIF trailer 0x3B" },
  webp: { name: "WebP", ends: riffSizeMatches, end: "its RIFF size does not match the file's length" },
};

/** Why `data`, which starts like a `format` image, is not one whole; undefined when it is. */
export function structureProblem(data: Uint8Array, format: ImageFormat): string | undefined {
  const whole = WHOLE[format];
  if (whole.ends(data)) return undefined;
  return `is not a whole ${whole.name} image (cut short, or followed by other data): ${whole.end}`;
}

const PNG_SIGNATURE_BYTES = 8;
/** Length, type and CRC around each chunk's data. */
const PNG_CHUNK_FRAME_BYTES = 12;

/** Chunk by chunk from the signature: every chunk fits in the file, and the last is an empty IEND ending it. */
function pngChunksEndWithIend(data: Uint8Array): boolean {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = PNG_SIGNATURE_BYTES;
  while (offset + PNG_CHUNK_FRAME_BYTES <= data.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...data.subarray(offset + 4, offset + 8));
    if (!/^[A-Za-z]{4}$/.test(type)) return false;
    const next = offset + PNG_CHUNK_FRAME_BYTES + length;
    if (type === "IEND") return length === 0 && next === data.length;
    offset = next;
  }
  return false;
}

/** The RIFF header's size counts every byte after its first 8. */
function riffSizeMatches(data: Uint8Array): boolean {
  if (data.length < 12) return false;
  const size = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(4, true);
  return size + 8 === data.length;
}
