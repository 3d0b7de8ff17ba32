import type { z } from "zod";
import { AppError } from "../shared/errors.js";
import "./messages.js";

/** Validates input against a schema; the first problem becomes an AppError naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = formatPath([...(root ? [root] : []), ...issue.path]) || "body";
  throw AppError.invalid(field, issue.message);
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === "number") return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, "");
}
