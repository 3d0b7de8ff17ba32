import type { Hono, MiddlewareHandler } from "hono";
import { AppError } from "../../shared/errors.js";
import { plural } from "../format.js";
import { field, rawField, readForm } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { done, pageContext } from "../page-context.js";
import { BucketsPage } from "../views/buckets.js";
import { ConfirmPage } from "../views/confirm.js";

/** Buckets: create, rename, delete (its memories go to General, after a confirmation that counts them). */
export function registerBuckets(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/buckets", page, async (c) => {
    const buckets = await c.get("session").service.buckets.list();
    return c.html(<BucketsPage ctx={pageContext(c)} buckets={buckets} />);
  });

  web.post("/buckets", page, async (c) => {
    const form = await readForm(c);
    const description = field(form, "description");
    const result = await c
      .get("session")
      .service.buckets.create({ name: rawField(form, "name") ?? "", ...(description ? { description } : {}) });
    return done(c, form, `Created bucket “${result.bucket.name}”.`, "/buckets");
  });

  web.post("/buckets/:id/rename", page, async (c) => {
    const form = await readForm(c);
    const result = await c.get("session").service.buckets.rename(bucketId(c.req.param("id")), {
      name: rawField(form, "name") ?? "",
      description: rawField(form, "description") ?? "",
    });
    return done(c, form, `Saved bucket “${result.bucket.name}”.`, "/buckets");
  });

  // Asked first (confirmed: the question's own answer), on a page of its own at a GET address: Back
  // after the delete returns to the question, not to a form post the browser offers to send again.
  web.post("/buckets/:id/delete", page, async (c) => {
    const { service } = c.get("session");
    const form = await readForm(c);
    const id = bucketId(c.req.param("id"));
    if (field(form, "confirmed") !== "yes") return c.redirect(`/buckets/${encodeURIComponent(c.req.param("id"))}/delete`, 303);
    const result = await service.buckets.delete(id);
    const moved = result.movedMemories > 0 ? ` ${plural(result.movedMemories, "memory", "memories")} moved to General.` : "";
    return done(c, form, `Bucket deleted.${moved}`, "/buckets");
  });

  web.get("/buckets/:id/delete", page, async (c) => {
    const { service } = c.get("session");
    const id = bucketId(c.req.param("id"));
    const bucket = (await service.buckets.list()).find((b) => Number(b.id) === id);
    if (!bucket) throw new AppError("not_found", `bucket ${id} does not exist`);
    const moving =
      bucket.memoryCount === 0
        ? "It is empty."
        : `Its ${plural(bucket.memoryCount, "memory", "memories")} will move to General; none is deleted.`;
    return c.html(
      <ConfirmPage
        ctx={pageContext(c)}
        page="buckets"
        title={`Delete bucket “${bucket.name}”?`}
        message={moving}
        action={`/buckets/${id}/delete`}
        fields={{}}
        confirmLabel="Delete bucket"
        back="/buckets"
      />,
    );
  });
}

/** The id in the path, as a number when it reads as one; the core names a bad one ("bucketId: must be a number, not "x""). */
function bucketId(raw: string): number {
  return (/^\d+$/.test(raw) ? Number(raw) : raw) as number;
}
