// A Markdown transcript read into its turns, or undefined when the text is no transcript. Strict, so
// that a note is not taken for a chat:
// - its speakers are written one way (headings of one level, or bold labels: speakers.ts), and both a
//   person and an assistant speak, the person before the assistant at least once;
// - it starts with them: before the first speaker come at most a front matter, a title, lines of
//   metadata ("**Created:** …", "Link: …") and a few lines more (PREAMBLE_*);
// - lines inside fenced code never start a message (an answer that shows a transcript).
import { markerOf, type Marker, type Speaker } from "./speakers.js";

export interface Turn {
  speaker: Speaker;
  /** The speaker as written: "ChatGPT". */
  name: string;
  /** The message as written, after its speaker's line. */
  body: string;
  /** A time the speaker's line gives. */
  time?: string | undefined;
}

export interface Transcript {
  /** The front matter's fields and the header's metadata lines, by lower-case key. */
  metadata: Map<string, string>;
  /** The title: the front matter's, else the first heading before the first speaker. */
  title?: string | undefined;
  /** How its speakers are written: "h4", "bold". */
  style: string;
  /** Its speakers' lines, as written. */
  markers: Marker[];
  turns: Turn[];
}

/** Lines before the first speaker that are neither a title, metadata nor a rule: a note's prose. */
const PREAMBLE_PROSE_LINES = 2;
/** Lines before the first speaker in all (a long header of metadata). */
const PREAMBLE_LINES = 25;
/** Where a front matter must end, if it starts on the first line. */
const FRONT_MATTER_LINES = 60;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const METADATA = /^\s*(?:[-*]\s+)?(?:\*\*|__)?([^\s:*_][^:*_]{0,40}?)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(\S.*)$/;
const RULE = /^ {0,3}(?:-{3,}|\*{3,}|_{3,})\s*$/;
const TITLE = /^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/;

/** The transcript the text is, or undefined when it is none. */
export function readTranscript(text: string): Transcript | undefined {
  const lines = text.split("\n");
  const { metadata, start } = frontMatter(lines);
  const markers = bestMarkers(candidateMarkers(lines, start));
  if (markers === undefined) return undefined;
  const preamble = lines.slice(start, markers[0]!.line);
  const header = readPreamble(preamble);
  if (header === undefined) return undefined;
  for (const [key, value] of header.metadata) if (!metadata.has(key)) metadata.set(key, value);
  return {
    metadata,
    title: metadata.get("title") ?? header.title,
    style: markers[0]!.style,
    markers,
    turns: markers.map((marker, index) => turnOf(lines, marker, markers[index + 1]?.line ?? lines.length)),
  };
}

/** A YAML front matter's `key: value` lines (values unquoted), and where the text after it starts. */
function frontMatter(lines: string[]): { metadata: Map<string, string>; start: number } {
  const metadata = new Map<string, string>();
  if (lines[0]?.trim() !== "---") return { metadata, start: 0 };
  const end = lines.findIndex((line, index) => index > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
  if (end === -1 || end > FRONT_MATTER_LINES) return { metadata, start: 0 };
  for (const line of lines.slice(1, end)) {
    const field = /^([\w.-]+)\s*:\s*(.*)$/.exec(line);
    if (field && field[2]!.trim() !== "") metadata.set(field[1]!.toLowerCase(), field[2]!.trim().replace(/^(["'])(.*)\1$/, "$2"));
  }
  return { metadata, start: end + 1 };
}

/** Every line that names a speaker, outside fenced code. */
function candidateMarkers(lines: string[], start: number): Marker[] {
  const markers: Marker[] = [];
  let fence: string | undefined;
  for (let index = start; index < lines.length; index++) {
    const line = lines[index]!;
    const opening = FENCE.exec(line)?.[1];
    if (opening !== undefined) {
      if (fence === undefined) fence = opening;
      else if (opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const marker = markerOf(line, index);
    if (marker !== undefined) markers.push(marker);
  }
  return markers;
}

/**
 * The markers of the one style the conversation is written in, of those where a person and an
 * assistant take turns: headings before bold labels (an answer may script a dialogue in bold
 * labels), then the style of most lines.
 */
function bestMarkers(markers: Marker[]): Marker[] | undefined {
  const byStyle = new Map<string, Marker[]>();
  for (const marker of markers) {
    const style = byStyle.get(marker.style) ?? [];
    style.push(marker);
    byStyle.set(marker.style, style);
  }
  const bold = (style: Marker[]) => (style[0]!.style === "bold" ? 1 : 0);
  const conversations = [...byStyle.values()].filter(takesTurns);
  return conversations.sort((a, b) => bold(a) - bold(b) || b.length - a.length || a[0]!.line - b[0]!.line)[0];
}

/** A person speaks, and an assistant answers after them. */
function takesTurns(markers: Marker[]): boolean {
  const firstHuman = markers.findIndex((marker) => marker.speaker === "human");
  return firstHuman !== -1 && markers.slice(firstHuman).some((marker) => marker.speaker === "assistant");
}

/** The title and metadata of what comes before the first speaker; undefined when it is a note's prose. */
function readPreamble(lines: string[]): { title?: string | undefined; metadata: Map<string, string> } | undefined {
  const metadata = new Map<string, string>();
  let title: string | undefined;
  let prose = 0;
  const filled = lines.filter((line) => line.trim() !== "");
  if (filled.length > PREAMBLE_LINES) return undefined;
  for (const line of filled) {
    const heading = TITLE.exec(line);
    const field = METADATA.exec(line);
    if (heading) title ??= heading[1]!.replace(/\*\*|__/g, "");
    else if (field) metadata.set(field[1]!.trim().toLowerCase(), field[2]!.replace(/(?:\*\*|__)\s*$/, "").trim());
    else if (!RULE.test(line)) prose++;
  }
  return prose > PREAMBLE_PROSE_LINES ? undefined : { title, metadata };
}

function turnOf(lines: string[], marker: Marker, end: number): Turn {
  const body = [marker.rest, ...lines.slice(marker.line + 1, end)].join("\n");
  return { speaker: marker.speaker, name: marker.name, body, time: marker.time };
}
