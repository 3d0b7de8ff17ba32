// One record of Takeout's My Activity page (HTML, Takeout's default) read into the shape the same
// record has in Takeout's JSON (`header`, `title`, `titleUrl`, `subtitles`, `time`, `safeHtmlItem`,
// `products`, `details`, `attachedFiles`), so that a format's converter reads both alike.
//
// A record is an `outer-cell` holding a `header-cell` (the product), a body `content-cell` and a
// `caption` cell. The body is lines split by <br>: the title ("Prompted what is…", a link for other
// products), lines about attached files, the time ("Nov 27, 2024, 10:00:00 AM PST", in the account's
// language), then the answer's own HTML. What is said in words changes with the language; these
// classes and that order do not, so the time line is found by reading each line as a time.
import type { ChildNode, Element } from "domhandler";
import { DomUtils, parseDocument } from "htmlparser2";
import { activityTime, type ActivityTime } from "./time.js";

/** A record as Takeout's JSON has it: the fields a converter reads, those the page holds. */
export interface PageRecord {
  header?: string;
  title: string;
  titleUrl?: string;
  subtitles?: Link[];
  /** UTC, ISO 8601 (a zone name Intl does not know: the wall clock read as UTC); absent when no line reads as a time. */
  time?: string;
  safeHtmlItem?: { html: string }[];
  products?: string[];
  details?: Link[];
  attachedFiles?: string[];
}

interface Link {
  name: string;
  url?: string;
}

interface Line {
  nodes: ChildNode[];
  /** It starts with a block element: a part of the answer. */
  block: boolean;
  /** Read when first asked for: an answer's lines are not. */
  readonly text: string;
}

/** Elements that start a block of the answer: the time line ends where one begins, even without a <br>. */
const BLOCKS = new Set(["p", "div", "ul", "ol", "pre", "table", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "img"]);

/** The record of one cell's HTML (from its `<div class="outer-cell…">` to the next one's). */
export function pageRecord(html: string): PageRecord {
  const nodes = parseDocument(html).children;
  const cells = DomUtils.findAll((element) => hasClass(element, "content-cell"), nodes);
  const body = cells.find((cell) => hasClass(cell, "mdl-typography--body-1") && !hasClass(cell, "mdl-typography--text-right"));
  const caption = cells.find((cell) => hasClass(cell, "mdl-typography--caption"));
  const headerCell = DomUtils.findOne((element) => hasClass(element, "header-cell"), nodes);
  const header = headerCell === null ? undefined : textOf([headerCell]);
  return {
    ...(header === undefined || header === "" ? {} : { header }),
    ...(body === undefined ? { title: "" } : bodyFields(body.children)),
    ...(caption === undefined ? {} : captionFields(caption.children)),
  };
}

/** The title, the lines between it and the time, the time, and the answer after it. */
function bodyFields(children: ChildNode[]): PageRecord {
  const [first, ...rest] = linesOf(children);
  const { at, time } = timeLine(rest);
  const between = at === -1 ? [] : rest.slice(0, at);
  const answer = at === -1 ? [] : rest.slice(at + 1).flatMap((line) => line.nodes);
  const titleUrl = first === undefined ? undefined : linksIn(first.nodes)[0]?.url;
  const { prompt, subtitles, files } = between.reduce(readBetween, { prompt: [first?.text ?? ""], subtitles: [], files: [] });
  const html = answer.length === 0 ? "" : DomUtils.getOuterHTML(answer).trim();
  return {
    title: prompt.join("\n"),
    ...(titleUrl === undefined ? {} : { titleUrl }),
    ...(subtitles.length === 0 ? {} : { subtitles }),
    ...(files.length === 0 ? {} : { attachedFiles: files }),
    ...(time === undefined ? {} : { time: time.iso }),
    ...(html === "" ? {} : { safeHtmlItem: [{ html }] }),
  };
}

/** The line that reads as a time, among those before the answer's first block (its text is never read). */
function timeLine(lines: Line[]): { at: number; time: ActivityTime | undefined } {
  for (const [at, line] of lines.entries()) {
    if (line.block) break;
    const time = activityTime(line.text);
    if (time !== undefined) return { at, time };
  }
  return { at: -1, time: undefined };
}

