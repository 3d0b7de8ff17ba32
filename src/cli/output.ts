import { Chalk, type ChalkInstance } from "chalk";
import { isAppError } from "../shared/errors.js";
import { idList } from "./id-list.js";
import type { CliIo } from "./io.js";

/** Everything the CLI prints goes through here: data to stdout, messages and colour to stderr. */
export interface Output {
  readonly json: boolean;
  readonly style: ChalkInstance;
  /** The user's time zone ($TZ), for times shown on their clock; undefined: the system's. */
  readonly timeZone: string | undefined;
  /** Machine-readable result on stdout (with --json). */
  data(value: unknown): void;
  /** Human-readable result lines on stdout. */
  line(text?: string): void;
  table(columns: Column[], rows: Record<string, string>[]): void;
  success(text: string): void;
  /**
   * What a command created: the message on stderr, and the ids on stdout, one a line, when stdout
   * is not a terminal, so `id=$(mnemo remember …)` gets the id.
   */
  created(ids: string[], message: string): void;
  /** The ids alone, as `created` prints them: on stdout, one a line, when stdout is not a terminal. */
  ids(ids: string[]): void;
  notice(text: string): void;
  warn(text: string): void;
  /** A failure on stderr: a line and its suggestion, or with --json the error as JSON. */
  error(error: unknown): void;
}

export interface Column {
  key: string;
  title: string;
  /** The column that shrinks (and truncates) to fit the terminal. */
  flexible?: boolean;
  align?: "left" | "right";
}

export function createOutput(options: { json: boolean; io: CliIo }): Output {
  const { env, stdout, stderr } = options.io;
  const colour = !options.json && !env["NO_COLOR"] && Boolean(stderr.isTTY);
  const style = new Chalk({ level: colour ? 1 : 0 });
  const stdoutStyle = new Chalk({ level: colour && stdout.isTTY ? 1 : 0 });
  const toStderr = (text: string) => stderr.write(`${forTerminal(text, style.level > 0)}\n`);
  const printIds = (ids: string[]) => {
    if (!stdout.isTTY) stdout.write(ids.map((id) => `${id}\n`).join(""));
  };
  return {
    json: options.json,
    style: stdoutStyle,
    timeZone: timeZoneOf(env),
    data: (value) => stdout.write(`${inertJson(JSON.stringify(value, null, 2))}\n`),
    line: (text = "") => stdout.write(`${forTerminal(text, stdoutStyle.level > 0)}\n`),
    table: (columns, rows) =>
      stdout.write(forTerminal(renderTable(columns, rows, stdoutStyle, stdout.columns || 120), stdoutStyle.level > 0)),
    success: (text) => toStderr(`${style.green("✔")} ${text}`),
    created: (ids, message) => {
      toStderr(`${style.green("✔")} ${message}`);
      printIds(ids);
    },
    ids: printIds,
    notice: (text) => toStderr(style.dim(text)),
    warn: (text) => toStderr(`${style.yellow("!")} ${text}`),
    error: (error) => {
      if (options.json) {
        stderr.write(`${inertJson(JSON.stringify(errorBody(error)))}\n`);
      } else if (isAppError(error)) {
        toStderr(`${style.red("✖")} ${error.message}${rejectedIds(error.details)}`);
        if (error.suggestion) toStderr(`  ${style.dim("→")} ${error.suggestion}`);
      } else {
        toStderr(`${style.red("✖")} ${error instanceof Error ? error.message : String(error)}`);
        if (env["MNEMO_DEBUG"] && error instanceof Error) stderr.write(`${error.stack}\n`);
      }
    },
  };
}

/** A failure as --json prints it on stderr: the message, its code, and what the error knows. */
function errorBody(error: unknown): Record<string, unknown> {
  if (!isAppError(error)) return { error: error instanceof Error ? error.message : String(error), code: "internal" };
  return { error: error.message, code: error.code, ...(error.suggestion ? { suggestion: error.suggestion } : {}), ...error.details };
}

/** $TZ when it names a zone Intl knows; otherwise the system's (which is $TZ's reading of it in a process of its own). */
function timeZoneOf(env: NodeJS.ProcessEnv): string | undefined {
  const zone = env["TZ"]?.replace(/^:/, "");
  if (!zone) return undefined;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** `1 conversation`, `2 conversations`, `3,000 conversations`: a count and its noun, plural but for one. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? noun : plural}`;
}

/** The ids a request could not resolve (a bulk move's `rejectedIds`), for the end of its message. */
function rejectedIds(details: Record<string, unknown>): string {
  const ids = details["rejectedIds"];
  return Array.isArray(ids) && ids.length > 0 ? `: ${idList(ids.map(String))}` : "";
}

/**
 * Text as a terminal may show it: stored titles and messages come from exports and other people, and
 * a control sequence in one (`ESC[2J` clears the screen) or a bidi override (U+202E turns what
 * follows around) would act on the user's terminal. With `colour`, the styles chalk writes for the
 * CLI stay (SGR, `ESC[…m`, one of OWN_STYLES); every other escape sequence and control character
 * goes, but for newlines and tabs. A stored `ESC[8m` (concealed) or `ESC[30;40m` (black on black)
 * would hide what follows, up to the shell's prompt, and cannot be told from ours by where it is.
 */
export function forTerminal(text: string, colour = true): string {
  return text
    .replace(/\u001b(?:\[([0-9;]*)m)?/g, (sequence, style?: string) =>
      colour && style !== undefined && OWN_STYLES.has(style) ? sequence : "",
    )
    .replace(/[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
}

/** The SGR parameters of the styles the CLI uses (bold, dim, red, green, yellow, magenta, cyan) and their ends, as chalk writes them. */
const OWN_STYLES = new Set(["1", "2", "22", "31", "32", "33", "35", "36", "39"]);

/**
 * JSON with the characters JSON.stringify leaves raw but a terminal acts on, as `\u` escapes: C1
 * controls (U+009B starts a sequence as ESC[ does in xterm) and the direction overrides and isolates,
 * which a terminal with bidi support (VTE, Konsole) applies to what follows. The same JSON to a parser.
 */
export function inertJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Pads columns to their widest cell; the flexible column gives way so lines fit the terminal. */
export function renderTable(columns: Column[], rows: Record<string, string>[], style: ChalkInstance, width: number): string {
  if (rows.length === 0) return "";
  const widths = columns.map((column) => Math.max(column.title.length, ...rows.map((row) => visible(row[column.key] ?? "").length)));
  const gap = 2;
  const fixed = widths.reduce((sum, w, i) => sum + (columns[i]!.flexible ? 0 : w + gap), 0);
  const flexIndex = columns.findIndex((column) => column.flexible);
  if (flexIndex >= 0) widths[flexIndex] = Math.max(10, Math.min(widths[flexIndex]!, width - fixed - gap));
  const format = (text: string, i: number) => {
    const column = columns[i]!;
    const cell = truncate(text.replace(/\s+/g, " "), widths[i]!);
    const pad = " ".repeat(Math.max(0, widths[i]! - visible(cell).length));
    return column.align === "right" ? pad + cell : cell + pad;
  };
  const header = columns.map((column, i) => style.bold(format(column.title, i))).join(" ".repeat(gap));
  const lines = rows.map((row) => columns.map((column, i) => format(row[column.key] ?? "", i)).join(" ".repeat(gap)));
  return `${[header, ...lines].map((line) => line.trimEnd()).join("\n")}\n`;
}

function visible(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

export function truncate(text: string, max: number): string {
  if (visible(text).length <= max) return text;
  return `${visible(text).slice(0, Math.max(0, max - 1))}…`;
}
