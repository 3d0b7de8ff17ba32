/** `text` whole when it has at most `max` characters, else cut to `max` with "…" (never half an emoji). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text
    .slice(0, max - 1)
    .replace(/[\ud800-\udbff]$/, "")
    .trimEnd()}…`;
}
