import MarkdownIt from "markdown-it";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { Segment } from "../text/highlight.js";

/**
 * Messages, search hits and recall's summary are markdown, rendered on the server by markdown-it
 * with raw HTML off: any `<tag>` in them is escaped and shown as text, `javascript:` and other unsafe
 * links are not made links, and images are not loaded (a message could otherwise make the page
 * fetch from anywhere). This is the one place the web app emits HTML it did not build element by
 * element; the marks and citation links below are built here from escaped text.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true }).disable("image");
const { escapeHtml } = md.utils;

/** What a render adds to the text: the query's words marked, `[n]` made links to the sources they cite. */
export interface MarkdownOptions {
  mark?: ((text: string) => Segment[]) | undefined;
  cite?: ((n: number) => { href: string; label: string } | undefined) | undefined;
}

const defaultLinkOpen = md.renderer.rules["link_open"] ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules["link_open"] = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet("rel", "noopener noreferrer nofollow");
  return defaultLinkOpen(tokens, idx, options, env, self);
};

// A code block wider than the message scrolls sideways; focusable, so the keyboard can scroll it too.
for (const rule of ["fence", "code_block"] as const) {
  const render = md.renderer.rules[rule]!;
  md.renderer.rules[rule] = (...args) => render(...args).replace(/^<pre/, '<pre tabindex="0"');
}
// So does a table (app.css).
md.renderer.rules["table_open"] = () => '<table tabindex="0">\n';

// Each block takes its direction from its own text (dir="auto"): a Hebrew or Arabic paragraph reads
// right to left with its punctuation at its end, an English one beside it left to right.
for (const rule of [
  "paragraph_open",
  "heading_open",
  "blockquote_open",
  "bullet_list_open",
  "ordered_list_open",
  "list_item_open",
] as const) {
  md.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
    tokens[idx]!.attrSet("dir", "auto");
    return self.renderToken(tokens, idx, options);
  };
}

const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

// Text outside code: its citations and marked words, each piece escaped.
md.renderer.rules["text"] = (tokens, idx, _options, env: MarkdownOptions) => {
  const text = tokens[idx]!.content;
  if (!env.cite) return marked(text, env.mark);
  let out = "";
  let at = 0;
  for (const match of text.matchAll(CITATION)) {
    out += marked(text.slice(at, match.index), env.mark);
    out += match[1]!
      .split(",")
      .map((n) => citation(Number(n.trim()), env.cite!))
      .join("");
    at = match.index + match[0].length;
  }
  return out + marked(text.slice(at), env.mark);
};

function marked(text: string, mark: MarkdownOptions["mark"]): string {
  if (!mark) return escapeHtml(text);
  return mark(text)
    .map((segment) => (segment.marked ? `<mark>${escapeHtml(segment.text)}</mark>` : escapeHtml(segment.text)))
    .join("");
}

function citation(n: number, cite: NonNullable<MarkdownOptions["cite"]>): string {
  const source = cite(n);
  if (!source) return `[${n}]`;
  return `<a class="cite" href="${escapeHtml(source.href)}" aria-label="${escapeHtml(source.label)}">[${n}]</a>`;
}

export function markdown(text: string, options: MarkdownOptions = {}): HtmlEscapedString {
  return raw(md.render(text, { ...options })) as HtmlEscapedString;
}
