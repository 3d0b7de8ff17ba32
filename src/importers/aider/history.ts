// What tells Aider's chat history from any other Markdown: it opens with the heading aider writes
// when it starts (io.py InputOutput.__init__: `\n# aider chat started at %Y-%m-%d %H:%M:%S\n\n`).

/** The heading of each session, its time as aider wrote it (the machine's local time, no zone). */
export const SESSION_HEADING = /^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[ \t]*$/;

/**
 * Whether a text is Aider's chat history: a line of it outside fenced code is a session's heading.
 * Not only its first: a history trimmed at its start, or given an editor's mode line (aider's own
 * tests/fixtures/chat-history.md opens with `-*- mode: fundamental -*-`), is still one. Fenced, it is
 * a README or a note quoting a history (in a repository's folder, imported for its history, beside it).
 */
export function isAiderHistory(text: string): boolean {
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    if (fence === undefined && SESSION_HEADING.test(line)) return true;
    fence = nextFence(line, fence);
  }
  return false;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The fence of Markdown code open after a line, as CommonMark opens and closes them. */
export function nextFence(line: string, fence: string | undefined): string | undefined {
  const marker = FENCE.exec(line)?.[1];
  if (marker === undefined) return fence;
  if (fence === undefined) return marker;
  return marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker ? undefined : fence;
}
