import { z } from "zod";

/**
 * Plain words for zod's issues, set once for the whole process (zod's own read "Too big: expected
 * string to have <=500 characters"). A message a schema sets by hand outranks this map, so those
 * stay as written. Each message follows the field's name: "description: must be at most 500 characters".
 */
export function plainMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${shown(issue.input)}`;
    case "invalid_value": {
      // A missing field of a fixed set of values (a message's `role`) read "must be one of …, not undefined".
      const values = issue.values.map((v) => JSON.stringify(v)).join(", ");
      return issue.input === undefined ? `is required: one of ${values}` : `must be one of ${values}, not ${shown(issue.input)}`;
    }
    case "unrecognized_keys":
      return `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    case "too_big":
      return `must ${sizeVerb(issue.origin)} ${issue.exact ? "exactly" : issue.inclusive ? "at most" : "less than"} ${sized(issue.maximum, issue.origin)}`;
    case "too_small":
      if (issue.origin === "string" && issue.minimum === 1 && !issue.exact) return "must not be empty";
      return `must ${sizeVerb(issue.origin)} ${issue.exact ? "exactly" : issue.inclusive ? "at least" : "more than"} ${sized(issue.minimum, issue.origin)}`;
    case "invalid_format":
      return FORMATS[issue.format] ?? `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "invalid_union":
      return unionOfTypes(issue) ?? "is not valid";
    default:
      return "is not valid";
  }
}

z.config({ customError: plainMessage });

const EXPECTED: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  record: "an object",
};

const FORMATS: Record<string, string> = {
  datetime: "must be an ISO 8601 date-time such as 2024-05-01T10:00:00Z",
  date: "must be an ISO 8601 date such as 2024-05-01",
  url: "must be a URL such as https://example.com",
  regex: "is not in the expected form",
};

const UNITS: Record<string, [one: string, many: string]> = {
  string: ["character", "characters"],
  array: ["item", "items"],
  set: ["item", "items"],
  file: ["byte", "bytes"],
};

/** Lists hold items ("must list at least 1 item"); strings and numbers are ("must be at most 500 characters"). */
function sizeVerb(origin: string): string {
  return origin === "array" || origin === "set" ? "list" : "be";
}

function sized(limit: number | bigint, origin: string): string {
  const unit = UNITS[origin];
  if (!unit) return String(limit);
  return `${String(limit)} ${Number(limit) === 1 ? unit[0] : unit[1]}`;
}

/**
 * A union of plain types (an MCP progress token: a string or a whole number) as the types it takes,
 * where zod said only "Invalid input".
 */
function unionOfTypes(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidUnion>): string | undefined {
  const expected = issue.errors.map((branch) => {
    const [only] = branch;
    return branch.length === 1 && only?.code === "invalid_type" && only.path.length === 0 ? only.expected : undefined;
  });
  if (expected.length === 0 || expected.some((type) => type === undefined)) return undefined;
  const words = [...new Set(expected.map((type) => EXPECTED[type!] ?? type!))];
  return `must be ${words.join(" or ")}, not ${shown(issue.input)}`;
}

/** The offending value, short: a body may be megabytes, and an error message is one line. */
function shown(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "object") return "an object";
  const text = typeof input === "string" ? JSON.stringify(input) : String(input);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
