/** `text` whole when it has at most `max` characters, else cut to `max` with "…" (never half an emoji). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text
    .slice(0, max - 1)
    .replace(/[\ud800-\udbff]$/, "")
    .trimEnd()}…`;
}

/** The text up to its first line break: found, not split (a prompt of 50 MB of line breaks split took 2.5 s and 600 MB). */
export function firstLine(text: string): string {
  const end = text.indexOf("\n");
  return end === -1 ? text : text.slice(0, end);
}

/**
 * An id or name the caller sent, as a message shows it: as it is when it is a plain token of at most
 * `max` characters (`conv_01J…`), else quoted and cut. Spaces alone, a line break or megabytes of it
 * read back raw made "Not found:   ." or started a line of its own.
 */
export function shownId(id: string, max = 60): string {
  return id.length <= max && /^[\w.-]+$/.test(id) ? id : JSON.stringify(cutText(id, max));
}
