// Claude answers of 2024 carry their artifacts and the model's planning inline, as tags in the
// text: `<antArtifact identifier="…" type="…" title="…">…</antArtifact>` and `<antThinking>…</antThinking>`.
// The user saw the artifact as a document and never saw the thinking.

const THINKING = /[ \t]*<antThinking>[\s\S]*?<\/antThinking>[ \t]*\n?/g;
const ARTIFACT = /<antArtifact\b([^>]*)>([\s\S]*?)<\/antArtifact>/g;
/** An opening tag whose artifact the text never closes (the answer was cut off). */
const UNCLOSED_ARTIFACT = /<antArtifact\b([^>]*)>\n?/g;

/** The answer as the user read it: each artifact as `[artifact: title]` and its text, no thinking. */
export function answerText(text: string): string {
  if (!text.includes("<ant")) return text;
  return text
    .replace(THINKING, "")
    .replace(ARTIFACT, (_, attributes: string, body: string) => `${heading(attributes)}\n${body.trim()}`)
    .replace(UNCLOSED_ARTIFACT, (_, attributes: string) => `${heading(attributes)}\n`)
    .trim();
}

function heading(attributes: string): string {
  const title = /\btitle\s*=\s*"([^"]*)"/.exec(attributes)?.[1]?.trim();
  return title ? `[artifact: ${title}]` : "[artifact]";
}
