// Text in an export that is not valid Unicode (a title cut in the middle of an emoji leaves half of
// it, a lone surrogate; bytes that are not UTF-8) is the user's own data: it is repaired to U+FFFD
// and said so, never refused. The API refuses such text (schemas/parse.ts): a client can send it
// again, an export cannot be made again.
import { isUtf8 } from "node:buffer";
import { cutText } from "../text/cut-text.js";

/** What a record held that was not valid Unicode, once repaired. */
export interface Repair {
  /** The fields repaired, as paths into the record (`title`, `mapping.x.message.content.parts[0]`), the first few. */
  fields: string[];
  /** How many strings were repaired in all. */
  count: number;
  /** The first of them as repaired (cut), to show which record it was. */
  text: string;
}

/** A `\uD800`–`\uDFFF` escape: without one in its JSON text, a record holds no lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const SHOWN_FIELDS = 5;
const SHOWN_CHARS = 80;

/**
 * The record parsed from `text` (decoded from `bytes`), with its strings made valid Unicode; the
 * repair, when there was one. Only a record whose bytes are not UTF-8 or whose text escapes a
 * surrogate is walked, so a clean record costs two scans of its text.
 */
export function repairRecord(value: unknown, bytes: Buffer, text: string): { value: unknown; repair: Repair | undefined } {
  const badBytes = !isUtf8(bytes);
  if (!badBytes && !SURROGATE_ESCAPE.test(text)) return { value, repair: undefined };
  const found: Repair = { fields: [], count: 0, text: "" };
  // Bytes that are not UTF-8 were decoded to U+FFFD already: the strings holding one are those repaired.
  const repaired = repairStrings(value, badBytes, found);
  return { value: repaired, repair: found.count > 0 ? found : undefined };
}

interface Pending {
  container: Record<string, unknown> | unknown[];
  path: string;
}

/** Walks the value with a stack, not recursion: JSON.parse takes arrays nested far deeper than the call stack. */
function repairStrings(value: unknown, badBytes: boolean, found: Repair): unknown {
  const top = { value };
  const pending: Pending[] = [{ container: top as Record<string, unknown>, path: "" }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { container, path } = next;
    if (Array.isArray(container)) {
      container.forEach((item, index) => {
        container[index] = visit(item, `${path}[${index}]`, pending, badBytes, found);
      });
      continue;
    }
    for (const key of Object.keys(container)) {
      const at = path === "" ? key : `${path}.${key}`;
      const item = visit(container[key], at, pending, badBytes, found);
      if (key.isWellFormed()) container[key] = item;
      else renameKey(container, key, item, at, found);
    }
  }
  return top.value;
}

function visit(item: unknown, path: string, pending: Pending[], badBytes: boolean, found: Repair): unknown {
  if (typeof item === "string") {
    if (item.isWellFormed() && !(badBytes && item.includes("\uFFFD"))) return item;
    const repaired = item.toWellFormed();
    note(found, path.replace(/^value\.?/, ""), repaired);
    return repaired;
  }
  if (typeof item === "object" && item !== null) pending.push({ container: item as Record<string, unknown>, path });
  return item;
}

/** A field name that is not valid Unicode: the field is kept under the repaired name. */
function renameKey(container: Record<string, unknown>, key: string, item: unknown, path: string, found: Repair): void {
  delete container[key];
  container[key.toWellFormed()] = item;
  note(found, path.replace(/^value\.?/, ""), key.toWellFormed());
}

function note(found: Repair, field: string, text: string): void {
  found.count += 1;
  if (found.fields.length < SHOWN_FIELDS) found.fields.push(field === "" ? "(the record)" : field);
  if (found.text === "") found.text = cutText(text, SHOWN_CHARS);
}
