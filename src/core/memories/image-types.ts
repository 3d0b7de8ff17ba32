import path from "node:path";
import { imageSize } from "image-size";
import { pngChecksumProblem, structureProblem } from "./image-structure.js";

/** The image formats mnemo keeps, by the extension image-size names them with. */
const MIME = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" } as const;
type ImageExtension = keyof typeof MIME;

export interface ImageType {
  ext: ImageExtension;
  mime: string;
}

/**
 * The format of an image header mnemo keeps, or undefined: image-size reads the header through to
 * the dimensions, so a file that only starts like a PNG (its 8-byte signature) is not taken for one.
 */
function imageType(data: Uint8Array): ImageType | undefined {
  let found: { type?: string | undefined; width: number; height: number };
  try {
    found = imageSize(data);
  } catch {
    return undefined;
  }
  const ext = found.type;
  if (!ext || !(ext in MIME) || found.width < 1 || found.height < 1) return undefined;
  return { ext: ext as ImageExtension, mime: MIME[ext as ImageExtension] };
}

/** An image mnemo keeps, or why the file is not one (a problem phrased to follow the field's name). */
export type ImageCheck = { type: ImageType; problem?: undefined } | { type?: undefined; problem: string };

/** The header read through to the dimensions, then the file's framing checked to its end. */
export function checkImage(data: Uint8Array): ImageCheck {
  const type = imageType(data);
  if (!type) return { problem: "is not a PNG, JPEG, WebP or GIF image" };
  const problem = structureProblem(data, type.ext);
  return problem === undefined ? { type } : { problem };
}

/** Why stored bytes are no longer the image that was stored (cut short, overwritten, a PNG's checksum off); undefined when they are whole. */
export function storedImageProblem(data: Uint8Array): string | undefined {
  const { type, problem } = checkImage(data);
  return problem ?? (type.ext === "png" ? pngChecksumProblem(data) : undefined);
}

export function mimeOf(file: string): string {
  return MIME[path.extname(file).slice(1) as ImageExtension] ?? "application/octet-stream";
}
