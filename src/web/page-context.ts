import type { Context } from "hono";
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

/** After an action: back to the page it came from (its `back` field), which shows what was done. */
export function done(c: Context<WebEnv>, form: Form, message: string, fallback = "/memories"): Response {
  c.get("session").flash = { kind: "success", text: message };
  return c.redirect(localPath(field(form, "back"), fallback), 303);
}
