// An id for a conversation its export gives none: derived from what it holds, so that importing the
// same export again finds it again, and two files' conversations never share one by position.
import { createHash } from "node:crypto";

/** `prefix-` and 32 hex digits of the seed's SHA-256. */
export function derivedId(prefix: string, seed: readonly unknown[]): string {
  return `${prefix}-${createHash("sha256").update(JSON.stringify(seed)).digest("hex").slice(0, 32)}`;
}
