import { z } from "zod";

/**
 * ISO 8601 date-time; an offset is optional (a time without one is read as UTC). Minutes without
 * seconds are read with an offset too (`10:00Z`, `10:00+02:00`), as zod reads them without one
 * (`10:00`) but refused them so.
 */
export const DateTime = z.preprocess(
  (value) => (typeof value === "string" ? withSecondsAndOffsetColon(value) : value),
  z.iso.datetime({ offset: true, local: true }),
);

/**
 * What clients write besides RFC 3339 taken as they mean it: a time without seconds (09:00), and an
 * offset without its colon (+0200, Python's `%z`, moment's `ZZ`).
 */
function withSecondsAndOffsetColon(value: string): string {
  return value
    .replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([+-]\d{2})(\d{2})$/, "$1$2:$3")
    .replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?=(Z|[+-]\d{2}:\d{2})$)/, "$1:00");
}

/** A calendar date (the whole day) or a date-time, to filter by; either must be a real one (not 2026-02-30). */
export const DateFilter = z.union([z.iso.date(), DateTime], { error: "must be an ISO 8601 date (YYYY-MM-DD) or date-time" });

// A check, not a `pattern`: tools/list carries no patterns (clients' regex dialects differ).
export const noControlCharacters = (text: string) => !/\p{Cc}/u.test(text);
export const HAS_CONTROL_CHARACTERS = "must not hold control characters (such as NUL, a tab or a line break)";

/**
 * The characters that turn the direction text is shown in (embeddings, overrides, isolates): in a
 * name, U+202E showed "Work\u202Etxt.sterces" as "Worksecrets.txt", and the rest of a list's line
 * after it backwards. Right-to-left scripts do not need them: a name in Arabic or Hebrew shows as written.
 */
export const noDirectionControls = (text: string) => !/[\u202A-\u202E\u2066-\u2069]/.test(text);
export const HAS_DIRECTION_CONTROLS = "must not hold characters that reverse how the text is shown (U+202A–U+202E, U+2066–U+2069)";

/**
 * The caller's name for itself (spec: "client identifier"), stored with each memory and written in
 * exports: a name, as a bucket's is, so no control character nor direction control either (a line
 * break in it forged a line of a log or a listing that reads it).
 */
export const Source = z
  .string()
  .max(200)
  .refine(noControlCharacters, HAS_CONTROL_CHARACTERS)
  .refine(noDirectionControls, HAS_DIRECTION_CONTROLS)
  .optional();

/**
 * A body that changes something: a field it does not take is refused, named (parse.ts), where it
 * was dropped (a `bucketName` on a store put the memory in General). All take `source`, which the
 * spec's clients send with their requests; only a store keeps it.
 */
export function writeBody<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject({ ...shape, source: Source });
}

/** The longest query a search takes, memories and chat history alike. */
export const MAX_QUERY_CHARS = 4000;
export const QUERY_TOO_LONG = `must be at most ${MAX_QUERY_CHARS} characters`;
/** An id the caller sends back (a memory's, a conversation's, an import's): ours are far shorter. */
export const IdText = z.string().max(200, "must be at most 200 characters");

/**
 * The spellings of a boolean that clients send in a query string: `true`/`false` in any case (Python
 * sends `True`) and `1`/`0` (PHP sends those). Anything else stays a string, which the boolean refuses.
 */
const QUERY_BOOLEANS = new Map([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);

/**
 * Query-string boolean, the same on every endpoint, as well as real booleans. The default goes on the
 * inner schema, where the OpenAPI document can show it (one outside the conversion is lost there).
 */
export const queryBool = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (typeof v === "string" ? (QUERY_BOOLEANS.get(v.toLowerCase()) ?? v) : v), schema);

/**
 * A number written in decimal (`10`, `2.0`, `1e3`). Number() also reads `0x10`, `0b11`, `0o7` and
 * `Infinity`, which no client means as a count: `count=0x10` was answered with 16 memories.
 */
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

/** Query-string integer: the string "10" as well as the number 10; limits and default go on `schema`, as for queryBool. */
export const queryInt = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (typeof v === "string" && DECIMAL.test(v) ? Number(v) : v), schema);

/** The API version (`v`, spec §9) of `GET /api/memory` and `GET /api/buckets`: 1 or 2, the current one by default. */
export const ApiVersion = queryInt(z.union([z.literal(1), z.literal(2)], "must be 1 or 2").default(2));

export const ErrorBody = z.object({
  error: z.string().optional(),
  /** The field at fault, for a 400 (an addition to the spec's error body, as is `suggestion`). */
  field: z.string().optional(),
  /** The fix, when there is one. */
  suggestion: z.string().optional(),
  text: z.string().optional(),
  score: z.number().optional(),
});
