import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { assetUrl } from "../assets.js";
import type { Flash } from "../sessions.js";

export type PageKey = "memories" | "buckets" | "conversations" | "search" | "recall" | "import" | "trash" | "settings";

const NAV: { key: PageKey; href: string; label: string }[] = [
  { key: "memories", href: "/memories", label: "Memories" },
  { key: "buckets", href: "/buckets", label: "Buckets" },
  { key: "conversations", href: "/conversations", label: "Conversations" },
  { key: "search", href: "/search", label: "Search" },
  { key: "recall", href: "/recall", label: "Recall" },
  { key: "import", href: "/import", label: "Import" },
  { key: "trash", href: "/trash", label: "Trash" },
  { key: "settings", href: "/settings", label: "Settings" },
];

/** What every signed-in page knows: who is signed in, the CSRF token its forms carry, a message to show once. */
export interface PageContext {
  userName: string;
  csrf: string;
  flash?: Flash | undefined;
}

/** What was typed in the form posting to `action` when it was refused, to fill it in again; nothing otherwise. */
export function typedInto(ctx: PageContext, action: string): Record<string, string> {
  const typed = ctx.flash?.typed;
  return typed && typed.action === action ? typed.fields : {};
}

/** A page's forms that show a refusal under the field it is about: each form's action, and those fields. */
export type FieldForms = Record<string, readonly string[]>;

/** Whether the error just shown is about a field one of `forms` shows it under (FieldError), rather than above the page. */
function shownAtField(flash: Flash | undefined, forms: FieldForms | undefined): boolean {
  const typed = flash?.typed;
  return typed?.field !== undefined && (forms?.[typed.action]?.includes(typed.field) ?? false);
}

/**
 * The field `name` of the form posting to `action`, when the error just shown is about it: marked
 * invalid, described by the error shown under it (FieldError), and focused, which scrolls to it:
 * an edit refused far down a list is not left a screen away from its message at the top.
 */
export function refusedField(ctx: PageContext, action: string, name: string) {
  const typed = ctx.flash?.typed;
  if (typed?.action !== action || typed.field !== name) return {};
  return { "aria-invalid": "true" as const, "aria-describedby": "field-error", autofocus: true };
}

/** The error of a form refused for its field `name`, under that field (see refusedField); nothing otherwise. */
export function FieldError(props: { ctx: PageContext; action: string; name: string }) {
  const { flash } = props.ctx;
  if (flash?.typed?.action !== props.action || flash.typed.field !== props.name) return null;
  return (
    <p id="field-error" role="alert" class="flash error field-error">
      {flash.text}
    </p>
  );
}

export function Document(props: { title: string; children: Child }) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="color-scheme" content="light dark" />
          <title>{`${inTitleBar(props.title)} · mnemo`}</title>
          <link rel="stylesheet" href={assetUrl("app.css")} />
          <script src={assetUrl("app.js")} defer></script>
        </head>
        <body>{props.children}</body>
      </html>
    </>
  );
}

export function Layout(props: {
  title: string;
  page: PageKey | undefined;
  ctx: PageContext;
  fieldForms?: FieldForms;
  /** The ids of the page's items that show a message about themselves (flash `at`). */
  itemIds?: readonly string[];
  children: Child;
}) {
  const { ctx } = props;
  const atItem = ctx.flash?.at !== undefined && (props.itemIds?.includes(ctx.flash.at) ?? false);
  return (
    <Document title={props.title}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="top-inner">
          <a class="brand" href="/memories">
            mnemo
          </a>
          <nav aria-label="Main">
            <ul class="nav">
              {NAV.map((item) => (
                <li>
                  <a href={item.href} aria-current={item.key === props.page ? "page" : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span>{ctx.userName}</span>
            <form method="post" action="/logout">
              <CsrfField ctx={ctx} />
              <button type="submit" class="link">
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <main id="main" tabindex={-1}>
        <FlashMessage flash={shownAtField(ctx.flash, props.fieldForms) || atItem ? undefined : ctx.flash} ctx={ctx} />
        {props.children}
      </main>
    </Document>
  );
}

export function CsrfField(props: { ctx: PageContext }) {
  return <input type="hidden" name="_csrf" value={props.ctx.csrf} />;
}

/** A stored title in the window's title bar, without control characters or the direction overrides that would turn " · mnemo" around. */
function inTitleBar(title: string): string {
  return title.replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, "");
}

export function FlashMessage(props: { flash: Flash | undefined; ctx: PageContext }) {
  const { flash } = props;
  if (!flash) return <div role="status" aria-live="polite"></div>;
  return (
    <div role={flash.kind === "error" ? "alert" : "status"} class={`flash ${flash.kind}`}>
      {flash.text}
      {flash.undo ? (
        <ActionForm ctx={props.ctx} action="/trash/restore" back={flash.undo.back} class="undo">
          {flash.undo.ids.map((id) => (
            <input type="hidden" name="ids" value={id} />
          ))}
          <button type="submit" class="link">
            Undo
          </button>
        </ActionForm>
      ) : null}
    </div>
  );
}

/** A list paged past its end: how many pages there are, and a link to the last. */
export function PastLastPage(props: { what: string; page: number; pages: number; lastPage: string }) {
  return (
    <p class="empty">
      No {props.what} on page {props.page}: there {props.pages === 1 ? "is 1 page" : `are ${props.pages} pages`}.{" "}
      <a href={props.lastPage}>Go to page {props.pages}</a>.
    </p>
  );
}

/** A form that posts one action, with its CSRF field (and where to go back to). */
export function ActionForm(props: { ctx: PageContext; action: string; back?: string; children: Child; class?: string }) {
  return (
    <form method="post" action={props.action} class={props.class}>
      <CsrfField ctx={props.ctx} />
      {props.back ? <input type="hidden" name="back" value={props.back} /> : null}
      {props.children}
    </form>
  );
}
