import type { Hono, MiddlewareHandler } from "hono";
import { raw } from "hono/html";
import type { MnemoService } from "../../core/index.js";
import { AppError, isAppError } from "../../shared/errors.js";
import { localDayBounds } from "../../text/local-time.js";
import { plural } from "../format.js";
import { field, fields, pageParam, readForm } from "../forms.js";
import { localPath, type WebEnv } from "../guard.js";
import { done, pageContext, trashed } from "../page-context.js";
import {
  ConversationPage,
  ConversationsPage,
  FILTER_LABELS,
  MessageItem,
  type ConversationFilters,
  type FilterError,
} from "../views/conversations.js";

const PAGE_SIZE = 50;
/** Messages rendered per piece of a streamed conversation. */
const BATCH = 100;
const MARKER = "<!--mnemo:messages-->";

/** Conversations: the list endpoint's filters and paging; one conversation; pin, exclude, delete. */
export function registerConversations(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/conversations", page, async (c) => {
    const { service } = c.get("session");
    const q = (name: string) => c.req.query(name)?.trim() ?? "";
    const filters: ConversationFilters = {
      platform: q("platform"),
      title: q("title"),
      from: q("from"),
      to: q("to"),
      pinned: q("pinned") === "1",
      importId: q("import"),
    };
    // The list's failure is kept apart, so the page and its platforms are asked for at the same time.
    // Swapped days are refused before the list is asked for: inside the promise, so kept apart too.
    const [info, listed] = await Promise.all([
      service.info(),
      Promise.resolve()
        .then(() =>
          service.conversations.list({
            page: pageParam(q("page"), PAGE_SIZE),
            pageSize: PAGE_SIZE,
            provider: filters.platform || "all",
            ...(filters.title ? { title: filters.title } : {}),
            // The days on the clock the page shows times on, not UTC's (text/local-time.ts).
            ...localDayBounds(filters.from || undefined, filters.to || undefined, undefined),
            ...(filters.pinned ? { pinnedOnly: true } : {}),
            ...(filters.importId ? { importId: filters.importId } : {}),
          }),
        )
        .then(
          (list) => ({ list }),
          (error: unknown) => ({ error }),
        ),
    ]);
    const view = {
      ctx: pageContext(c),
      filters,
      platforms: info.statistics.platforms,
      back: c.req.path + (new URL(c.req.url).search || ""),
    };
    if ("list" in listed) return c.html(<ConversationsPage {...view} list={listed.list} />);
    // A filter the list refuses (a date that is none) is shown at its field, the others kept.
    const invalid = filterError(listed.error, filters);
    if (!invalid) throw listed.error;
    return c.html(<ConversationsPage {...view} list={undefined} invalid={invalid} />, 400);
  });

  web.post("/conversations/bulk", page, async (c) => {
    const { service } = c.get("session");
    const form = await readForm(c);
    const ids = fields(form, "ids");
    if (ids.length === 0) throw AppError.invalid("ids", "Select at least one conversation first");
    const back = localPath(field(form, "back"), "/conversations");
    const action = field(form, "action") ?? "";
    if (action === "delete") return trashed(c, await service.trash.move({ conversationIds: ids }), back);
    const flag = BULK_FLAGS[action];
    if (!flag) throw AppError.invalid("action", `must be one of ${[...Object.keys(BULK_FLAGS), "delete"].join(", ")}`);
    const { count } = await flag.apply(service, ids);
    return done(c, form, `${flag.done} ${plural(count, "conversation")}.`, "/conversations");
  });

  // Streamed: the page up to its messages at once, then the messages in batches, so a conversation
  // of thousands of messages starts arriving (and painting) before the last one is rendered.
  web.get("/conversations/:id", page, async (c) => {
    const conversation = await c.get("session").service.conversations.get(c.req.param("id"));
    const at = c.req.query("at");
    const self = `/conversations/${encodeURIComponent(conversation.id)}`;
    const page = String(await (<ConversationPage ctx={pageContext(c)} conversation={conversation} messages={raw(MARKER)} />).toString());
    const [head = "", tail = ""] = page.split(MARKER);
    const messages = conversation.messages;
    let next = 0;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode(head)),
      pull: async (controller) => {
        if (next >= messages.length) {
          controller.enqueue(encoder.encode(tail));
          return controller.close();
        }
        const batch = messages.slice(next, next + BATCH);
        next += batch.length;
        const items = await Promise.all(
          batch.map((message) => (<MessageItem message={message} self={self} hit={message.id === at} />).toString()),
        );
        controller.enqueue(encoder.encode(items.join("")));
      },
    });
    return c.body(body, 200, { "Content-Type": "text/html; charset=UTF-8" });
  });

  web.post("/conversations/:id/pin", page, async (c) => {
    const form = await readForm(c);
    const pinned = field(form, "pinned") === "true";
    await c.get("session").service.conversations.pin({ ids: [c.req.param("id")], pinned });
    return done(c, form, pinned ? "Pinned." : "Unpinned.", "/conversations");
  });

  web.post("/conversations/:id/exclude", page, async (c) => {
    const form = await readForm(c);
    const excluded = field(form, "excluded") === "true";
    await c.get("session").service.conversations.exclude({ ids: [c.req.param("id")], excluded });
    return done(c, form, excluded ? "Excluded from search, recall and count." : "Included in search again.", "/conversations");
  });

  // Delete is a move to the trash, undone from the message it leaves (or the Trash page for 30 days): no question first.
  web.post("/conversations/:id/delete", page, async (c) => {
    const id = c.req.param("id");
    const moved = await c.get("session").service.trash.move({ conversationIds: [id] });
    return trashed(c, moved, "/conversations", `/conversations/${encodeURIComponent(id)}`);
  });
}

/** The list's bulk actions besides delete: each flag set on every selected conversation. */
const BULK_FLAGS: Record<string, { done: string; apply(service: MnemoService, ids: string[]): Promise<{ count: number }> }> = {
  pin: { done: "Pinned", apply: (service, ids) => service.conversations.pin({ ids, pinned: true }) },
  unpin: { done: "Unpinned", apply: (service, ids) => service.conversations.pin({ ids, pinned: false }) },
  exclude: {
    done: "Excluded from search, recall and count:",
    apply: (service, ids) => service.conversations.exclude({ ids, excluded: true }),
  },
  include: { done: "Included in search again:", apply: (service, ids) => service.conversations.exclude({ ids, excluded: false }) },
};

/** The list's fields as the filter form names them. */
const FILTER_FIELDS: Record<string, keyof ConversationFilters | "page"> = {
  dateFrom: "from",
  dateTo: "to",
  provider: "platform",
  title: "title",
  importId: "importId",
  page: "page",
};

/** A refused filter as the form shows it: which field, and why in the page's words. */
function filterError(error: unknown, filters: ConversationFilters): FilterError | undefined {
  if (!isAppError(error) || error.code !== "invalid_input") return undefined;
  const name = FILTER_FIELDS[String(error.details["field"])];
  if (!name) return undefined;
  const problem = String(error.details["problem"] ?? error.message);
  const given = name === "page" || name === "pinned" ? "" : String(filters[name]);
  // A problem that quotes the value already ("2026-01-01 is after the range's end…") is not given it twice.
  const value = given && !problem.includes(given) ? `, not “${given}”` : "";
  return { field: name, message: `${FILTER_LABELS[name]}: ${problem}${value}` };
}
