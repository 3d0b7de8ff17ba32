import { Document, Layout, type PageContext } from "./layout.js";

export function ErrorPage(props: { status: number; message: string; suggestion?: string | undefined; ctx: PageContext | undefined }) {
  const body = (
    <>
      <h1>{props.status === 404 ? "Not found" : "Something went wrong"}</h1>
      <p role="alert">{props.message}</p>
      {props.suggestion ? <p class="hint">{props.suggestion}</p> : null}
      <p>
        <a href="/memories">Back to your memories</a>
      </p>
    </>
  );
  if (!props.ctx) {
    return (
      <Document title="Error">
        <main id="main" class="login">
          {body}
        </main>
      </Document>
    );
  }
  return (
    <Layout title="Error" page={undefined} ctx={props.ctx}>
      {body}
    </Layout>
  );
}
