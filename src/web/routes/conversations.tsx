import type { Hono, MiddlewareHandler } from "hono";
import { raw } from "hono/html";
import { field, numberField, readForm } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { done, pageContext } from "../page-context.js";
import { ConfirmPage } from "../views/confirm.js";
import { ConversationPage, ConversationsPage, MessageItem, type ConversationFilters } from "../views/conversations.js";

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
    const [list, info] = await Promise.all([
      service.conversations.list({
        page: numberField(q("page")) ?? 1,
        pageSize: PAGE_SIZE,
        provider: filters.platform || "all",
        ...(filters.title ? { title: filters.title } : {}),
        ...(filters.from ? { dateFrom: filters.from } : {}),
        ...(filters.to ? { dateTo: filters.to } : {}),
        ...(filters.pinned ? { pinnedOnly: true } : {}),
        ...(filters.importId ? { importId: filters.importId } : {}),
      }),
      service.info(),
    ]);
    return c.html(<ConversationsPage ctx={pageContext(c)} list={list} filters={filters} platforms={info.statistics.platforms} />);
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

  web.post("/conversations/:id/delete", page, async (c) => {
    const { service } = c.get("session");
    const form = await readForm(c);
    const id = c.req.param("id");
    if (field(form, "confirmed") === "yes") {
      await service.conversations.delete({ ids: [id] });
      c.get("session").flash = { kind: "success", text: "Conversation deleted." };
      return c.redirect("/conversations", 303);
    }
    const conversation = await service.conversations.get(id);
    return c.html(
      <ConfirmPage
        ctx={pageContext(c)}
        page="conversations"
        title="Delete this conversation?"
        message={`“${conversation.title || "Untitled"}” and its ${conversation.total} messages will be deleted from mnemo (not from ${conversation.platformDisplayName ?? conversation.platform}). Importing the export again brings it back.`}
        action={`/conversations/${encodeURIComponent(id)}/delete`}
        fields={{}}
        confirmLabel="Delete conversation"
        back={`/conversations/${encodeURIComponent(id)}`}
      />,
    );
  });
}
