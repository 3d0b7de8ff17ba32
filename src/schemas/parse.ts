import type { z } from "zod";
import { AppError } from "../core/errors.js";

/** Validates input against a schema; the first problem becomes an AppError naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = formatPath([...(root ? [root] : []), ...issue.path]) || "body";
  return fail(field, describe(issue));
}

function fail(field: string, problem: string): never {
  throw AppError.invalid(field, problem);
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && issue.input === undefined) return "is required";
  if (issue.code === "unrecognized_keys") return `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  return issue.message.replace(/^Invalid input: /, "");
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === "number") return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, "");
}
