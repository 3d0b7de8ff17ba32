import type { Child } from "hono/jsx";
import { chatAppNames } from "../../core/index.js";
import type { ConversationDetail, ConversationListItem, ListChatsResponse } from "../../schemas/chat-history.js";
import { markdown } from "../markdown.js";
import { plural, shortDate, withQuery } from "../format.js";
import { ActionForm, CsrfField, Layout, type PageContext, PastLastPage } from "./layout.js";

export interface ConversationFilters {
  platform: string;
  title: string;
  from: string;
  to: string;
  pinned: boolean;
  importId: string;
}

const filtered = (f: ConversationFilters) => Boolean(f.platform || f.title || f.from || f.to || f.pinned || f.importId);

/** Why the list is empty, and the way on: importing helps only when there is nothing at all. */
function EmptyList(props: { list: ListChatsResponse; filtered: boolean; lastPage: string }) {
  if (props.list.total > 0) {
    return <PastLastPage what="conversations" page={props.list.page} pages={props.list.totalPages} lastPage={props.lastPage} />;
  }
  if (props.filtered) {
    return (
      <p class="empty">
        No conversations match these filters. <a href="/conversations">Clear them</a>.
      </p>
    );
  }
  return (
    <p class="empty">
      No conversations yet. <a href="/import">Import an export</a> from {chatAppNames("or")}.
    </p>
  );
}

/** The filter form's labels, by field: a refused filter is named by the label it is shown under. */
export const FILTER_LABELS: Record<keyof ConversationFilters | "page", string> = {
  title: "Title contains",
  platform: "Platform",
  from: "From",
  to: "To",
  importId: "Import id",
  pinned: "Pinned only",
  page: "Page",
};

/** A filter the list refused, shown at its field. */
export interface FilterError {
  field: keyof ConversationFilters | "page";
  message: string;
}

export function ConversationsPage(props: {
  ctx: PageContext;
  /** Undefined when a filter was refused (`invalid`). */
  list: ListChatsResponse | undefined;
  filters: ConversationFilters;
  platforms: { id: string; displayName?: string | undefined }[];
  invalid?: FilterError | undefined;
  /** This page's URL, where its actions come back to. */
  back: string;
}) {
  const { list, filters } = props;
  const pageLink = (page: number) =>
    withQuery("/conversations", {
      platform: filters.platform,
      title: filters.title,
      from: filters.from,
      to: filters.to,
      pinned: filters.pinned,
      import: filters.importId,
      page,
    });
  return (
    <Layout title="Conversations" page="conversations" ctx={props.ctx}>
      <h1>Conversations</h1>
      <FilterForm filters={filters} platforms={props.platforms} invalid={props.invalid} />
      {list ? (
        <>
          <p class="meta" role="status">
            {plural(list.total, "conversation")}
            {list.totalPages > 1 ? ` · page ${list.page} of ${list.totalPages}` : ""}
          </p>
          {list.items.length === 0 ? (
            <EmptyList list={list} filtered={filtered(filters)} lastPage={pageLink(Math.max(1, list.totalPages))} />
          ) : (
            <ConversationTable ctx={props.ctx} items={list.items} platforms={props.platforms} back={props.back} />
          )}
          {list.totalPages > 1 ? (
            <nav class="pager" aria-label="Pages">
              {list.page > 1 ? <a href={pageLink(list.page - 1)}>← Previous</a> : null}
              <span>
                Page {list.page} of {list.totalPages}
              </span>
              {list.page < list.totalPages ? <a href={pageLink(list.page + 1)}>Next →</a> : null}
            </nav>
          ) : null}
        </>
      ) : null}
    </Layout>
  );
}

