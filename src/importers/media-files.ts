// Files people pass by mistake that hold no text at all: a screenshot of a chat, a chat printed to PDF.
// Said as what they are: read as text, a PNG was "text in an encoding mnemo does not read (UTF-32…)".
import { AppError } from "../shared/errors.js";
import type { ByteSource } from "./source.js";

/** Image formats image-size names, as a user knows them. */
const IMAGE_NAMES: Record<string, string> = {
  png: "PNG",
  jpg: "JPEG",
  gif: "GIF",
  webp: "WebP",
  bmp: "BMP",
  tiff: "TIFF",
  heif: "HEIC",
  ico: "icon",
  avif: "AVIF",
  psd: "Photoshop",
};

/** A file that is an image or a PDF: said so, with what to do instead. */
export async function assertNotMedia(source: ByteSource, prefix: Buffer): Promise<void> {
  const kind = prefix.subarray(0, 5).toString("latin1") === "%PDF-" ? "a PDF document" : await imageKind(prefix);
  if (kind === undefined) return;
  throw new AppError("invalid_input", `${source.label}: this is ${kind}, not a chat export`, {
    suggestion:
      "Pass the file the app's export gives (`mnemo import --help` lists each app's and how to get it); to keep an image as a memory, use `mnemo remember --image <file>`.",
  });
}

async function imageKind(prefix: Buffer): Promise<string | undefined> {
  if (prefix.length < 12 || !isBinary(prefix)) return undefined; // text, as nearly every file is: image-size not loaded
  const { imageSize } = await import("image-size");
  try {
    const { type } = imageSize(prefix);
    const name = type === undefined ? undefined : IMAGE_NAMES[type];
    return name === undefined ? undefined : `an image (${name})`;
  } catch {
    return undefined; // a header image-size does not know, or cut short: not an image it can tell
  }
}

/** Bytes that are no UTF-8 text: an image's, an encrypted page's. */
export function isBinary(prefix: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(prefix.subarray(0, 4096), { stream: true });
    return prefix.subarray(0, 4096).includes(0);
  } catch {
    return true;
  }
}
