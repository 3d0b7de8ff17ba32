// A chat saved as Markdown by anything else (a chat app's own "export as Markdown", a browser
// extension, a transcript written or pasted by hand): speakers as headings (`## User` /
// `## Assistant`, `### You` / `### ChatGPT`, `## Prompt:` / `## Response:`) or bold labels
// (`**User:**`), one conversation a file (transcript.ts says what makes a text a transcript).
import { loaded, perRecord, type Importer, type Sample } from "../importer.js";
import { isAiderHistory } from "../aider/history.js";
import { isChatgptExporterMarkdown } from "./dialects.js";
import { readTranscript } from "./transcript.js";

export const markdown: Importer = {
  id: "markdown",
  name: "Markdown transcript",
  chatApp: false,
  accepts:
    "a .md or .txt file of one chat, its speakers as headings (## User / ## Assistant, ### You / ### ChatGPT, ## Prompt: / ## Response:) or bold labels (**User:** / **Assistant:**)",
  howToGet:
    "Save or copy the chat as Markdown (many apps and browser extensions do); the app its link or its assistant names (ChatGPT, Claude…) is its platform, else `markdown`.",
  extensions: [".md", ".markdown", ".txt"],
  detect: (sample) => (isGenericTranscript(sample) ? {} : undefined),
  convert: loaded(async () => perRecord((await import("./conversation.js")).transcriptConversation)),
};

/** A transcript, and not one of a dialect with an entry of its own (chatgpt-exporter, Aider's chat history). */
function isGenericTranscript(sample: Sample): boolean {
  if (sample.text === "" || isAiderHistory(sample.text)) return false;
  const transcript = readTranscript(sample.text);
  return transcript !== undefined && !isChatgptExporterMarkdown(transcript);
}
