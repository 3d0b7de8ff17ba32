import fs from "node:fs";
import path from "node:path";
import type { OutStream } from "./io.js";

/** A log file past this size is moved to `<file>.1` (the one before is dropped): a server logs a line per request. */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

/**
 * `mnemo serve --log-file`: everything written to the run's stderr goes to the file instead, a
 * line at a time with its time (UTC), so `mnemo service status` can say when an error happened.
 * The file is opened for appending, and shared with the service manager, which appends what Node
 * itself writes when the process dies; so a rotation copies the file and empties it in place, rather
 * than renaming it from under the manager. Returns what puts stderr back.
 */
export function logStderrTo(file: string, stderr: OutStream): () => void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let fd = fs.openSync(file, "a", 0o600);
  let size = fs.fstatSync(fd).size;
  let pending = "";
  const original = stderr.write;
  const writeLines = (text: string) => {
    pending += text;
    const end = pending.lastIndexOf("\n");
    if (end === -1) return;
    const stamp = new Date().toISOString();
    const lines = pending
      .slice(0, end)
      .split("\n")
      .map((line) => `${stamp} ${line}\n`)
      .join("");
    pending = pending.slice(end + 1);
    if (size + lines.length > LOG_ROTATE_BYTES) {
      rotate(file, fd);
      size = 0;
    }
    fs.writeSync(fd, lines);
    size += Buffer.byteLength(lines);
  };
  stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    writeLines(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stderr.write;
  return () => {
    if (pending) writeLines("\n");
    stderr.write = original;
    fs.closeSync(fd);
    fd = -1;
  };
}

function rotate(file: string, fd: number): void {
  fs.copyFileSync(file, `${file}.1`);
  fs.ftruncateSync(fd, 0);
}

/** The last `count` lines of a log file (and of the one before it, when this one has fewer). */
export function lastLogLines(file: string, count: number): string[] {
  const lines = [...readLines(`${file}.1`), ...readLines(file)];
  return lines.slice(Math.max(0, lines.length - count));
}

function readLines(file: string): string[] {
  try {
    return fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}
