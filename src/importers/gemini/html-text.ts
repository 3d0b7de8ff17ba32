// HTML (as found in Takeout's `safeHtmlItem`) to plain text: tags stripped, entities decoded,
// paragraph and line breaks kept, list items as "- " / "1. ", <pre> content left verbatim.

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  middot: "·",
  bull: "•",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  times: "×",
  euro: "€",
};

/** Tags that end a paragraph (blank line) or a line. */
const PARAGRAPH_TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "pre", "blockquote", "table", "hr"]);
const LINE_TAGS = new Set(["div", "tr", "section", "article", "header", "footer", "dt", "dd"]);

const PARAGRAPH = "\u0000P\u0000";
const LINE = "\u0000L\u0000";
const INDENT = "\u0000I\u0000"; // two spaces per nesting level, restored after breaks are collapsed
const PRE_NEWLINE = "\u0000N\u0000";

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? match;
  });
}

export function htmlToText(html: string): string {
  // A browser reads CRLF and CR as LF before anything else (HTML's input stream): a page saved on
  // Windows keeps no \r inside <pre>.
  const withoutNoise = html
    .replace(/\r\n?/g, "\n")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, "");
  const pieces: string[] = [];
  const lists: Array<{ ordered: boolean; next: number }> = [];
  let preDepth = 0;
  for (const [token] of withoutNoise.matchAll(/<\/?[a-zA-Z][^>]*>|[^<]+|</g)) {
    const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9]*)/.exec(token);
    if (tag === null) {
      const text = decodeEntities(token);
      pieces.push(preDepth > 0 ? text.replaceAll("\n", PRE_NEWLINE) : text.replace(/\s+/g, " "));
      continue;
    }
    const closing = tag[1] === "/";
    const name = (tag[2] ?? "").toLowerCase();
    if (name === "pre") preDepth = Math.max(0, preDepth + (closing ? -1 : 1));
    pieces.push(breakFor(name, closing, lists));
  }
  return normalise(pieces.join(""));
}

/** The break (or list marker) a tag stands for; "" for inline tags. */
function breakFor(name: string, closing: boolean, lists: Array<{ ordered: boolean; next: number }>): string {
  if (name === "br") return LINE;
  if (name === "ul" || name === "ol") {
    if (closing) lists.pop();
    const nested = lists.length > 0; // a list inside a list item: just a line break
    if (!closing) lists.push({ ordered: name === "ol", next: 1 });
    return nested ? LINE : PARAGRAPH;
  }
  if (name === "li") {
    if (closing) return LINE;
    const list = lists.at(-1);
    const indent = INDENT.repeat(Math.max(0, lists.length - 1));
    const marker = list?.ordered ? `${list.next++}. ` : "- ";
    return `${LINE}${indent}${marker}`;
  }
  if (name === "td" || name === "th") return closing ? " " : "";
  if (PARAGRAPH_TAGS.has(name)) return PARAGRAPH;
  if (LINE_TAGS.has(name)) return LINE;
  return "";
}

/** Turns break markers into newlines: at most one blank line, no spaces around line ends. */
function normalise(text: string): string {
  return text
    .replace(/[ \t]*(\u0000[PL]\u0000[ \t]*)+/g, (run) => (run.includes(PARAGRAPH) ? "\n\n" : "\n"))
    .replaceAll(PRE_NEWLINE, "\n")
    .replaceAll(INDENT, "  ")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/ +\n/g, "\n")
    .trim();
}
