// Claude's memory files to memories. What each rule is based on (no one's export was copied; public
// parsers of real exports and their notes name the fields, and the fixtures are written from them):
// - memories.json (until mid-2026 a list of one record) or memories/<account uuid>.json (since, one
//   object): `conversations_memory`, the memory Claude writes of the user from every chat, Markdown
//   with a bold line per section ("**Work context**", "**Personal context**", "**Top of mind**",
//   "**Brief history**" with italic sub-sections "*Recent months*"…); `project_memories`, the same
//   per project, by project uuid; `memory_files`, `{ path, content, updated_at }`, the newer memory
//   kept as files; `account_uuid`.
// - projects.json (a list) or projects/<uuid>.json (one project each): `name`, `description`,
//   `prompt_template` (the project's instructions), `docs` (its knowledge: `{ filename, content,
//   created_at }`), `is_starter_project` (the example project every account starts with), times.
// A memory is a section (so a re-import finds it again by its section, however Claude rewrote its
// words): `Claude's memory (account 5d2e8f1a), "Work context"`, the account's uuid's first 8
// characters telling a work account's memory from a personal one's. A project with instructions is
// one memory of them (after its description), and each knowledge file a memory. A project is named by its uuid's first 8 characters,
// its name beside it (an aside): the 2026 export puts memories and projects in separate zips, so the
// memories of a project often come without its name, and a project can be renamed. Text longer
// than PART_CHARS is cut at paragraphs into parts. The memory files carry no date: their memories
// take the export's (the file's time).
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, type JsonObject } from "../json-values.js";
import { cutText } from "../../text/cut-text.js";
import { notAConversation } from "../record-errors.js";
import type { ExportMemory, RecordContext } from "../types.js";
import { isClaudeMemoryRecord } from "./memory-files.js";

/** Where what Claude remembers goes. */
export const MEMORY_BUCKET = {
  name: "Claude memories",
  description: "What Claude remembered of you and of your projects, from Claude's data export",
};
/** Where the projects' instructions and knowledge go. */
export const PROJECT_BUCKET = {
  name: "Claude projects",
  description: "Your Claude projects' descriptions, instructions and knowledge files, from Claude's data export",
};
/** The longest part of a memory: a knowledge file of 100 pages is many memories, each one a reader can take in. */
export const PART_CHARS = 4_000;
const STARTER_SKIPPED = "Claude's starter project (its example, not yours)";
/** The longest name (a project's, a file's) written in a memory's label: a memory's text is at most 20,000 characters. */
const NAME_CHARS = 200;

/** A record of a memory file, read: the memories it holds, once the projects' names are known. */
type Item =
  | { kind: "memories"; record: JsonObject; date: string }
  | { kind: "project"; uuid: string; name: string | undefined; memories: ExportMemory[] };

export function readMemoryRecord(record: unknown, context: RecordContext): Item | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const date = context.fallbackDate.toISOString();
  if (!isClaudeMemoryRecord(new Set(Object.keys(record)))) return undefined;
  if (!("docs" in record)) return { kind: "memories", record, date };
  if (record.is_starter_project === true) {
    context.skip(STARTER_SKIPPED);
    return undefined;
  }
  const uuid = stringOf(record.uuid) ?? "";
  const name = nameOf(record.name);
  return { kind: "project", uuid, name, memories: projectMemories(record, uuid, name, date) };
}

/** Every memory of the files, the memories' before the projects'. */
export function claudeMemories(items: Item[]): ExportMemory[] {
  const names = new Map(items.flatMap((item) => (item.kind === "project" && item.name ? [[item.uuid, item.name] as const] : [])));
  const remembered = items.flatMap((item) => (item.kind === "memories" ? memoriesOf(item.record, item.date, names) : []));
  return [...remembered, ...items.flatMap((item) => (item.kind === "project" ? item.memories : []))];
}

function memoriesOf(record: JsonObject, date: string, projects: Map<string, string>): ExportMemory[] {
  const memory = (label: string, text: string, at = date, aside?: string) => ({ bucket: MEMORY_BUCKET, label, aside, text, date: at });
  // Two accounts' memories (work and personal) are two memories, not versions of one.
  const account = nonEmptyString(record.account_uuid)?.slice(0, 8);
  const base = account === undefined ? "Claude's memory" : `Claude's memory (account ${account})`;
  const global = sections(stringOf(record.conversations_memory) ?? "").flatMap(({ heading, text }) =>
    parts(text).map((part, index, all) => memory(`${base}${headingLabel(heading)}${partLabel(index, all)}`, part)),
  );
  const perProject = Object.entries(isObject(record.project_memories) ? record.project_memories : {}).flatMap(([uuid, value]) =>
    sections(stringOf(value) ?? "").flatMap(({ heading, text }) =>
      parts(text).map((part, index, all) =>
        memory(`Claude's memory of ${projectLabel(uuid)}${headingLabel(heading)}${partLabel(index, all)}`, part, date, projects.get(uuid)),
      ),
    ),
  );
  const files = arrayOf(record.memory_files).flatMap((file) => {
    if (!isObject(file)) return [];
    const path = nameOf(file.path) ?? "memory";
    const at = isoFromTime(file.updated_at) ?? date;
    return parts(stringOf(file.content)?.trim() ?? "").map((part, index, all) =>
      memory(`${base}, file ${path}${partLabel(index, all)}`, part, at),
    );
  });
  return [...global, ...perProject, ...files];
}

