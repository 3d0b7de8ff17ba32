import fs from "node:fs";
import { isUtf8 } from "node:buffer";
import { AppError } from "../shared/errors.js";
import { decodeUtf8 } from "../text/utf8.js";

const HOW_TO_FIX = "Give the text as UTF-8: convert it with `iconv -f latin1 -t utf-8` (or from its own encoding), or type it again.";

/**
 * Refuses an argument that is not UTF-8 (a Latin-1 "café" pasted into a terminal): Node turns such
 * bytes into U+FFFD before mnemo sees them, which would be stored as text nobody wrote. So the
 * command line is read again as the kernel holds it, from /proc (Linux; elsewhere the check is skipped),
 * when an argument holds a U+FFFD: Node makes one of every byte that is not UTF-8.
 * `argv` is process.argv; its last entries are the kernel's last ones (Node's own flags come first).
 */
export function checkArgumentsAreUtf8(argv: readonly string[], cmdline?: Buffer[]): void {
  // Without a U+FFFD, every byte was UTF-8: /proc is read (~1 ms) only when one may not have been.
  if (!cmdline && !argv.some((arg) => arg.includes("\uFFFD"))) return;
  cmdline ??= readCmdline();
  if (!cmdline) return;
  const userArgs = cmdline.slice(-(argv.length - 2));
  if (argv.length <= 2 || userArgs.length !== argv.length - 2) return;
  userArgs.forEach((arg, index) => {
    if (isUtf8(arg)) return;
    throw AppError.invalid(`argument ${index + 1} (${shown(arg)})`, "is not valid UTF-8 text", HOW_TO_FIX);
  });
}

/** Stdin's bytes as text, refused when they are not UTF-8. */
export function stdinText(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  const text = decodeUtf8(bytes);
  const at = text.search(/[\uDC80-\uDCFF]/u);
  throw AppError.invalid(
    "stdin",
    `is not valid UTF-8 text (a byte 0x${text.charCodeAt(at).toString(16).slice(2).toUpperCase()} at character ${at + 1})`,
    HOW_TO_FIX,
  );
}

function readCmdline(): Buffer[] | undefined {
  try {
    const raw = fs.readFileSync("/proc/self/cmdline");
    const parts: Buffer[] = [];
    let start = 0;
    for (let at = raw.indexOf(0); at !== -1; at = raw.indexOf(0, start)) {
      parts.push(raw.subarray(start, at));
      start = at + 1;
    }
    return parts;
  } catch {
    return undefined;
  }
}

/** The argument with its bytes that are not UTF-8 as \xNN. */
function shown(arg: Buffer): string {
  const text = decodeUtf8(arg).replace(/[\uDC80-\uDCFF]/gu, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16).toUpperCase()}`);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}…` : text).replace(/\\\\x/g, "\\x");
}
