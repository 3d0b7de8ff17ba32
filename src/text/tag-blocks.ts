// Blocks of markup apps write into a message (`<details type="…">…</details>`, `<file name="…">…</file>`),
// found by indexOf: the lazy regex /<open>[\s\S]*?<\/close>/ scans the rest of the text again from each
// opening tag that no closing tag follows, so a message of 40,000 of them (half a MB) took seconds, and
// megabytes of them hours, holding the import (and `mnemo serve`, whose imports run in its process).

/**
 * `text` with each block, an opening tag (`opening`, sticky, matched where `start` is found) and what
 * follows up to the first `close`, replaced by `replace` of the tag's match and the inside. An opening
 * tag that no `close` follows ends the search (no later one has a close either), as does one whose
 * tag never ends: `opening` is only tried while a ">" is still ahead. `spaceAfter`: the white space
 * after a block goes with it.
 */
export function replaceTagBlocks(
  text: string,
  start: string,
  opening: RegExp,
  close: string,
  replace: (tag: RegExpExecArray, inside: string) => string,
  { spaceAfter = false }: { spaceAfter?: boolean } = {},
): string {
  if (!opening.sticky) throw new Error("replaceTagBlocks needs a sticky opening pattern");
  const lastTagEnd = text.lastIndexOf(">");
  let out = "";
  let copied = 0;
  let from = 0;
  for (let at = text.indexOf(start, from); at !== -1 && at < lastTagEnd; at = text.indexOf(start, from)) {
    opening.lastIndex = at;
    const tag = opening.exec(text);
    if (tag === null) {
      from = at + 1;
      continue;
    }
    const end = text.indexOf(close, opening.lastIndex);
    if (end === -1) break;
    out += text.slice(copied, at) + replace(tag, text.slice(opening.lastIndex, end));
    copied = from = spaceAfter ? afterSpace(text, end + close.length) : end + close.length;
  }
  return out + text.slice(copied);
}

/** The first block: where its `start` tag is, where its first `close` after it ends, and what is between; undefined when none closes. */
export function firstTagBlock(text: string, start: string, close: string): { at: number; end: number; inside: string } | undefined {
  const at = text.indexOf(start);
  const closing = at === -1 ? -1 : text.indexOf(close, at + start.length);
  if (closing === -1) return undefined;
  return { at, end: closing + close.length, inside: text.slice(at + start.length, closing) };
}

function afterSpace(text: string, at: number): number {
  let end = at;
  while (end < text.length && /\s/.test(text[end] as string)) end++;
  return end;
}
