// The ChatGPT Exporter userscript and browser extension (pionxzh/chatgpt-exporter), a common way to
// save single ChatGPT chats. Its Markdown is read here (markdown/dialects.ts knows it; the
// conversion is the Markdown transcripts'); its JSON, "JSON" and "Official JSON" alike, is ChatGPT's
// own API conversation (`mapping`, `current_node`: src/exporter/json.ts writes the API's answer),
// which the ChatGPT entry reads. Its Text export goes to the clipboard, its HTML and PNG are pages.
import { loaded, perRecord, type Importer, type Sample } from "../importer.js";
import { isChatgptExporterMarkdown } from "../markdown/dialects.js";
import { readTranscript } from "../markdown/transcript.js";

export const chatgptExporter: Importer = {
  id: "chatgpt-exporter",
  name: "ChatGPT Exporter",
  chatApp: false, // its chats are ChatGPT's: the converter records them under `chatgpt`
  accepts: "its Markdown files (.md), or the zip of Export All; its JSON files are ChatGPT's format and read as ChatGPT",
  howToGet:
    "The ChatGPT Exporter userscript or extension on chatgpt.com: Export → Markdown (or JSON), or Export All for a zip; turn on its metadata (with {source}) to keep each chat's id.",
  extensions: [".md"],
  detect: (sample) => (isExporterMarkdown(sample) ? {} : undefined),
  convert: loaded(async () => perRecord((await import("../markdown/conversation.js")).transcriptConversation)),
};

function isExporterMarkdown(sample: Sample): boolean {
  if (sample.text === "") return false;
  const transcript = readTranscript(sample.text);
  return transcript !== undefined && isChatgptExporterMarkdown(transcript);
}
