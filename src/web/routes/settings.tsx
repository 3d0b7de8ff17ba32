import type { Hono, MiddlewareHandler } from "hono";
import { bodyStream } from "../../http/request-input.js";
import { field, readForm } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { mcpSnippets } from "../mcp-snippets.js";
import { pageContext } from "../page-context.js";
import { ConfirmPage } from "../views/confirm.js";
import { ImportPage } from "../views/import.js";
import { RecentImports } from "../views/recent-imports.js";
import { SettingsPage } from "../views/settings.js";

/** Import (an upload with progress, through the same importer as `mnemo import`) and Settings → Integrations. */
export function registerImportAndSettings(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/import", page, async (c) => {
    const { jobs } = await c.get("session").service.imports.list();
    return c.html(<ImportPage ctx={pageContext(c)} jobs={jobs} />);
  });

  // The page's script sends the file as the body (X-CSRF-Token header): streamed to the data dir, as the API's upload.
  web.post("/import/upload", page, async (c) => {
    const job = await c.get("session").service.imports.upload(bodyStream(c), c.req.query());
    return c.json(job);
  });

  // The Recent imports section alone, which the page's script puts in place while an import runs.
  web.get("/import/recent", page, async (c) => {
    const { jobs } = await c.get("session").service.imports.list();
    return c.html(<RecentImports jobs={jobs} />);
  });

  web.get("/import/jobs/:id", page, async (c) => c.json(await c.get("session").service.imports.get(c.req.param("id"))));

  web.get("/settings", page, async (c) => {
    const session = c.get("session");
    const info = await session.service.info();
    const token = session.newToken;
    session.newToken = undefined;
    const base = new URL(c.req.url).origin;
    return c.html(<SettingsPage ctx={pageContext(c)} info={info} snippets={mcpSnippets(base, token ?? "<your token>")} newToken={token} />);
  });

  // Asked first, at a GET address: Back after the answer returns to the question, not to a post to send again.
  web.get("/settings/token", page, (c) =>
    c.html(
      <ConfirmPage
        ctx={pageContext(c)}
        page="settings"
        title="Make a new API token?"
        message="The new token is shown once. The old one stops working at once: every plugin and script that uses it needs the new one. You stay signed in here."
        action="/settings/token"
        fields={{}}
        confirmLabel="Rotate token"
        back="/settings"
      />,
    ),
  );

  web.post("/settings/token", page, async (c) => {
    const session = c.get("session");
    const form = await readForm(c);
    if (field(form, "confirmed") !== "yes") return c.redirect("/settings/token", 303);
    const { token } = await session.service.token.rotate();
    await session.renew();
    session.newToken = token;
    session.flash = { kind: "success", text: "New token made. The old one no longer works." };
    return c.redirect("/settings#token", 303);
  });
}
