import { z } from "zod";

/** ISO 8601 date-time; an offset is optional (a time without one is read as UTC). */
export const DateTime = z.iso.datetime({ offset: true, local: true });

/** Query-string boolean: `true`/`false`/`1`/`0` as well as real booleans. */
export const QueryBool = z.preprocess((v) => {
  if (v === "true" || v === "1" || v === "") return true;
  if (v === "false" || v === "0") return false;
  return v;
}, z.boolean());

/** Query-string integer: the string "10" as well as the number 10. */
export const QueryInt = z.preprocess(
  (v) => (typeof v === "string" && v.trim() !== "" ? Number(v) : v),
  z.number().int(),
);

export const ErrorBody = z.object({
  error: z.string().optional(),
  text: z.string().optional(),
  score: z.number().optional(),
});
