import type { z } from "zod";
import { AppError } from "../shared/errors.js";
import { shownId } from "../text/cut-text.js";
import { fixOf } from "./fixes.js";
import "./messages.js";

/** Validates input against a schema; the first problem becomes an AppError naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.output<S> {
  checkWellFormed(value, root);
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  // An unknown field first: a misspelt `txt` also makes `text` missing, and the name explains both.
  const unknown = result.error.issues.find((found) => found.code === "unrecognized_keys");
  if (unknown?.code === "unrecognized_keys") throw unknownFields(schema, unknown, value, root);
  const issue = result.error.issues.find((found) => !isSafeIntegerBound(found)) ?? result.error.issues[0]!;
  const field = formatPath([...(root ? [root] : []), ...issue.path]) || "body";
  const error = AppError.invalid(field, issue.message, fixOf(field, issue.message));
  // What was given, when it is a word: a face names it as its user typed it (the CLI's "mem_x is not a memory id").
  if (typeof issue.input === "string" && issue.input.length <= MAX_SHOWN_INPUT) error.details["input"] = issue.input;
  throw error;
}

const MAX_SHOWN_INPUT = 100;

/**
 * Fields a request's strict schema does not take (schemas/*.ts: every small body), named, with the
 * fields it takes: ignored, `bucketName` on a store put the memory in General, and the caller believed
 * it was in its bucket. The fix: one registered for the name (withFix), or the field it misspells.
 */
function unknownFields(schema: z.ZodType, issue: z.core.$ZodIssueUnrecognizedKeys, value: unknown, root: string | undefined): AppError {
  const names = issue.keys.slice(0, MAX_NAMED_FIELDS).map((name) => shownId(name));
  const more = issue.keys.length - names.length;
  const field = formatPath([...(root ? [root] : []), ...issue.path, `${names.join(", ")}${more > 0 ? ` and ${more} more` : ""}`]);
  const taken = issue.path.length === 0 && "shape" in schema ? Object.keys(schema.shape as object) : [];
  const problem = notTaken(issue.keys.length, taken);
  // Not "send memoryId as memoryIds" to a body that sends memoryIds already.
  const sent = (name: string) => Object.hasOwn(value as object, name);
  const alike = issue.keys
    .slice(0, MAX_NAMED_FIELDS)
    .map((name) => [name, taken.find((known) => sameLetters(known, name) && !sent(known))] as const)
    .filter(([, known]) => known);
  const fix =
    fixOf(field, problem) ??
    (alike.length > 0 ? `Send ${alike.map(([name, known]) => `${shownId(name)} as ${known}`).join(", ")}.` : undefined);
  return AppError.invalid(field, problem, fix);
}

/** The words for `count` fields a request does not take, where it takes `taken` (the store's registers a fix for them). */
export function notTaken(count: number, taken: string[]): string {
  return `${count === 1 ? "is not a field" : "are not fields"} of this request${taken.length > 0 ? `, which takes ${taken.join(", ")}` : ""}`;
}

/** How many unknown fields an error names: a body with thousands needs to hear of a few. */
const MAX_NAMED_FIELDS = 5;

/** The same name but for case, separators and a plural's s (`bucket_id`, `memoryid`, `id` for `ids`). */
function sameLetters(known: string, given: string): boolean {
  const [a, b] = [known, given].map((name) => name.replace(/[-_\s]/g, "").toLowerCase());
  return a === b || a === `${b}s` || `${a}s` === b;
}

/**
 * zod 4 bounds every int to the safe-integer range before the schema's own bounds, so `limit: 1e308`
 * was told "expected int to be <=9007199254740991" instead of "must be 1 to 100".
 */
function isSafeIntegerBound(issue: z.core.$ZodIssue): boolean {
  return (issue.code === "too_big" || issue.code === "too_small") && issue.origin === "int";
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === "number") return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, "");
}

/**
 * No request of the API has a field of this name, and an object built from it by assignment (a
 * streamed upload, core/chat-history/upload-reader.ts) changes its prototype: a streamed upload
 * refused it where the same body sent with its length was taken (JSON.parse keeps it a plain key).
 */
export const HAS_PROTO = 'has a field named "__proto__"';

export const NOT_UNICODE = "is not valid Unicode text: it holds bytes that are not UTF-8, or a lone surrogate (\\uD800–\\uDFFF)";

interface Container {
  value: object;
  key: PropertyKey | undefined;
  parent: Container | undefined;
}

/**
 * Every input's text, checked once, here: all of it (fields a schema ignores too), and names as
 * well as values. A lone surrogate comes as a JSON escape ("\\ud800"), or from bytes that are not
 * UTF-8, which the faces decode to lone surrogates for this check to find (text/utf8.ts). A loop,
 * not recursion: JSON.parse takes arrays nested a million deep, and a recursive walk overflows at
 * 10,000. A field named `__proto__` is refused here too (HAS_PROTO).
 */
function checkWellFormed(input: unknown, root: string | undefined): void {
  const top: Container = { value: [input], key: undefined, parent: undefined };
  const pending: Container[] = [top];
  for (let container = pending.pop(); container; container = pending.pop()) {
    const entries: [PropertyKey, unknown][] = Array.isArray(container.value)
      ? container.value.map((item, index) => [index, item])
      : Object.entries(container.value);
    for (const [key, value] of entries) {
      if (typeof key === "string" && !key.isWellFormed())
        throw AppError.invalid(fieldOf(container, root), `has a field name that ${NOT_UNICODE}`);
      if (key === "__proto__") throw AppError.invalid(fieldOf(container, root), HAS_PROTO);
      if (typeof value === "string" && !value.isWellFormed())
        throw AppError.invalid(fieldOf({ value: [], key, parent: container }, root), NOT_UNICODE);
      if (typeof value === "object" && value !== null) pending.push({ value, key, parent: container });
    }
  }
}

/** How deep a field's path is shown in an error: past that, a path is noise. */
const MAX_SHOWN_DEPTH = 16;

/** The dotted path of a container (the top one, around the input, has no key). */
function fieldOf(container: Container, root: string | undefined): string {
  const path: PropertyKey[] = [];
  for (let at: Container | undefined = container; at?.parent; at = at.parent) path.push(at.key!);
  path.pop(); // the input's index in the top container
  path.reverse();
  const shown = path.length > MAX_SHOWN_DEPTH ? [...path.slice(0, MAX_SHOWN_DEPTH), "…"] : path;
  return formatPath([...(root ? [root] : []), ...shown]) || "body";
}
