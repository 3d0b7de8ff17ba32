import type { ImportJob } from "../../schemas/imports.js";
import { megabytes, plural, shortDate } from "../format.js";

const running = (job: ImportJob) => job.state !== "done" && job.state !== "failed";

/**
 * The Import page's recent imports. While one is running, the page's script fetches this section
 * again every second (GET /import/recent) and puts it in place, so its progress moves without a
 * reload: the same markup as the page's, from the same component.
 */
export function RecentImports(props: { jobs: ImportJob[] }) {
  const live = props.jobs.some(running);
  return (
    <section id="recent-imports" aria-labelledby="recent-imports-heading" data-running={live ? "" : undefined}>
      <h2 id="recent-imports-heading">Recent imports</h2>
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
              <tr data-job={job.id}>
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
                  {running(job) ? <Progress job={job} /> : null}
                  {job.error ? job.error.message : job.summary && !running(job) ? <SummaryLine summary={job.summary} /> : ""}
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
    </section>
  );
}

/** Where a running import is, as the progress bars of the page that started it say it. */
function Progress(props: { job: ImportJob }) {
  const { job } = props;
  const { reading, indexing } = job;
  const [text, fraction] =
    job.state === "receiving"
      ? [`Receiving: ${megabytes(job.bytesReceived)}`, undefined]
      : job.state === "waiting"
        ? ["Waiting for another import to finish", undefined]
        : job.state === "reading"
          ? [
              `Reading: ${plural(reading.conversations, "conversation")} so far`,
              reading.totalBytes ? reading.bytesRead / reading.totalBytes : undefined,
            ]
          : [
              `Indexing: ${indexing.ready} ready, ${indexing.pending} to go`,
              indexing.ready / Math.max(1, indexing.ready + indexing.pending),
            ];
  const label = `progress-${job.id}`;
  return (
    <>
      <span id={label}>{text}</span>
      {fraction !== undefined ? (
        <progress max={100} value={Math.round(Math.min(1, fraction) * 100)} aria-labelledby={label}></progress>
      ) : null}
    </>
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
