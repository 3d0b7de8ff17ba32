/**
 * The fix for a schema's message, for the few whose fix is not plain from the message itself:
 * parseInput gives it as the error's suggestion, which every face shows.
 */
const fixes = new Map<string, string>();

/** Registers `fix` for `message` and returns the message, for a schema's check to use. */
export function withFix(message: string, fix: string): string {
  fixes.set(message, fix);
  return message;
}

export function fixOf(message: string): string | undefined {
  return fixes.get(message);
}
