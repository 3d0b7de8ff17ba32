/** Ids for a one-line message: the first few, then how many more ("a, b, c and 4 more"). */
export function idList(ids: readonly string[], shown = 5): string {
  if (ids.length <= shown) return ids.join(", ");
  return `${ids.slice(0, shown).join(", ")} and ${ids.length - shown} more`;
}