function FilterForm(props: {
  filters: ConversationFilters;
  platforms: { id: string; displayName?: string | undefined }[];
  invalid: FilterError | undefined;
}) {
  const { filters, invalid } = props;
  /** The attributes that tie a refused field to the message saying why. */
  const marked = (name: FilterError["field"]) =>
    invalid?.field === name ? { "aria-invalid": "true" as const, "aria-describedby": "filter-error" } : {};
  return (
    <form method="get" action="/conversations" class="panel" aria-label="Filter conversations">
      {invalid ? (
        <p id="filter-error" role="alert" class="flash error">
          {invalid.message}
        </p>
      ) : null}
      <div class="row">
        <div class="field grow">
          <label for="f-title">{FILTER_LABELS.title}</label>
          <input id="f-title" type="search" name="title" value={filters.title} {...marked("title")} />
        </div>
        <div class="field">
          <label for="f-platform">{FILTER_LABELS.platform}</label>
          <select id="f-platform" name="platform" {...marked("platform")}>
            <option value="">All</option>
            {props.platforms.map((platform) => (
              <option value={platform.id} selected={platform.id === filters.platform}>
                {platform.displayName ?? platform.id}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-from">{FILTER_LABELS.from}</label>
          <input id="f-from" type="date" name="from" value={filters.from} {...marked("from")} autofocus={invalid?.field === "from"} />
        </div>
        <div class="field">
          <label for="f-to">{FILTER_LABELS.to}</label>
          <input id="f-to" type="date" name="to" value={filters.to} {...marked("to")} autofocus={invalid?.field === "to"} />
        </div>
        <div class="field">
          <label for="f-import">{FILTER_LABELS.importId}</label>
          <input id="f-import" type="text" name="import" value={filters.importId} size={14} {...marked("importId")} />
        </div>
        <label class="row">
          <input type="checkbox" name="pinned" value="1" checked={filters.pinned} /> {FILTER_LABELS.pinned}
        </label>
        <button type="submit">Filter</button>
        <a class="button secondary" href="/conversations">
          Clear
        </a>
      </div>
    </form>
  );
}

/** The list, with a checkbox on each row for the bulk actions above it. */
function ConversationTable(props: {
  ctx: PageContext;
  items: ConversationListItem[];
  platforms: { id: string; displayName?: string | undefined }[];
  back: string;
}) {
  /** Each platform as the filter names it (Kiro CLI, not kiro-cli). */
  const named = new Map(props.platforms.map((platform) => [platform.id, platform.displayName ?? platform.id]));
  return (
    <>
      <form id="bulk-conversations" method="post" action="/conversations/bulk" class="toolbar" aria-label="Selected conversations">
        <CsrfField ctx={props.ctx} />
        <input type="hidden" name="back" value={props.back} />
        <label class="row">
          <input type="checkbox" data-select-all="ids" /> Select all on this page
        </label>
        {(
          [
            ["pin", "Pin"],
            ["unpin", "Unpin"],
            ["exclude", "Exclude from search"],
            ["include", "Include in search"],
          ] as const
        ).map(([action, label]) => (
          <button type="submit" name="action" value={action} class="secondary">
            {label}
          </button>
        ))}
        <button type="submit" name="action" value="delete" class="danger">
          Delete selected
        </button>
      </form>
      <table class="cards">
        <thead>
          <tr>
            <th scope="col">
              <span class="visually-hidden">Select</span>
            </th>
            <th scope="col">Title</th>
            <th scope="col">Platform</th>
            <th scope="col" class="num">
              Messages
            </th>
            <th scope="col">Updated</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <tr>
              <td class="select">
                <input
                  type="checkbox"
                  name="ids"
                  value={item.id}
                  form="bulk-conversations"
                  aria-label={`Select: ${item.title || "Untitled"}`}
                />
              </td>
              <td class="title" data-label="Title">
                {item.pinned ? <span class="badge flag">pinned</span> : null}{" "}
                <a href={`/conversations/${encodeURIComponent(item.id)}`}>
                  <bdi>{item.title || "Untitled"}</bdi>
                </a>
              </td>
              <td data-label="Platform">{named.get(item.platform) ?? item.platform}</td>
              <td class="num" data-label="Messages">
                {item.messageCount}
              </td>
              <td data-label="Updated">
                <time datetime={item.updatedAt}>{shortDate(item.updatedAt)}</time>
              </td>
              <td data-label="Status">
                <Status item={item} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Status(props: { item: Pick<ConversationListItem, "status" | "statusReason" | "excluded" | "quotaBlocked"> }) {
  const { item } = props;
  return (
    <>
      <span class={`badge ${item.status}`}>{item.status}</span>
      {item.excluded ? <span class="badge flag">excluded</span> : null}
      {item.quotaBlocked ? <span class="badge flag">over quota</span> : null}
      {item.statusReason && (item.status === "failed" || item.status === "rejected") ? <div class="hint">{item.statusReason}</div> : null}
    </>
  );
}

/** The page around the messages, which the route streams in batches where `messages` stands (a marker). */
export function ConversationPage(props: { ctx: PageContext; conversation: ConversationDetail; messages: Child }) {
  const { ctx, conversation: c } = props;
  const self = `/conversations/${encodeURIComponent(c.id)}`;
  return (
    <Layout title={c.title || "Conversation"} page="conversations" ctx={ctx}>
      <p>
        <a href="/conversations">← Conversations</a>
      </p>
      <h1 dir="auto">{c.title || "Untitled"}</h1>
      <p class="meta">
        {c.platformDisplayName ?? c.platform} · {plural(c.total, "message")} · {plural(c.tokenCount, "token")} · created{" "}
        {shortDate(c.createdAt)} · updated {shortDate(c.updatedAt)} · import {c.importId}
      </p>
      <div class="actions">
        <Status item={c} />
        <ActionForm ctx={ctx} action={`${self}/pin`} back={self}>
          <input type="hidden" name="pinned" value={c.pinned ? "false" : "true"} />
          <button type="submit" class="secondary">
            {c.pinned ? "Unpin" : "Pin"}
          </button>
        </ActionForm>
        <ActionForm ctx={ctx} action={`${self}/exclude`} back={self}>
          <input type="hidden" name="excluded" value={c.excluded ? "false" : "true"} />
          <button type="submit" class="secondary">
            {c.excluded ? "Include in search" : "Exclude from search"}
          </button>
        </ActionForm>
        <ActionForm ctx={ctx} action={`${self}/delete`} back={self}>
          <button type="submit" class="danger">
            Delete
          </button>
        </ActionForm>
      </div>
      <ol class="messages">{props.messages}</ol>
    </Layout>
  );
}

type Message = ConversationDetail["messages"][number];

/** One message; the one a search hit or citation opened the page at is `#hit`, the others `#m-<n>`. */
export function MessageItem(props: { message: Message; self: string; hit: boolean }) {
  const { message, hit } = props;
  return (
    <li
      class={`msg ${message.sender}${hit ? " hit" : ""}`}
      id={hit ? "hit" : `m-${message.message_index}`}
      aria-current={hit ? "true" : undefined}
      tabindex={hit ? -1 : undefined}
    >
      <div class="item-head meta">
        <strong>{message.sender === "human" ? "You" : "Assistant"}</strong>
        {message.timestamp ? <time datetime={message.timestamp}>{shortDate(message.timestamp)}</time> : null}
        <a href={`${props.self}#m-${message.message_index}`} aria-label={`Link to message ${message.message_index + 1}`}>
          #{message.message_index + 1}
        </a>
      </div>
      <div class="md">{markdown(message.text)}</div>
    </li>
  );
}
