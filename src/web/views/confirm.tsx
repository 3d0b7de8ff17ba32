import { ActionForm, Layout, type PageContext, type PageKey } from "./layout.js";

/** "Are you sure?" as a page of its own: works without script, and the answer is one keyboard step away. */
export function ConfirmPage(props: {
  ctx: PageContext;
  page: PageKey;
  title: string;
  message: string;
  action: string;
  fields: Record<string, string | string[]>;
  confirmLabel: string;
  back: string;
}) {
  return (
    <Layout title={props.title} page={props.page} ctx={props.ctx}>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <ActionForm ctx={props.ctx} action={props.action} back={props.back} class="actions">
        <input type="hidden" name="confirmed" value="yes" />
        {Object.entries(props.fields).flatMap(([name, value]) =>
          (Array.isArray(value) ? value : [value]).map((item) => <input type="hidden" name={name} value={item} />),
        )}
        <button type="submit" class="danger solid" autofocus>
          {props.confirmLabel}
        </button>
        <a class="button secondary" href={props.back}>
          Cancel
        </a>
      </ActionForm>
    </Layout>
  );
}
