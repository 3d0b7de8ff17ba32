import type { ImportJob } from "../../schemas/imports.js";
import { byteSize, plural, shortDate } from "../format.js";

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
                  {job.filename} <span class="meta">({byteSize(job.bytesReceived)})</span>
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

/** Where a running import is, in the words of the progress the page that started it shows. */
function progressOf(job: ImportJob): { text: string; fraction?: number } {
  const { reading, indexing } = job;
  switch (job.state) {
    case "receiving":
      return { text: `Receiving: ${byteSize(job.bytesReceived)}` };
    case "waiting":
      return { text: "Waiting for another import to finish" };
    case "reading":
      return {
        text: `Reading: ${plural(reading.conversations, "conversation")} so far`,
        ...(reading.totalBytes ? { fraction: reading.bytesRead / reading.totalBytes } : {}),
      };
    default:
      // The queue is every import's: its counts make no fraction of this one.
      return { text: `Indexing: ${indexing.ready} ready, ${indexing.pending} to go` };
  }
}

function Progress(props: { job: ImportJob }) {
  const { text, fraction } = progressOf(props.job);
  const label = `progress-${props.job.id}`;
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
      {/* The sentences `mnemo import` prints, worded once by the core (core/jobs/import-outcome.ts). */}
      {s.outcome?.conversations}
      {s.repaired.length > 0 ? `, ${s.repaired.length} repaired (text not valid Unicode, kept with �)` : ""}
      {s.outcome?.conversations && s.outcome.memories ? ". " : ""}
      {s.outcome?.memories}
      {ids.length > 0 ? (
        <>
          {" · "}
          {ids.map((id) => (
            <a href={`/conversations?import=${encodeURIComponent(id)}`}>{id}</a>
          ))}
        </>
      ) : null}
      {s.languageHint ? <p class="hint">{s.languageHint}</p> : null}
    </>
  );
}
