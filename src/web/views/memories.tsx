import type { Bucket, MemoryHistoryResponse, MemoryObject } from "../../schemas/memories.js";
import { cutText } from "../../text/cut-text.js";
import { startsWithItsDate } from "../../text/memory-date.js";
import { probablyUnrelated } from "../../core/index.js";
import { plural, shortDate, withQuery } from "../format.js";
import {
  ActionForm,
  CsrfField,
  FieldError,
  type FieldForms,
  Layout,
  type PageContext,
  PastLastPage,
  refusedField,
  typedInto,
} from "./layout.js";

export interface MemoriesView {
  ctx: PageContext;
  memories: MemoryObject[];
  buckets: Bucket[];
  bucketId: number | undefined;
  query: string;
  page: number;
  pageSize: number;
  total: number | undefined;
  back: string;
}

export function MemoriesPage(view: MemoriesView) {
  const { ctx, buckets } = view;
  const current = buckets.find((bucket) => Number(bucket.id) === view.bucketId);
  // What the user typed or named is isolated (bdi), so a right-to-left name keeps the quotes and words around it in place.
  const heading = view.query ? (
    <>
      Memories matching “<bdi>{view.query}</bdi>”
    </>
  ) : current ? (
    <>
      Memories in <bdi>{current.name}</bdi>
    </>
  ) : (
    "Memories"
  );
  const fieldForms: FieldForms = {
    "/memories": ["text"],
    "/memories/image": ["image", "description"],
    ...Object.fromEntries(view.memories.map((memory) => [editAction(memory), ["text"]])),
  };
  return (
    <Layout
      title="Memories"
      page="memories"
      ctx={ctx}
      fieldForms={fieldForms}
      itemIds={view.memories.map((memory) => memoryAnchor(memory.id ?? ""))}
    >
      <h1>{heading}</h1>
      <nav aria-label="Buckets">
        <ul class="bucket-list">
          <li>
            <a href={withQuery("/memories", { q: view.query })} aria-current={view.bucketId === undefined ? "true" : undefined}>
              All
            </a>
          </li>
          {buckets.map((bucket) => (
            <li>
              <a
                href={withQuery("/memories", { bucket: bucket.id, q: view.query })}
                aria-current={Number(bucket.id) === view.bucketId ? "true" : undefined}
              >
                <bdi>{bucket.name}</bdi> <span class="meta">({bucket.memoryCount})</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action="/memories" class="row panel" aria-label="Search memories">
        {view.bucketId !== undefined ? <input type="hidden" name="bucket" value={String(view.bucketId)} /> : null}
        <div class="field grow">
          <label for="memory-query">Search memories</label>
          <input id="memory-query" type="search" name="q" value={view.query} placeholder="what pet do I have?" dir="auto" />
        </div>
        <button type="submit">Search</button>
        {view.query ? (
          <a class="button secondary" href={withQuery("/memories", { bucket: view.bucketId })}>
            Clear
          </a>
        ) : null}
      </form>
      <AddMemory
        ctx={ctx}
        buckets={buckets}
        bucketId={view.bucketId}
        back={view.back}
        lostEdit={lostEdit(ctx, view.memories)}
        noneYet={buckets.every((bucket) => bucket.memoryCount === 0)}
      />
      <MemoryList {...view} />
    </Layout>
  );
}

/**
 * The text of an edit refused because its memory is not on the page any more (deleted in another
 * tab): offered as a new memory rather than lost with the memory's form.
 */
function lostEdit(ctx: PageContext, shown: MemoryObject[]): string | undefined {
  const typed = ctx.flash?.typed;
  const id = typed ? /^\/memories\/([^/]+)\/edit$/.exec(typed.action)?.[1] : undefined;
  if (id === undefined || shown.some((memory) => memory.id !== undefined && encodeURIComponent(memory.id) === id)) return undefined;
  return typed?.fields["text"];
}

function AddMemory(props: {
  ctx: PageContext;
  buckets: Bucket[];
  bucketId: number | undefined;
  back: string;
  lostEdit: string | undefined;
  /** The user has no memory in any bucket: adding one is what they came to do. */
  noneYet: boolean;
}) {
  const typed = typedInto(props.ctx, "/memories").text ?? props.lostEdit;
  // A refused image (not an image, too large): the panel stays open with its description and bucket.
  const image = typedInto(props.ctx, "/memories/image");
  const imageBucket = Number(image.bucketId ?? props.bucketId ?? 1);
  return (
    <details class="panel" open={props.noneYet || typed !== undefined || image.bucketId !== undefined}>
      <summary>Add a memory</summary>
      {props.lostEdit !== undefined ? (
        <p class="meta">Your edit of a memory that is no longer here: add it as a new memory, or put the memory back from the Trash.</p>
      ) : null}
      <ActionForm ctx={props.ctx} action="/memories" back={props.back}>
        <div class="field">
          <label for="new-text">Text</label>
          <textarea id="new-text" name="text" required maxlength={20000} dir="auto" {...refusedField(props.ctx, "/memories", "text")}>
            {typed ?? ""}
          </textarea>
          <FieldError ctx={props.ctx} action="/memories" name="text" />
        </div>
        <div class="row">
          <BucketSelect id="new-bucket" buckets={props.buckets} selected={props.bucketId ?? 1} label="Bucket" />
          <label class="row">
            <input type="checkbox" name="date" value="1" checked /> Start it with today's date
          </label>
          <button type="submit">Add memory</button>
        </div>
      </ActionForm>
      <h2>Or an image</h2>
      <form method="post" action="/memories/image" enctype="multipart/form-data">
        <CsrfField ctx={props.ctx} />
        <input type="hidden" name="back" value={props.back} />
        <div class="row">
          <div class="field">
            <label for="new-image">Image (PNG, JPEG, WebP or GIF, at most 10 MB)</label>
            <input
              id="new-image"
              type="file"
              name="image"
              accept="image/png,image/jpeg,image/webp,image/gif"
              required
              {...refusedField(props.ctx, "/memories/image", "image")}
            />
            <FieldError ctx={props.ctx} action="/memories/image" name="image" />
          </div>
          <div class="field grow">
            <label for="new-image-description">Description</label>
            <input
              id="new-image-description"
              type="text"
              name="description"
              maxlength={2000}
              value={image.description ?? ""}
              {...refusedField(props.ctx, "/memories/image", "description")}
            />
            <FieldError ctx={props.ctx} action="/memories/image" name="description" />
          </div>
          <BucketSelect id="new-image-bucket" buckets={props.buckets} selected={imageBucket} label="Bucket" />
          <button type="submit">Add image</button>
        </div>
      </form>
    </details>
  );
}

export function BucketSelect(props: { id: string; buckets: Bucket[]; selected: number; label: string; name?: string; form?: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name ?? "bucketId"} form={props.form}>
        {props.buckets.map((bucket) => (
          <option value={bucket.id} selected={Number(bucket.id) === props.selected}>
            {bucket.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function MemoryList(view: MemoriesView) {
  const { ctx, memories, buckets } = view;
  const pages = view.total === undefined ? undefined : Math.max(1, Math.ceil(view.total / view.pageSize));
  if (memories.length === 0) {
    if (pages !== undefined && view.total && view.page > pages) {
      const lastPage = withQuery("/memories", { bucket: view.bucketId, page: pages });
      return <PastLastPage what="memories" page={view.page} pages={pages} lastPage={lastPage} />;
    }
    return <p class="empty">{view.query ? "No memories match." : "No memories here yet."}</p>;
  }
  return (
    <section aria-labelledby="list-heading">
      <h2 id="list-heading" class="visually-hidden">
        List
      </h2>
      {view.query && memories.every((memory) => memory.score !== undefined && probablyUnrelated(memory.score)) ? (
        <p class="empty">No memory seems to be about this: the closest ones are below, each probably unrelated.</p>
      ) : null}
      <form id="bulk" method="post" action="/memories/bulk" class="toolbar">
        <CsrfField ctx={ctx} />
        <input type="hidden" name="back" value={view.back} />
        <label class="row">
          <input type="checkbox" data-select-all="ids" /> Select all on this page
        </label>
        <BucketSelect id="bulk-bucket" buckets={buckets} selected={1} label="Move selected to" />
        <button type="submit" name="action" value="move" class="secondary">
          Move selected
        </button>
        <button type="submit" name="action" value="delete" class="danger">
          Delete selected
        </button>
      </form>
      <ul class="items">
        {memories.map((memory) => (
          <MemoryItem ctx={ctx} memory={memory} buckets={buckets} back={view.back} />
        ))}
      </ul>
      {pages !== undefined && pages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {view.page > 1 ? <a href={withQuery("/memories", { bucket: view.bucketId, page: view.page - 1 })}>← Newer</a> : null}
          <span>
            Page {view.page} of {pages}
          </span>
          {view.page < pages ? <a href={withQuery("/memories", { bucket: view.bucketId, page: view.page + 1 })}>Older →</a> : null}
        </nav>
      ) : null}
    </section>
  );
}

function MemoryItem(props: { ctx: PageContext; memory: MemoryObject; buckets: Bucket[]; back: string }) {
  const { memory, ctx } = props;
  const id = memory.id ?? "";
  const action = editAction(memory);
  const editing = typedInto(ctx, action); // a refused edit, filled in again
  const excerpt = memory.text.length > 60 ? `${memory.text.slice(0, 60)}…` : memory.text;
  // Just saved: the page opens here (its address's fragment), focused, with the message in it.
  const saved = ctx.flash?.at === memoryAnchor(id) ? ctx.flash : undefined;
  return (
    <li class="item select-item" id={memoryAnchor(id)} {...(saved ? { tabindex: -1, autofocus: true } : {})}>
      <input type="checkbox" name="ids" value={id} form="bulk" aria-label={`Select: ${excerpt}`} />
      <div class="body">
        <div class="item-head meta">
          {/* The date once (text/memory-date.ts): a text that starts with its day needs no second one. */}
          {startsWithItsDate(memory.text, memory.metadata.createdAt) ? null : <span>{shortDate(memory.metadata.createdAt)}</span>}
          <span>{memory.metadata.bucketName}</span>
          {memory.score !== undefined ? (
            <span>
              score {memory.score.toFixed(2)}
              {probablyUnrelated(memory.score) ? " · probably unrelated" : ""}
            </span>
          ) : null}
          {memory.content_type === "image" ? <span class="badge flag">image</span> : null}
        </div>
        {memory.content_type === "image" && memory.image_url ? (
          <img class="memory-image" src={sameOrigin(memory.image_url)} alt={memory.image_description ?? memory.text} loading="lazy" />
        ) : null}
        <MemoryText text={memory.text} />
        {saved ? (
          <p role="status" class="flash success">
            {saved.text}
          </p>
        ) : null}
        <div class="actions">
          <details open={editing.text !== undefined}>
            <summary>Edit or move</summary>
            <ActionForm ctx={ctx} action={action} back={props.back}>
              <div class="field">
                <label for={`text-${id}`}>Text</label>
                <textarea
                  id={`text-${id}`}
                  name="text"
                  required
                  maxlength={20000}
                  rows={editRows(editing.text ?? memory.text)}
                  dir="auto"
                  {...refusedField(ctx, action, "text")}
                >
                  {editing.text ?? memory.text}
                </textarea>
                <FieldError ctx={ctx} action={action} name="text" />
              </div>
              <div class="row">
                <BucketSelect
                  id={`bucket-${id}`}
                  buckets={props.buckets}
                  selected={Number(editing.bucketId ?? memory.metadata.bucketId)}
                  label="Bucket"
                />
                <button type="submit">Save</button>
              </div>
            </ActionForm>
          </details>
          <a href={`/memories/${encodeURIComponent(id)}/history`}>History</a>
          <ActionForm ctx={ctx} action="/memories/delete" back={props.back}>
            <input type="hidden" name="ids" value={id} />
            <button type="submit" class="link">
              Delete
            </button>
          </ActionForm>
        </div>
      </div>
    </li>
  );
}

/** The id of a memory's item in the list, the fragment of its address. */
export function memoryAnchor(memoryId: string): string {
  return `memory-${memoryId}`;
}

function editAction(memory: MemoryObject): string {
  return `/memories/${encodeURIComponent(memory.id ?? "")}/edit`;
}

/** The edit box's height: the text's lines at about 80 characters each, from 3 to 16 (it scrolls past that). */
function editRows(text: string): number {
  const lines = text.split("\n").reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 80)), 0);
  return Math.min(16, Math.max(3, lines));
}

/** Longer memories are shown cut, whole on request: one of 20,000 characters filled a dozen phone screens of the list. */
const WHOLE_UP_TO = 1000;
const CUT_TO = 600;

function MemoryText(props: { text: string }) {
  if (props.text.length <= WHOLE_UP_TO)
    return (
      <p class="text" dir="auto">
        {props.text}
      </p>
    );
  return (
    <>
      <p class="text cut" dir="auto">
        {cutText(props.text, CUT_TO)}
      </p>
      <details class="whole-text">
        <summary>Show all {props.text.length.toLocaleString("en")} characters</summary>
        <p class="text" dir="auto">
          {props.text}
        </p>
      </details>
    </>
  );
}

/** A signed image URL on this server's own origin: its path, so it loads whatever name the page was opened by. */
function sameOrigin(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? `${parsed.pathname}${parsed.search}` : "";
  } catch {
    return "";
  }
}

export function HistoryPage(props: { ctx: PageContext; history: MemoryHistoryResponse }) {
  const versions = [...props.history.versions].reverse();
  return (
    <Layout title="Memory history" page="memories" ctx={props.ctx}>
      <h1>History of a memory</h1>
      <p class="meta">
        {props.history.memoryId} · {plural(versions.length, "version")}
      </p>
      {props.history.imageUrl ? (
        <img class="memory-image" src={sameOrigin(props.history.imageUrl)} alt={versions[0]?.text ?? "The memory's image"} />
      ) : null}
      <ol class="items" reversed>
        {versions.map((version) => (
          <li class="item">
            <div class="item-head meta">
              <strong>Version {version.version}</strong>
              <span>{shortDate(version.changedAt)}</span>
              <span>{version.bucketName ?? `bucket ${version.bucketId} (deleted)`}</span>
            </div>
            <p class="text" dir="auto">
              {version.text}
            </p>
          </li>
        ))}
      </ol>
      <p>
        <a href="/memories">← Memories</a>
      </p>
    </Layout>
  );
}
