/**
 * The web app at `/` of `mnemo serve`: server-rendered pages (Hono JSX) over the same MnemoService
 * the API's handlers call, plus one small script of our own for what a form cannot do (an upload's
 * progress, copying, "select all"). Signed in by a session cookie, never by the token in a URL.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { App } from "../core/index.js";
import type { RouteTemplate } from "../http/allowed-methods.js";
import type { HttpEnv } from "../http/server.js";
import { loggable } from "../http/loggable.js";
import { AppError } from "../shared/errors.js";
import { serveAsset } from "./assets.js";
import { checkUrlEncoding } from "../http/request-input.js";
import { bodyLimits } from "./body-limits.js";
import { webErrorHandler } from "./errors.js";
import { securityHeaders, signedIn, type WebEnv } from "./guard.js";
import { registerAuth } from "./routes/auth.js";
import { registerBackup } from "./routes/backup.js";
import { registerBuckets } from "./routes/buckets.js";
import { registerConversations } from "./routes/conversations.js";
import { registerMemories } from "./routes/memories.js";
import { registerSearch } from "./routes/search.js";
import { registerImportAndSettings } from "./routes/settings.js";
import { registerTrash } from "./routes/trash.js";
import { Sessions } from "./sessions.js";

export interface WebApp {
  /** Adds the app's routes to the server (HttpOptions.mount), returning them. */
  mount(http: Hono<HttpEnv>): RouteTemplate[];
  /** A one-time sign-in link's path for `userName` (what `mnemo ui` opens). */
  loginPath(userName: string): string;
}

/**
 * An address a browser opens that is no page (a typo, an old bookmark): the app's "Not found"
 * page, under its menu, where the API's JSON would read as a broken app. The API's paths and
 * clients that do not ask for HTML fall through to the API's answer.
 */
function notAPage(page: MiddlewareHandler<WebEnv>): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const api = c.req.path.startsWith("/api/") || c.req.path === "/mcp";
    if (api || !c.req.header("accept")?.includes("text/html")) return next();
    return page(c, async () => {
      throw new AppError("not_found", `There is no page at ${loggable(c.req.path)}`, {
        suggestion: "The menu above leads to every page of the app.",
      });
    });
  };
}

/**
 * The app's routes as OPTIONS and 405 name them, read from its router, so a page added is named
 * without a list to keep: middleware (every method) and the catch-all "no page" are not routes.
 */
function pageRoutes(web: Hono<WebEnv>): RouteTemplate[] {
  return web.routes
    .filter(({ method, path }) => method !== "ALL" && !path.includes("*"))
    .map(({ method, path }) => ({ method, path: path.replace(/:(\w+)/g, "{$1}") }));
}

export function createWebApp(app: App, options: { log: (line: string) => void }): WebApp {
  const sessions = new Sessions(app);
  const web = new Hono<WebEnv>({ strict: false });
  web.onError(webErrorHandler(options.log));
  // Every request of the app's, before anything reads it: its body's size, and a query or path
  // whose escapes are not UTF-8, refused as the API refuses it (not searched as "%FF"). Mounted
  // beside the API, these see its unknown paths too, which keep the API's answers.
  web.use("*", async (c, next) => {
    if (c.req.path.startsWith("/api/") || c.req.path === "/mcp") return next();
    checkUrlEncoding(c.req.url, "");
    return bodyLimits(c, next);
  });
  const page = every(securityHeaders, signedIn(sessions));

  web.get("/assets/:name", serveAsset);
  web.get("/favicon.ico", (c) => c.body(null, 204));
  registerAuth(web, app, sessions);
  web.get("/", page, (c) => c.redirect("/memories", 303));
  registerMemories(web, page);
  registerBuckets(web, page);
  registerConversations(web, page);
  registerSearch(web, page);
  registerImportAndSettings(web, page);
  registerTrash(web, page);
  registerBackup(web, page);
  web.get("*", notAPage(page));

  return {
    mount: (http) => {
      http.route("/", web);
      return pageRoutes(web);
    },
    loginPath: (userName) => `/auth?code=${sessions.issueCode(userName)}`,
  };
}
