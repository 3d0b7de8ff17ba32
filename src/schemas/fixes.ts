/**
 * The fix for a schema's message about one field, for the few whose fix is not plain from the
 * message itself: parseInput gives it as the error's suggestion, which every face shows. Keyed by
 * the field's own name (`query` in `queries[2].query` too) and the message, as "must not be empty"
 * says something else of each field.
 */
const fixes = new Map<string, string>();

const key = (field: string, message: string) => `${field}\n${message}`;

/** Registers `fix` for `message` about a field named `field`, and returns the message, for a schema's check. */
export function withFix(field: string, message: string, fix: string): string {
  fixes.set(key(field, message), fix);
  return message;
}

/** The fix registered for `message` about the field at `path` (a dotted path, e.g. `queries[0].query`). */
export function fixOf(path: string, message: string): string | undefined {
  const field =
    path
      .replace(/\[\d+\]$/, "")
      .split(/[.[\]]/)
      .findLast((part) => part !== "") ?? path;
  return fixes.get(key(field, message));
}
