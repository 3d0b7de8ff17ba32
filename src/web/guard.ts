import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../shared/errors.js";
import { field, readForm } from "./forms.js";
import { csrfMatches, type Sessions, type WebSession } from "./sessions.js";

export type WebEnv = { Variables: { session: WebSession } };

/**
 * What every page of the app is served with: its own script and style only (no inline script, so an
 * injected `<script>` or `onerror=` would not run even if one got through), never framed, no
 * referrer, and not cached (it shows private data).
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with our own forms.
  c.header("Referrer-Policy", "same-origin");
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
};

/**
 * The session cookie's name carries the port: browsers share cookies between the ports of one
 * host, and two servers on one machine must not sign each other's browsers out.
 */
export function cookieName(c: Context): string {
  const port = new URL(c.req.url).port || "80";
  return `mnemo_session_${port}`;
}

/**
 * A page or action of a signed-in user. Without a session, a page sends the browser to the login
 * page (and back afterwards); a script's request gets 401. A request that changes something must
 * come from our own pages: its Origin (when the browser sends one) is this server, and it carries
 * the session's CSRF token, as a form field or an X-CSRF-Token header. The cookie is also
 * SameSite=Strict, so another site cannot make the browser send it at all.
 */
export function signedIn(sessions: Sessions): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const session = await sessions.get(getCookie(c, cookieName(c)));
    const changes = c.req.method !== "GET" && c.req.method !== "HEAD";
    if (!session) {
      if (changes || c.req.header("x-requested-with") === "mnemo") {
        throw new AppError("unauthorized", "You are signed out: sign in again", { suggestion: "Reload the page." });
      }
      const next = c.req.path + (new URL(c.req.url).search || "");
      return c.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
    }
    if (changes) {
      checkOrigin(c);
      // A form that cannot be read (too large, not Unicode, malformed) is said on the page it came
      // from, as any refused form is: the session is known, and nothing was changed.
      const given =
        c.req.header("x-csrf-token") ??
        (await formField(c, "_csrf").catch((error: unknown) => {
          c.set("session", session);
          throw error;
        }));
      if (!csrfMatches(session, given)) {
        throw new AppError("forbidden", "This form has expired: go back, reload the page and try again");
      }
    }
    c.set("session", session);
    await next();
  };
}

/** A browser's request that changes something comes from a page of this server, or it is refused. */
export function checkOrigin(c: Context): void {
  const origin = c.req.header("origin");
  if (origin === undefined) return; // not a browser (every browser sends it on a POST)
  const host = c.req.header("host");
  let sameHost = false;
  try {
    sameHost = new URL(origin).host === host;
  } catch {
    sameHost = false;
  }
  if (!sameHost) throw new AppError("forbidden", "Refused: this request came from another site");
}

async function formField(c: Context, name: string): Promise<string | undefined> {
  return field(await readForm(c), name);
}

/** A base that no request has: a path resolved against it and still on it is a path of this server. */
const HERE = "http://mnemo.invalid";

/**
 * A path on this server to go back to after an action (a form's `back`, the login's `next`), or
 * `fallback`. Never another site: the value is resolved as a browser resolves a Location, which
 * drops tabs and line breaks and reads `\\` as `/` (so `/\t/evil.example` and `/\\evil.example`
 * are `//evil.example`), and what comes out must be a path on this origin that does not itself
 * start with `//`. A value holding a control character is refused outright: no page of ours sends
 * one, and it must never reach a header. What is returned is the URL parser's own serialisation.
 */
export function localPath(value: unknown, fallback: string): string {
  if (typeof value !== "string" || !value.startsWith("/") || /[\u0000-\u001f\u007f]/.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, HERE);
  } catch {
    return fallback;
  }
  if (url.origin !== HERE || url.pathname.startsWith("//") || url.username || url.password) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
