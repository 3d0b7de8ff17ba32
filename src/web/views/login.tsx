import { raw } from "hono/html";
import { Document } from "./layout.js";

export function LoginPage(props: { next: string; error?: string | undefined; notice?: string | undefined }) {
  return (
    <Document title="Sign in">
      <main id="main" class="login">
        <h1>Sign in to mnemo</h1>
        {props.error ? (
          <p id="login-error" role="alert" class="flash error">
            {props.error}
          </p>
        ) : null}
        {props.notice ? <p class="flash success">{props.notice}</p> : null}
        <p>
          <code>mnemo ui</code> opens this app already signed in. Or paste your API token: it is in the file <code>token</code> of the data
          dir, and <code>mnemo token --rotate</code> makes a new one.
        </p>
        <form method="post" action="/login" class="panel">
          <input type="hidden" name="next" value={props.next} />
          <div class="field">
            <label for="token">API token</label>
            <input
              id="token"
              name="token"
              type="password"
              autocomplete="current-password"
              required
              autofocus
              spellcheck={false}
              {...(props.error ? { "aria-invalid": "true" as const, "aria-describedby": "login-error" } : {})}
            />
          </div>
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
      </main>
    </Document>
  );
}

/** Where a used one-time link lands: the page moves on to the app by itself (no script: a meta refresh). */
export function SignedInPage(props: { next: string }) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta http-equiv="refresh" content={`0;url=${props.next}`} />
          <title>Signed in · mnemo</title>
        </head>
        <body>
          <p>
            Signed in. <a href={props.next}>Continue</a>
          </p>
        </body>
      </html>
    </>
  );
}
