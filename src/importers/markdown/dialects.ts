// Markdown transcripts that have an entry of their own in the registry, known by how they write
// their speakers, so that the generic entry leaves them to it.
import type { Transcript } from "./transcript.js";

/**
 * pionxzh/chatgpt-exporter's Markdown (src/exporter/markdown.ts): every speaker a level-4 heading
 * ending in a colon, `#### You:`, `#### ChatGPT:`, a tool's `#### Plugin (name):`, or a role as the
 * API names it (`#### system:`, `#### tool:`).
 */
export function isChatgptExporterMarkdown(transcript: Transcript): boolean {
  const labels = transcript.markers.map((marker) => marker.label);
  return (
    transcript.style === "h4" &&
    labels.every((label) => /^(?:You|ChatGPT|Plugin(?: \(.+\))?|[a-z]+):$/.test(label)) &&
    labels.includes("You:") &&
    labels.includes("ChatGPT:")
  );
}