interface Between {
  /** The title's lines: a prompt of several lines may be written with <br>s. */
  prompt: string[];
  subtitles: Link[];
  files: string[];
}

/**
 * A line between the title and the time: a file given with the prompt (a link into the export, no
 * scheme), a link elsewhere, the line that announces files ("Attached 1 file."), or more of the prompt.
 */
function readBetween(read: Between, line: Line, index: number, lines: Line[]): Between {
  const link = linksIn(line.nodes)[0];
  if (link?.url !== undefined && isExportFile(link.url)) {
    read.subtitles.push({ name: line.text, url: link.url });
    read.files.push(fileName(link.url));
  } else if (link !== undefined) read.subtitles.push({ name: line.text, ...(link.url === undefined ? {} : { url: link.url }) });
  else if (lines.slice(index + 1).some((next) => linksIn(next.nodes).some((other) => other.url !== undefined && isExportFile(other.url))))
    read.subtitles.push({ name: line.text });
  else if (line.text !== "") read.prompt.push(line.text);
  return read;
}

/** Products (the caption's first heading, "Products:" in any language), and every other line as a detail. */
function captionFields(children: ChildNode[]): Pick<PageRecord, "products" | "details"> {
  const products: string[] = [];
  const details: Link[] = [];
  let heading = 0;
  for (const line of linesOf(children)) {
    const links = linksIn(line.nodes);
    if (isHeading(line)) heading += 1;
    else if (line.text !== "" && heading <= 1 && links.length === 0) products.push(line.text);
    else if (line.text !== "") details.push({ name: line.text, ...(links[0] ?? {}) });
  }
  return { ...(products.length === 0 ? {} : { products }), ...(details.length === 0 ? {} : { details }) };
}

/** "<b>Products:</b>", "<b>Why is this here?</b>": a line of the caption that is all bold, whatever its language. */
function isHeading(line: Line): boolean {
  const nodes = line.nodes.filter((node) => !(node.type === "text" && node.data.trim() === "") && !(isElement(node) && node.name === "br"));
  return nodes.length === 1 && isElement(nodes[0]!) && nodes[0].name === "b";
}

/** The cell's children split at each <br>, and around each block element. */
function linesOf(children: ChildNode[]): Line[] {
  const lines: ChildNode[][] = [[]];
  for (const node of children) {
    const block = isElement(node) && BLOCKS.has(node.name);
    if (block && lines.at(-1)!.length > 0) lines.push([]);
    lines.at(-1)!.push(node);
    if (block || (isElement(node) && node.name === "br")) lines.push([]);
  }
  return lines.filter((nodes) => nodes.length > 0).map(lineOf);
}

function lineOf(nodes: ChildNode[]): Line {
  let text: string | undefined;
  const first = nodes[0]!;
  return {
    nodes,
    block: isElement(first) && BLOCKS.has(first.name),
    get text() {
      text ??= textOf(nodes);
      return text;
    },
  };
}

function linksIn(nodes: ChildNode[]): { url?: string }[] {
  return DomUtils.findAll((element) => element.name === "a", nodes).map((link) => {
    const url = DomUtils.getAttributeValue(link, "href");
    return url === undefined || url === "" ? {} : { url };
  });
}

/** A link into the export's own folder (an attached file): no scheme, no host. */
function isExportFile(url: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(url);
}

/** The file's name as Takeout's JSON gives it: the link decoded. */
function fileName(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** Text as read: no-break and em spaces (Takeout's indents) as spaces, runs of space as one, line ends kept. */
function textOf(nodes: ChildNode[]): string {
  return DomUtils.textContent(nodes.filter((node) => node.type !== "script" && node.type !== "style"))
    .replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .trim();
}

function hasClass(element: Element, name: string): boolean {
  return (DomUtils.getAttributeValue(element, "class") ?? "").split(/\s+/).includes(name);
}

function isElement(node: ChildNode): node is Element {
  return node.type === "tag" || node.type === "script" || node.type === "style";
}
