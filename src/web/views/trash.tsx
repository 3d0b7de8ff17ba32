import type { TrashList } from "../../schemas/trash.js";
import { TRASH_DAYS } from "../../schemas/trash.js";
import { plural, shortDate, withQuery } from "../format.js";
import { ActionForm, CsrfField, Layout, type PageContext, PastLastPage } from "./layout.js";

/** The trash: newest first, each with when it goes for good; restore or delete one, the selected, or all. */
export function TrashPage(props: { ctx: PageContext; list: TrashList }) {
  const { ctx, list } = props;
  return (
    <Layout title="Trash" page="trash" ctx={ctx}>
      <h1>Trash</h1>
      <p class="hint">
        What you delete here waits {TRASH_DAYS} days, then is deleted for good. Until then Restore puts it back as it was: its bucket, its
        history, a conversation's pins and search index.
      </p>
      <p class="meta" role="status">
        {plural(list.total, "item")}
        {list.totalPages > 1 ? ` · page ${list.page} of ${list.totalPages}` : ""}
      </p>
      {list.items.length === 0 ? (
        list.total > 0 ? (
          <PastLastPage
            what="items"
            page={list.page}
            pages={list.totalPages}
            lastPage={withQuery("/trash", { page: Math.max(1, list.totalPages) })}
          />
        ) : (
          <p class="empty">The trash is empty.</p>
        )
      ) : (
        <TrashItems ctx={ctx} list={list} />
      )}
    </Layout>
  );
}

function TrashItems(props: { ctx: PageContext; list: TrashList }) {
  const { ctx, list } = props;
  const self = withQuery("/trash", { page: list.page > 1 ? list.page : undefined });
  return (
    <section aria-labelledby="trash-heading">
      <h2 id="trash-heading" class="visually-hidden">
        Items
      </h2>
      <form id="trash-bulk" method="post" action="/trash/restore" class="toolbar" aria-label="Selected items">
        <CsrfField ctx={ctx} />
        <input type="hidden" name="back" value={self} />
        <label class="row">
          <input type="checkbox" data-select-all="ids" /> Select all on this page
        </label>
        <button type="submit" class="secondary">
          Restore selected
        </button>
        <button type="submit" formaction="/trash/delete" class="danger">
          Delete selected for good
        </button>
      </form>
      <ul class="items">
        {list.items.map((item) => (
          <li class="item select-item">
            <input type="checkbox" name="ids" value={item.id} form="trash-bulk" aria-label={`Select: ${item.title.slice(0, 60)}`} />
            <div class="body">
              <div class="item-head meta">
                <span class="badge flag">{item.kind}</span>
                <span>{item.detail}</span>
                <span>
                  deleted <time datetime={item.deletedAt}>{shortDate(item.deletedAt)}</time>
                </span>
                <span>
                  gone for good <time datetime={item.expiresAt}>{shortDate(item.expiresAt).slice(0, 10)}</time>
                </span>
              </div>
              <p class="text" dir="auto">
                {item.title}
              </p>
              <div class="actions">
                <ActionForm ctx={ctx} action="/trash/restore" back={self}>
                  <input type="hidden" name="ids" value={item.id} />
                  <button type="submit" class="secondary">
                    Restore
                  </button>
                </ActionForm>
                <ActionForm ctx={ctx} action="/trash/delete" back={self}>
                  <input type="hidden" name="ids" value={item.id} />
                  <button type="submit" class="link">
                    Delete for good
                  </button>
                </ActionForm>
              </div>
            </div>
          </li>
        ))}
      </ul>
      {list.totalPages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {list.page > 1 ? <a href={withQuery("/trash", { page: list.page - 1 })}>← Newer</a> : null}
          <span>
            Page {list.page} of {list.totalPages}
          </span>
          {list.page < list.totalPages ? <a href={withQuery("/trash", { page: list.page + 1 })}>Older →</a> : null}
        </nav>
      ) : null}
      <ActionForm ctx={ctx} action="/trash/empty" back="/trash">
        <button type="submit" class="danger">
          Empty the trash
        </button>
      </ActionForm>
    </section>
  );
}
