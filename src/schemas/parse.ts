import type { z } from "zod";
import { AppError } from "../core/errors.js";

/** Validates input against a schema; the first problem becomes an AppError naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.output<S> {
  // Zod leaves the offending value out of its issues unless asked; describe() needs it.
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = formatPath([...(root ? [root] : []), ...issue.path]) || "body";
  return fail(field, describe(issue));
}

function fail(field: string, problem: string): never {
  throw AppError.invalid(field, problem);
}

const EXPECTED: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "an array",
  object: "an object",
};

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return "is required";
    return `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${shown(issue.input)}`;
  }
  if (issue.code === "unrecognized_keys") return `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, not ${shown(issue.input)}`;
  return issue.message.replace(/^Invalid input: /, "");
}

/** The offending value, short: a body may be megabytes, and an error message is one line. */
function shown(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "object") return "an object";
  const text = typeof input === "string" ? JSON.stringify(input) : String(input);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === "number") return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, "");
}
