import type { Context } from "hono";
import type { MoveToTrashResponse } from "../schemas/trash.js";
import { AppError } from "../shared/errors.js";
import { countedItems } from "./format.js";
import { field, type Form } from "./forms.js";
import { localPath, type WebEnv } from "./guard.js";
import type { PageContext } from "./views/layout.js";

/** What the layout needs of the session; the flash message is shown once. */
export function pageContext(c: Context<WebEnv>): PageContext {
  const session = c.get("session");
  const flash = session.flash;
  session.flash = undefined;
  return { userName: session.user.name, csrf: session.csrf, flash };
}

/**
 * After a move to the trash: to `to`, which says what went and offers to undo it (back to `undoTo`).
 * Nothing moved (deleted meanwhile, in another tab) is said as not found.
 */
export function trashed(c: Context<WebEnv>, moved: MoveToTrashResponse, to: string, undoTo = to): Response {
  if (moved.items.length === 0) throw new AppError("not_found", "Nothing was moved to the trash: it was deleted already");
  c.get("session").flash = {
    kind: "success",
    text: `Moved ${countedItems(moved.items)} to the trash.`,
    undo: { ids: moved.items.map((item) => item.id), back: undoTo },
  };
  return c.redirect(to, 303);
}

/**
 * After an action: back to the page it came from (its `back` field), which shows what was done;
 * with `at`, to the item of that id on it, which shows the message (an edit far down a list had
 * been answered at the top of the page).
 */
export function done(c: Context<WebEnv>, form: Form, message: string, fallback = "/memories", at?: string): Response {
  c.get("session").flash = { kind: "success", text: message, at };
  const back = localPath(field(form, "back"), fallback).replace(/#.*$/, "");
  return c.redirect(at === undefined ? back : `${back}#${at}`, 303);
}