function projectMemories(project: JsonObject, uuid: string, name: string | undefined, exportDate: string): ExportMemory[] {
  const date = isoFromTime(project.updated_at) ?? isoFromTime(project.created_at) ?? exportDate;
  const description = stringOf(project.description)?.trim() ?? "";
  const instructions = stringOf(project.prompt_template)?.trim() ?? "";
  // A description alone is the project's caption; with instructions it says what they are for.
  const about = instructions === "" ? "" : [description, `Instructions:\n${instructions}`].filter((text) => text !== "").join("\n\n");
  const memory = (label: string, text: string, at: string) => ({ bucket: PROJECT_BUCKET, label, aside: name, text, date: at });
  const own = parts(about).map((part, index, all) => memory(`Claude ${projectLabel(uuid)}${partLabel(index, all)}`, part, date));
  const knowledge = arrayOf(project.docs).flatMap((doc) => {
    if (!isObject(doc)) return [];
    const file = nameOf(doc.filename) ?? "untitled";
    const at = isoFromTime(doc.created_at) ?? date;
    return parts(stringOf(doc.content)?.trim() ?? "").map((part, index, all) =>
      memory(`Claude ${projectLabel(uuid)}, knowledge file "${file}"${partLabel(index, all)}`, part, at),
    );
  });
  return [...own, ...knowledge];
}

/**
 * A bold line alone ("**Work context**") or a Markdown heading starts a section; an italic line alone
 * a sub-section ("*Recent months*"). A heading is short and no sentence: a bold sentence is text.
 */
const SECTION = /^\s*(?:\*\*([^*\n]{1,80}?)\*\*|#{1,6}\s+(.{1,80}?))\s*:?\s*$/;
const SUBSECTION = /^\s*(?:\*([^*\n]{1,80}?)\*|_([^_\n]{1,80}?)_)\s*:?\s*$/;
const SENTENCE_END = /[.!?]$/;

interface Section {
  /** "Work context", or "Brief history, Recent months"; "" before any heading. */
  heading: string;
  text: string;
}

/** The text's sections, each with its heading and its text (those without text left out). */
export function sections(memory: string): Section[] {
  const found: Section[] = [];
  let section = "";
  let sub = "";
  let lines: string[] = [];
  const close = () => {
    const text = lines.join("\n").trim();
    if (text !== "") found.push({ heading: [section, sub].filter((part) => part !== "").join(", "), text });
    lines = [];
  };
  for (const line of memory.replace(/\r\n?/g, "\n").split("\n")) {
    const top = headingIn(SECTION, line);
    const inner = top ? undefined : headingIn(SUBSECTION, line);
    if (top) {
      close();
      section = top;
      sub = "";
    } else if (inner) {
      close();
      sub = inner;
    } else {
      lines.push(line);
    }
  }
  close();
  return found;
}

function headingIn(pattern: RegExp, line: string): string | undefined {
  const match = pattern.exec(line);
  const heading = (match?.[1] ?? match?.[2])?.trim();
  return heading && !SENTENCE_END.test(heading) ? heading : undefined;
}

/** The text in parts of at most PART_CHARS, cut between paragraphs, else lines, else anywhere. */
export function parts(text: string): string[] {
  if (text === "") return [];
  if (text.length <= PART_CHARS) return [text];
  const pieces: string[] = [];
  let current = "";
  for (const unit of units(text)) {
    const joined = current === "" ? unit : `${current}\n\n${unit}`;
    if (joined.length <= PART_CHARS) current = joined;
    else {
      if (current !== "") pieces.push(current);
      current = unit;
    }
  }
  if (current !== "") pieces.push(current);
  return pieces;
}

/** Paragraphs; a longer one as its lines; a longer line cut (never inside a surrogate pair). */
function units(text: string): string[] {
  const short = (piece: string) => piece.length <= PART_CHARS;
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .flatMap((paragraph) => (short(paragraph) ? [paragraph] : paragraph.split("\n").filter((line) => line.trim() !== "")))
    .flatMap((line) => (short(line) ? [line] : cut(line)));
}

function cut(line: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < line.length; ) {
    let end = Math.min(at + PART_CHARS, line.length);
    if (end < line.length && /[\ud800-\udbff]/.test(line[end - 1]!)) end -= 1;
    pieces.push(line.slice(at, end));
    at = end;
  }
  return pieces;
}

/** A name as a label shows it: on one line, cut to NAME_CHARS. */
function nameOf(value: unknown): string | undefined {
  const name = nonEmptyString(value)?.replace(/\s+/g, " ").trim();
  return name === undefined ? undefined : cutText(name, NAME_CHARS);
}

/** A project by the first 8 characters of its uuid, which no rename or missing projects file changes. */
const projectLabel = (uuid: string) => `project ${uuid.slice(0, 8) || "without an id"}`;
const headingLabel = (heading: string) => (heading === "" ? "" : `, "${heading}"`);
const partLabel = (index: number, all: unknown[]) => (all.length === 1 ? "" : `, part ${index + 1} of ${all.length}`);
