import { FORMATS, fileTypes } from "../../core/index.js";
import type { ImportJob } from "../../schemas/imports.js";
import { CsrfField, Layout, type PageContext } from "./layout.js";
import { RecentImports } from "./recent-imports.js";

function Step(props: { id: string; label: string }) {
  return (
    <div class="progress-step">
      <label for={`progress-${props.id}`}>{props.label}</label>
      <progress id={`progress-${props.id}`} max={100} value={0}></progress>
      <span class="meta" id={`progress-${props.id}-text`}></span>
    </div>
  );
}

export function ImportPage(props: { ctx: PageContext; jobs: ImportJob[] }) {
  return (
    <Layout title="Import" page="import" ctx={props.ctx}>
      <h1>Import an export</h1>
      {/* Folded: open, the list put the upload two phone screens down. */}
      <details class="formats">
        <summary>Which exports mnemo reads ({FORMATS.length} kinds)</summary>
        <ul>
          {FORMATS.map((format) => (
            <li>
              <strong>{format.name}</strong>: {format.accepts}
            </li>
          ))}
        </ul>
      </details>
      <p>
        The file streams to the server and is read there as <code>mnemo import</code> reads it; importing the same export again updates what
        changed.
      </p>
      <noscript>
        <p class="flash error">Uploading needs JavaScript. Without it, run mnemo import with the file on the server's machine.</p>
      </noscript>
      <form id="import-form" class="panel" data-import>
        <CsrfField ctx={props.ctx} />
        <div class="row">
          <div class="field grow">
            <label for="import-file">Export file</label>
            <input
              id="import-file"
              type="file"
              name="file"
              accept={[...fileTypes(), "application/zip", "application/json"].join(",")}
              required
            />
          </div>
          <div class="field">
            <label for="import-platform">
              Platform id <span class="hint">(optional)</span>
            </label>
            <input
              id="import-platform"
              type="text"
              name="platform"
              pattern="[A-Za-z0-9._\-]{1,100}"
              size={12}
              aria-describedby="import-platform-hint"
            />
          </div>
          <button type="submit">Upload and import</button>
        </div>
        {/* The label alone left a user guessing what to type, and the browser's "match the requested format" which format. */}
        <p class="hint" id="import-platform-hint">
          Platform id: empty, each chat keeps its app's id (chatgpt, claude…); or one id for all of them: letters, digits, . _ -
        </p>
      </form>
      <section id="import-progress" aria-labelledby="import-progress-heading" hidden>
        <h2 id="import-progress-heading">Progress</h2>
        <Step id="upload" label="Uploading" />
        <Step id="reading" label="Reading the export" />
        <Step id="indexing" label="Indexing for search" />
        <p id="import-status" role="status" aria-live="polite"></p>
        <div id="import-result"></div>
      </section>
      <RecentImports jobs={props.jobs} />
    </Layout>
  );
}
