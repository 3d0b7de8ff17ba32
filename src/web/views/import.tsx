import { FORMATS, fileTypes } from "../../core/index.js";
import type { ImportJob } from "../../schemas/imports.js";
import { megabytes, shortDate } from "../format.js";
import { CsrfField, Layout, type PageContext } from "./layout.js";

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
      <ul>
        {FORMATS.map((format) => (
          <li>
            <strong>{format.name}</strong>: {format.accepts}
          </li>
        ))}
      </ul>
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
            <input id="import-platform" type="text" name="platform" pattern="[A-Za-z0-9._\-]{1,100}" size={12} />
          </div>
          <button type="submit">Upload and import</button>
        </div>
      </form>
      <section id="import-progress" aria-labelledby="import-progress-heading" hidden>
        <h2 id="import-progress-heading">Progress</h2>
        <Step id="upload" label="Uploading" />
        <Step id="reading" label="Reading the export" />
        <Step id="indexing" label="Indexing for search" />
        <p id="import-status" role="status" aria-live="polite"></p>
        <div id="import-result"></div>
      </section>
      <h2>Recent imports</h2>
      {props.jobs.length === 0 ? (
        <p class="empty">None since the server started.</p>
      ) : (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Started</th>
              <th scope="col">State</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {props.jobs.map((job) => (
              <tr>
                <td class="title" data-label="File">
                  {job.filename} <span class="meta">({megabytes(job.bytesReceived)})</span>
                </td>
                <td data-label="Started">{shortDate(job.createdAt)}</td>
                <td data-label="State">
                  <span
                    class={`badge ${unreadable(job) || job.state === "failed" ? "failed" : job.state === "done" ? "ready" : "processing"}`}
                  >
                    {unreadable(job) ? "not read" : job.state}
                  </span>
                </td>
                <td data-label="Result">
                  {job.error ? job.error.message : job.summary ? <SummaryLine summary={job.summary} /> : ""}
                  {job.summary?.problems.length ? (
                    <ul class="problems">
                      {job.summary.problems.map((problem) => (
                        <li>{`${problem.conversation ? `${problem.conversation}: ` : ""}${problem.reason}`}</li>
                      ))}
                    </ul>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

/** A finished job whose file could not be read at all: "done" would say it was imported. */
const unreadable = (job: ImportJob) =>
  job.state === "done" && job.summary !== undefined && job.reading.conversations === 0 && job.summary.files.some((file) => file.error);

function SummaryLine(props: { summary: NonNullable<ImportJob["summary"]> }) {
  const s = props.summary;
  const ids = s.importIds;
  return (
    <>
      {`${s.new} new, ${s.updated} updated, ${s.unchanged} unchanged, ${s.rejected} rejected, ${s.failed} failed`}
      {s.repaired.length > 0 ? `, ${s.repaired.length} repaired (text not valid Unicode, kept with �)` : ""}
      {ids.length > 0 ? (
        <>
          {" · "}
          {ids.map((id) => (
            <a href={`/conversations?import=${encodeURIComponent(id)}`}>{id}</a>
          ))}
        </>
      ) : null}
    </>
  );
}
