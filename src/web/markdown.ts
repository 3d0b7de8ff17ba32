import MarkdownIt from "markdown-it";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/**
 * Messages are markdown, rendered on the server by markdown-it with raw HTML off: any `<tag>` in a
 * message is escaped and shown as text, `javascript:` and other unsafe links are not made links,
 * and images are not loaded (a message could otherwise make the page fetch from anywhere). This is
 * the one place the web app emits HTML it did not build element by element.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true }).disable("image");

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

export function markdown(text: string): HtmlEscapedString {
  return raw(md.render(text)) as HtmlEscapedString;
}
