// What tells Aider's chat history from any other Markdown: it opens with the heading aider writes
// when it starts (io.py InputOutput.__init__: `\n# aider chat started at %Y-%m-%d %H:%M:%S\n\n`).

/** The heading of each session, its time as aider wrote it (the machine's local time, no zone). */
export const SESSION_HEADING = /^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[ \t]*$/;

/**
 * Whether a text is Aider's chat history: a line of it is a session's heading. Not only its first:
 * a history trimmed at its start, or given an editor's mode line (aider's own tests/fixtures/chat-history.md
 * opens with `-*- mode: fundamental -*-`), is still one.
 */
export function isAiderHistory(text: string): boolean {
  return HEADING_ANYWHERE.test(text);
}

const HEADING_ANYWHERE = new RegExp(SESSION_HEADING.source, "m");
