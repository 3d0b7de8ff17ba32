import type { Hono, MiddlewareHandler } from "hono";
import { TRASH_DAYS } from "../../schemas/trash.js";
import { AppError, isAppError } from "../../shared/errors.js";
import { countedItems, plural } from "../format.js";
import { field, fields, pageParam, readForm } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { done, pageContext } from "../page-context.js";
import { ConfirmPage } from "../views/confirm.js";
import { TrashPage } from "../views/trash.js";

const PAGE_SIZE = 50;

/** The trash (core/trash/): what the app's deletes moved there, put back or deleted for good. */
export function registerTrash(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/trash", page, async (c) => {
    const pageNumber = pageParam(c.req.query("page"), PAGE_SIZE);
    const list = await c.get("session").service.trash.list({ page: pageNumber, pageSize: PAGE_SIZE });
    return c.html(<TrashPage ctx={pageContext(c)} list={list} />);
  });

  // Undo (the message after a delete) and Restore: the entries back where they were.
  web.post("/trash/restore", page, async (c) => {
    const form = await readForm(c);
    const ids = chosen(fields(form, "ids"));
    const result = await c.get("session").service.trash.restore({ ids });
    const back = [...result.restored, ...result.present];
    const text = [
      `Restored ${countedItems(result.restored)}.`,
      result.present.length > 0 ? `${countedItems(result.present)} ${result.present.length === 1 ? "was" : "were"} back already.` : "",
      ...result.problems,
    ];
    return done(c, form, back.length > 0 ? text.filter(Boolean).join(" ") : "Nothing to restore.", "/trash");
  });

  // Deleting for good cannot be undone: asked first, on a page of its own at a GET address (the ids
  // in its query), so Back after the answer returns to the question, not to a post to send again.
  web.post("/trash/delete", page, async (c) => {
    const form = await readForm(c);
    const ids = chosen(fields(form, "ids"));
    if (field(form, "confirmed") !== "yes")
      return c.redirect(`/trash/delete?${new URLSearchParams(ids.map((id): [string, string] => ["ids", id]))}`, 303);
    // Restore says so of what is gone; "Deleted 0 items" read as a failure of the button.
    const result = await c.get("session").service.trash.empty({ ids }).catch(noneInTrash);
    if (!result) return done(c, form, NOTHING_DELETED, "/trash");
    const gone = result.notFound.length;
    const text = `Deleted ${plural(result.deleted, "item")} for good.${gone > 0 ? ` ${plural(gone, "item")} ${gone === 1 ? "was" : "were"} no longer in the trash.` : ""}`;
    return done(c, form, text, "/trash");
  });

  web.get("/trash/delete", page, async (c) => {
    const ids = chosen(c.req.queries("ids") ?? []);
    return c.html(
      <ConfirmPage
        ctx={pageContext(c)}
        page="trash"
        title={ids.length === 1 ? "Delete this for good?" : `Delete these ${ids.length} for good?`}
        message="They are deleted from the trash now, instead of in 30 days. This cannot be undone."
        action="/trash/delete"
        fields={{ ids }}
        confirmLabel="Delete for good"
        back="/trash"
      />,
    );
  });

  web.post("/trash/empty", page, async (c) => {
    const form = await readForm(c);
    if (field(form, "confirmed") !== "yes") return c.redirect("/trash/empty", 303);
    const { deleted } = await c.get("session").service.trash.empty();
    return done(c, form, `The trash is empty: ${plural(deleted, "item")} deleted for good.`, "/trash");
  });

  web.get("/trash/empty", page, async (c) => {
    const { total } = await c.get("session").service.trash.list({ pageSize: 1 });
    return c.html(
      <ConfirmPage
        ctx={pageContext(c)}
        page="trash"
        title="Empty the trash?"
        message={`The ${plural(total, "item")} in the trash will be deleted for good. This cannot be undone.`}
        action="/trash/empty"
        fields={{}}
        confirmLabel="Empty the trash"
        back="/trash"
      />,
    );
  });
}

const NOTHING_DELETED = `Nothing was deleted: none of it is in the trash any more (restored or deleted already, or past its ${TRASH_DAYS} days).`;

/** The core's 404 for ids none of which is in the trash, as no result: the page says so in its own words. */
function noneInTrash(error: unknown): undefined {
  if (isAppError(error) && error.code === "not_found") return undefined;
  throw error;
}

function chosen(ids: string[]): string[] {
  if (ids.length === 0) throw new AppError("invalid_input", "Select at least one item first", { details: { field: "ids" } });
  return ids;
}
