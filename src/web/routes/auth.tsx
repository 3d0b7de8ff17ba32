import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { App } from "../../core/index.js";
import { bearerAuth, clientKey, FailureLimiter, type AuthVariables } from "../../http/auth.js";
import { field, readForm } from "../forms.js";
import { checkOrigin, cookieName, localPath, securityHeaders, signedIn, type WebEnv } from "../guard.js";
import type { Sessions, WebSession } from "../sessions.js";
import { LoginPage, SignedInPage } from "../views/login.js";

const HOME = "/memories";

/** Signing in and out: the one-time link `mnemo ui` opens, the login page's token, and the code endpoint `mnemo ui` asks a running server for. */
export function registerAuth(web: Hono<WebEnv>, app: App, sessions: Sessions): void {
  const limiter = new FailureLimiter();
  const address = (c: Context) => clientKey(getConnInfo(c).remote.address ?? "unknown");

  // A refused token is said on a GET of this page (`refused`), where the post redirects: Back from
  // the app after a second try, or a reload, is not a form post the browser offers to send again.
  web.get("/login", securityHeaders, async (c) => {
    const next = localPath(c.req.query("next"), HOME);
    if (await sessions.get(getCookie(c, cookieName(c)))) return c.redirect(next, 303);
    if (c.req.query("refused") === undefined) return c.html(<LoginPage next={next} />);
    const wait = limiter.retryAfter(address(c));
    if (wait > 0) {
      c.header("Retry-After", String(wait));
      return c.html(<LoginPage next={next} error={`Too many wrong tokens: try again in ${wait} seconds.`} />, 429);
    }
    return c.html(
      <LoginPage
        next={next}
        error="That token is not valid. Copy it again from the token file, or make a new one with mnemo token --rotate."
      />,
      401,
    );
  });

  web.post("/login", securityHeaders, async (c) => {
    checkOrigin(c);
    const form = await readForm(c);
    const next = localPath(field(form, "next"), HOME);
    const refused = `/login?${new URLSearchParams({ next, refused: "1" })}`;
    if (limiter.retryAfter(address(c)) > 0) return c.redirect(refused, 303);
    const session = await sessions.signIn(field(form, "token") ?? "");
    if (!session) {
      limiter.fail(address(c));
      return c.redirect(refused, 303);
    }
    startSession(c, session);
    return c.redirect(next, 303);
  });

  // The one-time link: a GET, so the browser `mnemo ui` starts can open it. The code is spent at once.
  web.get("/auth", securityHeaders, async (c) => {
    const session = await sessions.redeem(c.req.query("code") ?? "");
    if (!session) {
      return c.html(
        <LoginPage
          next={HOME}
          error="This sign-in link has expired or was already used. Run mnemo ui again, or sign in with your token."
        />,
        401,
      );
    }
    startSession(c, session);
    // Not a redirect: a page of our own moves on, so the Strict cookie goes with the next request
    // even when the link was opened from another application.
    return c.html(<SignedInPage next={HOME} />);
  });

  // `mnemo ui` with a server already running: the token (from the token file) buys a one-time code.
  const bearer = bearerAuth(app, limiter, (c) => getConnInfo(c).remote.address ?? "unknown");
  web.post("/auth/code", bearer as never, (c) => {
    const user = (c as unknown as Context<{ Variables: AuthVariables }>).get("user");
    const code = sessions.issueCode(user.name);
    return c.json({ code, path: `/auth?code=${code}` });
  });

  web.post("/logout", securityHeaders, signedIn(sessions), (c) => {
    sessions.close(c.get("session").id);
    deleteCookie(c, cookieName(c), { path: "/" });
    return c.redirect("/login", 303);
  });
}

function startSession(c: Context, session: WebSession): void {
  setCookie(c, cookieName(c), session.id, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/",
    secure: new URL(c.req.url).protocol === "https:",
  });
}
