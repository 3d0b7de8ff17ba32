import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseInput } from "../../schemas/parse.js";
import { ImageMemoryRequest, MAX_IMAGE_BYTES, type StoreMemoryResponse } from "../../schemas/memories.js";
import type { MemoryRow } from "../../store/rows.js";
import { sqlAnd, sqlString } from "../../store/sql.js";
import { diskFullOr } from "../../store/write-lock.js";
import type { CoreContext } from "../context.js";
import { AppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { checkImage, mimeOf } from "./image-types.js";
import { insertMemoryRows } from "./memories.js";

export const IMAGE_URL_LIFETIME_MS = 4 * 60 * 60 * 1000;

/**
 * An image memory: the file goes into the data dir first (so no row ever points at a missing
 * file), then the row, whose text is the description: the one given, else a caption from an
 * image-to-text model when one is available, else words from the file name.
 */
export async function storeImageMemory(ctx: CoreContext, userId: string, input: ImageMemoryRequest): Promise<StoreMemoryResponse> {
  const request = parseInput(ImageMemoryRequest, input);
  // A data URL (what a browser's FileReader gives a plugin) carries the same base64 after its header.
  const data = Buffer.from(request.data.replace(/^data:image\/[\w.+-]+;base64,/, ""), "base64");
  if (data.length > MAX_IMAGE_BYTES) {
    throw new AppError("payload_too_large", `data: the image is ${(data.length / 1048576).toFixed(1)} MB; the limit is 10 MB`, { details: { field: "data" } });
  }
  const { type, problem } = checkImage(data);
  if (!type) throw AppError.invalid("data", problem);
  const description = request.description ?? (await ctx.caption(data)) ?? describeFromName(request.filename);
  const id = newId("mem");
  const file = path.join(userId, `${id}.${type.ext}`);
  const target = path.join(ctx.config.paths.images, file);
  writeImageFile(target, data);
  try {
    const [vector] = await ctx.embedder.embedDocuments([description]);
    const now = ctx.now().toISOString();
    const row: MemoryRow = {
      id,
      userId,
      bucketId: request.bucketId ?? 1,
      text: description,
      contentType: "image",
      imageFile: file,
      imageDescription: description,
      source: request.source ?? null,
      version: 1,
      createdAt: now,
      updatedAt: now,
      vector: vector!,
    };
    await insertMemoryRows(ctx, userId, [row]);
  } catch (error) {
    fs.rmSync(target, { force: true });
    throw error;
  }
  return { done: "ok", memoryId: id };
}

/** Written whole or not at all: a full disk leaves no partial file behind. */
function writeImageFile(target: string, data: Buffer): void {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${target}.tmp`, data, { mode: 0o600 });
    fs.renameSync(`${target}.tmp`, target);
  } catch (error) {
    fs.rmSync(`${target}.tmp`, { force: true });
    throw diskFullOr(error, path.dirname(target));
  }
}

/** "beach-sunset_2024.jpg" → "Image: beach sunset 2024". */
export function describeFromName(filename: string | undefined): string {
  const words = path
    .basename(filename ?? "", path.extname(filename ?? ""))
    .replace(/[-_.]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return words ? `Image: ${words}` : "Image";
}

export function removeImageFiles(ctx: CoreContext, files: (string | null)[]): void {
  for (const file of files) if (file) fs.rmSync(path.join(ctx.config.paths.images, file), { force: true });
}

/** A user's image files live in a folder of their own (`images/<user id>/`). */
export function removeUserImages(ctx: CoreContext, userId: string): void {
  fs.rmSync(path.join(ctx.config.paths.images, userId), { recursive: true, force: true });
}

const SECRET_BYTES = 32;

/**
 * The secret image URLs are signed with, created once per data dir (0600). One that is missing,
 * or too short to keep signatures from being guessed (an emptied file), is made anew: the URLs
 * signed with the old one stop working, as they would within 4 hours anyway.
 */
export function imageSecret(file: string): Buffer {
  const existing = readSecret(file);
  if (existing && existing.length >= SECRET_BYTES) return existing;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(SECRET_BYTES);
  try {
    fs.writeFileSync(file, secret.toString("base64url"), { mode: 0o600, flag: existing ? "w" : "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return imageSecret(file); // another process made it first
    throw error;
  }
  return secret;
}

/** The secret on file; undefined when there is no file. */
function readSecret(file: string): Buffer | undefined {
  try {
    return Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64url");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function signature(secret: Buffer, memoryId: string, expires: number): string {
  return createHmac("sha256", secret).update(`${memoryId}.${expires}`).digest("base64url");
}

/** `<base>/images/<memoryId>?exp=…&sig=…`, valid for 4 hours. */
export function signedImageUrl(secret: Buffer, baseUrl: string, memoryId: string, now = Date.now()): string {
  const expires = Math.floor((now + IMAGE_URL_LIFETIME_MS) / 1000);
  return `${baseUrl.replace(/\/$/, "")}/images/${encodeURIComponent(memoryId)}?exp=${expires}&sig=${signature(secret, memoryId, expires)}`;
}

/** Throws `forbidden` for an expired, altered or missing signature. */
export function verifyImageSignature(secret: Buffer, memoryId: string, exp: string | undefined, sig: string | undefined, now = Date.now()): void {
  const expires = Number(exp);
  if (!sig || !Number.isInteger(expires)) throw new AppError("forbidden", "This image link is not signed");
  if (expires * 1000 < now) throw new AppError("forbidden", "This image link has expired; fetch the memory again for a fresh one");
  const expected = Buffer.from(signature(secret, memoryId, expires));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new AppError("forbidden", "This image link is not valid");
}

/** The stored file behind an image memory, for the image route (the signature already checked). */
export async function imageFile(ctx: CoreContext, memoryId: string): Promise<{ path: string; mime: string }> {
  const [row] = await ctx.store.select("memories", sqlAnd(`id = ${sqlString(memoryId)}`, "contentType = 'image'"), { columns: ["imageFile"] });
  if (!row?.imageFile) throw new AppError("not_found", "image not found");
  const file = path.join(ctx.config.paths.images, row.imageFile);
  // Removed by hand from the images folder: a 404, not a 200 whose body breaks off.
  if (!fs.existsSync(file)) throw new AppError("not_found", "image not found: its file is gone from the data dir");
  return { path: file, mime: mimeOf(row.imageFile) };
}
