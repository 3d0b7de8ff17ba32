import { Readable } from "node:stream";
import busboy from "busboy";
import type { Context } from "hono";
import { clientGoneOr } from "../http/request-input.js";
import { NOT_UNICODE } from "../schemas/parse.js";
import { AppError } from "../shared/errors.js";
import { cutText } from "../text/cut-text.js";
import { decodeUtf8 } from "../text/utf8.js";

/** A form as posted: each field's values (a checkbox list repeats its name). */
export type Form = Record<string, string | File | (string | File)[]>;

/** Fields a form of ours may have: a page of 1,000 checkboxes, and its other fields. */
const MAX_FIELDS = 1_100;

const parsed = new WeakMap<Request, Promise<Form>>();

/**
 * The body of a form post, parsed once per request (the CSRF check and the handler read the same
 * one). Text is read as bytes and decoded here, so bytes that are not UTF-8 are refused naming
 * their field, as the API refuses them, instead of being stored as U+FFFD; a malformed body is a 400.
 */
export function readForm(c: Context): Promise<Form> {
  let form = parsed.get(c.req.raw);
  if (!form) {
    form = parseForm(c.req.raw).then(checkText);
    parsed.set(c.req.raw, form);
  }
  return form;
}

function parseForm(request: Request): Promise<Form> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type) || !request.body) return Promise.resolve({});
  const body = request.body;
  return new Promise<Form>((resolve, reject) => {
    const form: Form = {};
    let parser: busboy.Busboy;
    try {
      // Every text as its bytes (latin1 keeps each byte as one character): decoded below, strictly.
      // A charset the request names is dropped: a form of ours is UTF-8.
      parser = busboy({
        headers: { "content-type": type.replace(/;\s*charset=[^;]*/i, "") },
        defCharset: "latin1",
        defParamCharset: "latin1",
        limits: { fields: MAX_FIELDS, parts: MAX_FIELDS + 1, files: 1 },
      });
    } catch {
      return reject(malformed("its Content-Type has no boundary"));
    }
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) return reject(new AppError("payload_too_large", `Field ${textOf(name)} is too long`));
      add(form, textOf(name), textOf(value));
    });
    parser.on("file", (name, stream, info) => {
      // Checked here: a File's name is made well-formed (U+FFFD) by its constructor.
      const filename = textOf(info.filename ?? "");
      if (!filename.isWellFormed()) reject(AppError.invalid(textOf(name), `has a file name that ${NOT_UNICODE}`));
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => add(form, textOf(name), new File(chunks, filename, { type: info.mimeType })));
    });
    parser.on("fieldsLimit", () => reject(malformed(`it has over ${MAX_FIELDS} fields`)));
    parser.on("error", (error: Error) => reject(malformed(error.message)));
    parser.on("close", () => resolve(form));
    const source = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
    source.on("error", (error) => {
      try {
        clientGoneOr(error);
      } catch (gone) {
        reject(gone);
      }
    });
    source.pipe(parser);
  });
}

const textOf = (latin1: string) => decodeUtf8(Buffer.from(latin1, "latin1"));

function add(form: Form, name: string, value: string | File): void {
  const before = form[name];
  form[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
}

function malformed(why: string): AppError {
  return AppError.invalid("body", `is not a well-formed form (${why.replace(/\.$/, "")})`);
}

/** Every name and text value well-formed, or the field named. */
function checkText(form: Form): Form {
  for (const [name, value] of Object.entries(form)) {
    if (!name.isWellFormed()) throw AppError.invalid("body", `has a field name that ${NOT_UNICODE}`);
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === "string" && !item.isWellFormed()) throw AppError.invalid(name, NOT_UNICODE);
    }
  }
  return form;
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

/**
 * A number from a field or query parameter, or undefined when empty; text that is no number is
 * refused naming `name` (`?bucket=abc` had reached the core as NaN: "must be a number, not NaN").
 * "-5" is read as -5, so that the core says "must be at least 1".
 */
export function numberField(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (/^-?\d+(?:\.\d+)?$/.test(value.trim())) return Number(value);
  throw AppError.invalid(name, `must be a number, not ${JSON.stringify(cutText(value, 40))}`);
}

/**
 * The page of a list a link asks for: a whole number from 1, whose items' offset is a safe integer;
 * anything else (a hand-typed `?page=abc`, `-3`, 10^20) is page 1, since no form asks for it.
 */
export function pageParam(value: string | undefined, pageSize: number): number {
  const page = /^\d+$/.test(value?.trim() ?? "") ? Number(value) : 1;
  return page >= 1 && Number.isSafeInteger(page * pageSize) ? page : 1;
}
