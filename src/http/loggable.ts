const LONGEST = 300;

/**
 * A request's path as a log line may hold it. The path comes percent-decoded from any client, a web
 * page included: a newline in it would forge a log line, and an escape sequence would act on the
 * terminal `mnemo serve` runs in. Control characters and bidi overrides are written as `\uXXXX`.
 */
export function loggable(path: string): string {
  const cut = path.length > LONGEST ? `${path.slice(0, LONGEST)}…` : path;
  return cut.replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
