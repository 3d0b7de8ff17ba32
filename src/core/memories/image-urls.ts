import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { AppError } from "../../shared/errors.js";

/** Image URLs are signed: a link works for 4 hours (spec §8) and for the memory it names only. */
export const IMAGE_URL_LIFETIME_MS = 4 * 60 * 60 * 1000;

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
export function verifyImageSignature(
  secret: Buffer,
  memoryId: string,
  exp: string | undefined,
  sig: string | undefined,
  now = Date.now(),
): void {
  const expires = Number(exp);
  if (!sig || !Number.isInteger(expires)) throw new AppError("forbidden", "This image link is not signed");
  if (expires * 1000 < now) throw new AppError("forbidden", "This image link has expired; fetch the memory again for a fresh one");
  const expected = Buffer.from(signature(secret, memoryId, expires));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw new AppError("forbidden", "This image link is not valid");
}
