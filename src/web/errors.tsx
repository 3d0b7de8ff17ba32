import type { Context } from "hono";
import { statusOf } from "../http/error-response.js";
import { loggable } from "../http/loggable.js";
import { clientGoneLine } from "../http/request-input.js";
import { AppError, isAppError } from "../shared/errors.js";
import { shownId } from "../text/cut-text.js";
import { type Form, field, readForm } from "./forms.js";
import { localPath, type WebEnv } from "./guard.js";
import { ErrorPage } from "./views/error.js";

/**
 * The fix for a person in the browser when something named is not found, by the field that named
 * it: the core's suggestion names a CLI command and an endpoint, which mean nothing on a page.
 */
const FIXES: Record<string, string> = {
  memoryId: "It may have been deleted (in another tab?): what is deleted here waits 30 days in the Trash, where Restore puts it back.",
  memoryIds: "Some may have been deleted: reload Memories and select again.",
  bucketId: "It may have been deleted: Buckets lists what is there.",
  conversationId:
    "It may have been deleted (in another tab?): what is deleted here waits 30 days in the Trash; or find it under Conversations, or with Search.",
};

/**
 * The API's names of fields the pages label otherwise: "data: is not a PNG…" is about the file in
 * the Image field (the API takes it base64 as `data`).
 */
const LABELS: Record<string, string> = {
  data: "Image",
  image: "Image",
  text: "Text",
  name: "Name",
  description: "Description",
  bucketId: "Bucket",
  bucketName: "Bucket",
  maxTokens: "Max tokens",
  limit: "Results",
  dateFrom: "From",
  dateTo: "To",
  importId: "Import id",
  provider: "Platform",
  size: "Export file",
};

/** An invalid field's message with the label the page shows it under. */
function messageFor(error: AppError): string {
  const { field } = error.details;
  const label = typeof field === "string" ? LABELS[field] : undefined;
  if (!label || !error.message.startsWith(`${field}: `)) return error.message;
  return `${label}: ${error.message.slice(`${field}: `.length)}`;
}

function suggestionFor(error: AppError): string | undefined {
  const field = error.details["field"];
  const fix = error.code === "not_found" && typeof field === "string" ? FIXES[field] : undefined;
  return fix ?? error.suggestion;
}

/**
 * The one place the web app turns an error into an answer. A script's request gets the API's
 * `{ error }` body; a form's action goes back to the page it came from with the message shown
 * there (what was typed is in the message, nothing is stored); a page shows an error page. An
 * error that is not an AppError is logged and shown as a plain "internal error".
 */
export function webErrorHandler(log: (line: string) => void) {
  return async (error: Error, c: Context<WebEnv>): Promise<Response> => {
    const known = isAppError(error) ? (malformedPageId(error, c) ?? error) : undefined;
    const path = loggable(c.req.path);
    if (!known) log(`internal error on ${c.req.method} ${path}: ${error.stack ?? error.message}`);
    else {
      const gone = clientGoneLine(known, c.req.method, path);
      if (gone) log(gone);
    }
    const status = known ? statusOf(known.code) : 500;
    const message = known ? messageFor(known) : "Internal error: see the server's log";
    const suggestion = known ? suggestionFor(known) : undefined;
    if (c.req.header("x-requested-with") === "mnemo") return c.json({ error: message, ...(suggestion ? { suggestion } : {}) }, status);
    const session = c.get("session");
    if (c.req.method === "POST" && session && status !== 401) {
      const form: Form = await readForm(c).catch(() => ({}));
      const typed = { action: c.req.path, fields: typedFields(form), field: formField(known) };
      session.flash = { kind: "error", text: suggestion ? `${message}. ${suggestion}` : message, typed };
      const back = field(form, "back");
      // The request's own path as the URL parser serialises it: a decoded one may hold a line break.
      return c.redirect(localPath(back, localPath(new URL(c.req.url).pathname, "/memories")), 303);
    }
    if (status === 401) return c.redirect("/login", 303);
    const ctx = session ? { userName: session.user.name, csrf: session.csrf } : undefined;
    return c.html(<ErrorPage status={status} message={message} suggestion={suggestion} ctx={ctx} />, status);
  };
}

/** What a page's URL names by its `:id`, by the field the core checks it as, and the page that lists those. */
const PAGE_IDS: Record<string, { thing: string; list: string }> = {
  memoryId: { thing: "memory", list: "Memories" },
  conversationId: { thing: "conversation", list: "Conversations" },
  bucketId: { thing: "bucket", list: "Buckets" },
};

/**
 * A page's URL whose id is no id ("/memories/%%%/history"): nothing has it, so the page says so as it
 * does for an id that is well formed but unknown, naming it, where it said "Something went wrong".
 */
function malformedPageId(error: AppError, c: Context<WebEnv>): AppError | undefined {
  const { field, problem } = error.details;
  const id = c.req.method === "GET" && error.code === "invalid_input" ? c.req.param("id") : undefined;
  const named = typeof field === "string" ? PAGE_IDS[field] : undefined;
  if (id === undefined || !named || typeof problem !== "string") return undefined;
  return new AppError("not_found", `${named.thing} ${shownId(id)} not found: the address's id ${problem}`, {
    suggestion: `Check the address, or open it from ${named.list}.`,
  });
}

/** The form field a refused input names: the API's name, but for an image, which the API takes base64 as `data`. */
function formField(error: AppError | undefined): string | undefined {
  const field = error?.details["field"];
  if (typeof field !== "string") return undefined;
  return field === "data" ? "image" : field;
}

/** A form's text fields, without the CSRF token: what the user typed. */
function typedFields(form: Form): Record<string, string> {
  const typed: Record<string, string> = {};
  for (const [name, value] of Object.entries(form)) if (typeof value === "string" && name !== "_csrf") typed[name] = value;
  return typed;
}
