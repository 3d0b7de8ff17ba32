import { AppError } from "../shared/errors.js";
import { stdinText } from "./arguments.js";
import type { InStream } from "./io.js";

/**
 * The most of stdin a command reads: what it reads is memories' text (at most 20,000 characters
 * each, or one per line with --lines), and far below V8's longest string. Unbounded, `remember - <
 * /dev/zero` grew until it was killed, and 560 MB piped in ended in "Cannot create a string longer
 * than 0x1fffffe8 characters" after taking 1.1 GB.
 */
export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/** All of stdin as text (for `-` arguments); refused when it is not UTF-8 or longer than MAX_STDIN_BYTES. */
export async function readStdin(stdin: InStream, max = MAX_STDIN_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > max) throw stdinTooLong(max);
    chunks.push(bytes);
  }
  return stdinText(Buffer.concat(chunks));
}

function stdinTooLong(max: number): AppError {
  return AppError.invalid(
    "stdin",
    `is over ${max / 1024 / 1024} MB, more than mnemo reads`,
    "A memory holds at most 20,000 characters: pipe in less, or split the file and run `mnemo remember --lines -` on each part.",
  );
}

/** Whether a command's text arguments are the single `-` that asks for stdin. */
export function asksForStdin(words: readonly string[]): boolean {
  return words.length === 1 && words[0] === "-";
}

/** A command's text: its arguments joined, or all of stdin when they are `-`. */
export async function argumentText(words: readonly string[], stdin: InStream): Promise<string> {
  return asksForStdin(words) ? readStdin(stdin) : words.join(" ");
}
