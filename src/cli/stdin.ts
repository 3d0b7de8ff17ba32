import { stdinText } from "./arguments.js";

/** All of stdin as text (for `-` arguments); refused when it is not UTF-8. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return stdinText(Buffer.concat(chunks));
}

/** Whether a command's text arguments are the single `-` that asks for stdin. */
export function asksForStdin(words: readonly string[]): boolean {
  return words.length === 1 && words[0] === "-";
}

/** A command's text: its arguments joined, or all of stdin when they are `-`. */
export async function argumentText(words: readonly string[]): Promise<string> {
  return asksForStdin(words) ? readStdin() : words.join(" ");
}
