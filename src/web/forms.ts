import type { Context } from "hono";

/** A form as posted: each field's values (a checkbox list repeats its name). */
export type Form = Record<string, string | File | (string | File)[]>;

/** The body of a form post, parsed once (Hono keeps it: the CSRF check and the handler read the same one). */
export async function readForm(c: Context): Promise<Form> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")) return {};
  return (await c.req.parseBody({ all: true })) as Form;
}

/** A text field's value, trimmed; undefined when absent or empty. */
export function field(form: Form, name: string): string | undefined {
  const value = form[name];
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== "string") return undefined;
  const trimmed = first.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A text field exactly as typed (a memory's text keeps its line breaks and spaces). */
export function rawField(form: Form, name: string): string | undefined {
  const value = form[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : undefined;
}

/** Every value of a repeated field (the ticked checkboxes). */
export function fields(form: Form, name: string): string[] {
  const value = form[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((item): item is string => typeof item === "string" && item !== "");
}

export function fileField(form: Form, name: string): File | undefined {
  const value = form[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first instanceof File && first.size > 0 ? first : undefined;
}

/** A whole number from a field or query parameter, or undefined (the core names a bad one). */
export function numberField(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  return /^\d+$/.test(value) ? Number(value) : Number.NaN;
}
