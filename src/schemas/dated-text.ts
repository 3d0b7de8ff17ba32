import { MAX_MEMORY_CHARS } from "./limits.js";
import { AppError } from "../shared/errors.js";

/**
 * The text with its date, refused here when the date is what takes it past a memory's limit: the
 * store's "must be at most 20000 characters", said of the 19,995 characters typed, read as wrong.
 * Counted as the store counts, in characters (code points) of the trimmed text. `undated` says how
 * the face stores a text without its date (`--no-date`, a box to untick).
 */
export function datedWithinLimit(typed: string, dated: string, undated: string, field = "text"): string {
  const length = [...dated.trim()].length;
  const own = [...typed.trim()].length;
  if (length <= MAX_MEMORY_CHARS || own > MAX_MEMORY_CHARS) return dated;
  const limit = MAX_MEMORY_CHARS.toLocaleString("en");
  throw AppError.invalid(
    field,
    `is ${own.toLocaleString("en")} characters, and its date (${length - own} more) takes it past the ${limit} a memory holds`,
    `Shorten it to ${(MAX_MEMORY_CHARS - (length - own)).toLocaleString("en")} characters, store it without the date (${undated}), or split it into several memories.`,
  );
}
