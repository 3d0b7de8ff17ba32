import { stdinText } from "./arguments.js";
import type { InStream } from "./io.js";

/** All of stdin as text (for `-` arguments); refused when it is not UTF-8. */
export async function readStdin(stdin: InStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return stdinText(Buffer.concat(chunks));
}

/** Whether a command's text arguments are the single `-` that asks for stdin. */
export function asksForStdin(words: readonly string[]): boolean {
  return words.length === 1 && words[0] === "-";
}

/** A command's text: its arguments joined, or all of stdin when they are `-`. */
export async function argumentText(words: readonly string[], stdin: InStream): Promise<string> {
  return asksForStdin(words) ? readStdin(stdin) : words.join(" ");
}
