/** A stored time (UTC) as "YYYY-MM-DD HH:MM" in the server's time zone, which is the user's on their own machine. */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())} ${two(time.getHours())}:${two(time.getMinutes())}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/** Memories and conversations counted in words: "2 memories and 1 conversation". */
export function countedItems(items: { kind: "memory" | "conversation" }[]): string {
  const memories = items.filter((item) => item.kind === "memory").length;
  const conversations = items.length - memories;
  const parts = [memories ? plural(memories, "memory", "memories") : "", conversations ? plural(conversations, "conversation") : ""];
  return parts.filter(Boolean).join(" and ") || "nothing";
}

/**
 * A size as people read it, the same as the page's script shows it (assets/app.js): "20 B", "6 KB",
 * "1.4 MB", "4.3 GB". Decimal units (1 MB = 1,000,000 bytes), as the SI and IEC define them and as
 * macOS's Finder and GNOME's Files show a file's size: 200,000,000 bytes were "190.7 MB", a file the
 * user's own file manager calls 200 MB. The limits, binary (10 MiB), are all above the decimal size
 * they are stated as ("at most 10 MB"), so a limit is never told lower than it is.
 */
export function byteSize(bytes: number): string {
  // Under a kilobyte in bytes (a 20-byte file was "1 KB"), under a megabyte in KB (a 6 KB export is not "0.0 MB").
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${Math.ceil(bytes / 1000)} KB`;
  return bytes < 1e9 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e9).toFixed(1)} GB`;
}

/** A path with query parameters, leaving out empty ones. */
export function withQuery(path: string, params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "" && value !== false) search.set(key, String(value));
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** Where a conversation opens on one message (a search hit, a citation): the page scrolls to `#hit`. */
export function messageLink(conversationId: string, messageId: string): string {
  return `${withQuery(`/conversations/${encodeURIComponent(conversationId)}`, { at: messageId })}#hit`;
}
