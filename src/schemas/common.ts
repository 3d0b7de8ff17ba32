import { z } from "zod";

/** ISO 8601 date-time; an offset is optional (a time without one is read as UTC). */
export const DateTime = z.iso.datetime({ offset: true, local: true });

/**
 * Query-string boolean: `true`/`false`/`1`/`0` as well as real booleans. The default goes on the
 * inner schema, where the OpenAPI document can show it (one outside the conversion is lost there).
 */
export const queryBool = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => {
    if (v === "true" || v === "1" || v === "") return true;
    if (v === "false" || v === "0") return false;
    return v;
  }, schema);

/** Query-string integer: the string "10" as well as the number 10; limits and default go on `schema`, as for queryBool. */
export const queryInt = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : v), schema);

export const ErrorBody = z.object({
  error: z.string().optional(),
  /** The field at fault, for a 400 (an addition to the spec's error body, as is `suggestion`). */
  field: z.string().optional(),
  /** The fix, when there is one. */
  suggestion: z.string().optional(),
  text: z.string().optional(),
  score: z.number().optional(),
});
