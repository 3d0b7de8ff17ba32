// What mnemo says about the formats it reads, generated from the registry: the CLI's help, the
// error for a file of no known format, the web's import and conversations pages, the MCP texts
// and the README's table (test/importers/registry.test.ts keeps the README in step).
import { IMPORTERS } from "./registry.js";

/** One format as the faces show it. */
export interface FormatWords {
  id: string;
  name: string;
  chatApp: boolean;
  accepts: string;
  howToGet: string;
}

export const FORMATS: readonly FormatWords[] = IMPORTERS.map(({ id, name, chatApp, accepts, howToGet }) => ({
  id,
  name,
  chatApp,
  accepts,
  howToGet,
}));

/** "ChatGPT, Claude and Gemini": the chat apps whose exports mnemo reads, joined by `last` before the last one. */
export function chatAppNames(last: "and" | "or"): string {
  return listing(
    FORMATS.filter((format) => format.chatApp).map((format) => format.name),
    last,
  );
}

/** Every format by name, mnemo's upload shape too: "ChatGPT, Claude, Gemini or mnemo's upload shape". */
export function formatNames(last: "and" | "or"): string {
  return listing(
    FORMATS.map((format) => format.name),
    last,
  );
}

/** A line per format, its name then what to pass, wrapped at `width` columns: the CLI's help. */
export function formatLines(width = 100): string {
  const column = Math.max(...FORMATS.map((format) => format.name.length)) + 4;
  return FORMATS.map((format) => wrap(`  ${format.name.padEnd(column - 2)}${format.accepts}`, width, column)).join("\n");
}

/** The file endings the importers read, and zip archives: the web's file picker offers these (a name without one it cannot say). */
export function fileTypes(): string[] {
  const endings = IMPORTERS.flatMap((importer) => importer.extensions).filter((extension) => extension !== "");
  return [".zip", ...new Set(endings.map((ending) => ending.slice(ending.lastIndexOf("."))))];
}

/** The README's table of formats (between its `formats` markers). */
export function formatsTable(): string {
  const rows = FORMATS.map((format) => `| ${format.name} | ${format.accepts} | ${format.howToGet} |`);
  return ["| Format | What to pass to `mnemo import` | How to get it |", "|---|---|---|", ...rows].join("\n");
}

/** "a, b and c": items joined by commas, `last` before the last one. */
export function listing(items: string[], last: "and" | "or"): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${last} ${items.at(-1)}`;
}

/** `text` broken at spaces into lines of at most `width` columns, the ones after the first indented by `indent`. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/(?<=\S) (?=\S)/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = " ".repeat(indent) + word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  return [...lines, line].join("\n");
}
