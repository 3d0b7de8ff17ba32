import type { Hono, MiddlewareHandler } from "hono";
import type { MemoryObject } from "../../schemas/memories.js";
import { AppError } from "../../shared/errors.js";
import { datedWithinLimit } from "../../schemas/dated-text.js";
import { withDate } from "../../text/memory-date.js";
import { plural } from "../format.js";
import { field, fields, fileField, numberField, pageParam, rawField, readForm } from "../forms.js";
import { localPath, type WebEnv } from "../guard.js";
import { done, pageContext, trashed } from "../page-context.js";
import { HistoryPage, MemoriesPage, memoryAnchor } from "../views/memories.js";

const PAGE_SIZE = 50;

/** Memories: by bucket, newest first, or the hybrid query's hits; add, edit, move, delete; history. */
export function registerMemories(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/memories", page, async (c) => {
    const { service } = c.get("session");
    const bucketId = numberField(c.req.query("bucket"), "bucketId");
    const query = c.req.query("q")?.trim() ?? "";
    const pageNumber = pageParam(c.req.query("page"), PAGE_SIZE);
    const result = await service.memories.listV2({
      includeIds: true,
      count: PAGE_SIZE,
      skip: query ? 0 : (pageNumber - 1) * PAGE_SIZE,
      ...(bucketId !== undefined ? { bucketId } : {}),
      ...(query ? { query } : {}),
    });
    const shown = result.buckets.filter((bucket) => bucketId === undefined || Number(bucket.id) === bucketId);
    return c.html(
      <MemoriesPage
        ctx={pageContext(c)}
        memories={result.memories as MemoryObject[]}
        buckets={result.buckets}
        bucketId={bucketId}
        query={query}
        page={pageNumber}
        pageSize={PAGE_SIZE}
        total={query ? undefined : shown.reduce((sum, bucket) => sum + bucket.memoryCount, 0)}
        back={c.req.path + (new URL(c.req.url).search || "")}
      />,
    );
  });

  web.post("/memories", page, async (c) => {
    const session = c.get("session");
    const form = await readForm(c);
    const bucketId = numberField(field(form, "bucketId"), "bucketId");
    // Dated as `mnemo remember` dates it, unless unticked (text/memory-date.ts); an empty text stays empty, for the core to refuse.
    const text = rawField(form, "text") ?? "";
    const dated = field(form, "date") === "1" ? datedWithinLimit(text, withDate(text), "untick “Start it with today's date”") : text;
    await session.service.memories.store({ text: dated, ...(bucketId !== undefined ? { bucketId } : {}) });
    return done(c, form, "Memory added.");
  });

  web.post("/memories/image", page, async (c) => {
    const session = c.get("session");
    const form = await readForm(c);
    const image = fileField(form, "image");
    if (!image) throw nothingChosen("image", "Choose an image file first");
    const bucketId = numberField(field(form, "bucketId"), "bucketId");
    const description = field(form, "description");
    await session.service.memories.storeImage({
      data: Buffer.from(await image.arrayBuffer()).toString("base64"),
      filename: image.name,
      ...(description ? { description } : {}),
      ...(bucketId !== undefined ? { bucketId } : {}),
    });
    return done(c, form, "Image memory added.");
  });

  web.post("/memories/:id/edit", page, async (c) => {
    const session = c.get("session");
    const form = await readForm(c);
    const bucketId = numberField(field(form, "bucketId"), "bucketId");
    const text = rawField(form, "text");
    const result = await session.service.memories.update({
      memoryId: c.req.param("id"),
      ...(text !== undefined ? { text } : {}),
      ...(bucketId !== undefined ? { bucketId } : {}),
    });
    const saved = "memory" in result ? `Saved (version ${result.memory.version}).` : "Saved.";
    return done(c, form, saved, "/memories", memoryAnchor(c.req.param("id")));
  });

  web.post("/memories/bulk", page, async (c) => {
    const session = c.get("session");
    const form = await readForm(c);
    const ids = fields(form, "ids");
    if (ids.length === 0) throw nothingChosen("ids", "Select at least one memory first");
    const back = localPath(field(form, "back"), "/memories");
    if (field(form, "action") === "delete") return trashed(c, await session.service.trash.move({ memoryIds: ids }), back);
    const bucketId = numberField(field(form, "bucketId"), "bucketId");
    const result = await session.service.memories.update({ memoryIds: ids, ...(bucketId !== undefined ? { bucketId } : {}) });
    return done(c, form, "updated" in result ? `Moved ${plural(result.updated, "memory", "memories")}.` : "Moved.");
  });

  // Delete is a move to the trash, undone from the message it leaves (or the Trash page for 30 days): no question first.
  web.post("/memories/delete", page, async (c) => {
    const form = await readForm(c);
    const ids = fields(form, "ids");
    if (ids.length === 0) throw nothingChosen("ids", "Select at least one memory first");
    return trashed(c, await c.get("session").service.trash.move({ memoryIds: ids }), localPath(field(form, "back"), "/memories"));
  });

  web.get("/memories/:id/history", page, async (c) => {
    const { service } = c.get("session");
    const history = await service.memories.history(c.req.param("id"));
    return c.html(<HistoryPage ctx={pageContext(c)} history={history} />);
  });
}

/** A form sent without its choice: said as a sentence, without the form field's name ("ids: …") that the page does not show. */
function nothingChosen(field: string, message: string): AppError {
  return new AppError("invalid_input", message, { details: { field } });
}
