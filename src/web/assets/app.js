// mnemo's web app: the little a form cannot do. Every page works without it except the upload's
// progress. Text from the server is set as textContent, never as HTML; the one exception is the
// Import page's Recent imports, a section the server renders (escaped, as every page) and the script
// puts in place, parsed inert: the page's Content-Security-Policy runs no script but the app's own.

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** "Select all on this page" for the memories' bulk actions. */
function selectAll() {
  for (const box of $$("[data-select-all]")) {
    const name = box.getAttribute("data-select-all");
    box.addEventListener("change", () => {
      for (const item of $$(`input[type=checkbox][name="${name}"]`)) item.checked = box.checked;
    });
  }
}

/** Copy buttons: the text of the element they name, with a word to say it worked. */
function copyButtons() {
  for (const button of $$("[data-copy]")) {
    button.addEventListener("click", async () => {
      const source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      const text = "value" in source ? source.value : source.textContent;
      const label = button.textContent;
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = "Copied";
      } catch {
        // No clipboard (a page not on localhost or https): select the text, for Ctrl+C.
        if ("select" in source) source.select();
        else window.getSelection()?.selectAllChildren(source);
        button.textContent = "Selected: copy it with Ctrl+C or ⌘C";
      }
      setTimeout(() => {
        button.textContent = label;
      }, 2000);
    });
  }
}

/** A message opened from a search hit or a citation: the browser scrolls to it; focus follows for screen readers. */
function focusHit() {
  const hit = document.getElementById("hit");
  if (hit) hit.focus({ preventScroll: true });
}

/** A size as the server's pages show it, in decimal units (web/format.ts, byteSize). */
const mb = (bytes) =>
  bytes < 1000
    ? `${bytes} B`
    : bytes < 1e6
      ? `${Math.ceil(bytes / 1000)} KB`
      : bytes < 1e9
        ? `${(bytes / 1e6).toFixed(1)} MB`
        : `${(bytes / 1e9).toFixed(1)} GB`;

function setStep(step, fraction, text) {
  const bar = document.getElementById(`progress-${step}`);
  const label = document.getElementById(`progress-${step}-text`);
  if (bar) bar.value = Math.round(Math.max(0, Math.min(1, fraction)) * 100);
  if (label) label.textContent = text;
}

function status(text) {
  $("#import-status").textContent = text;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** The same summary `mnemo import` prints, built from the job's JSON. */
function showSummary(job) {
  const result = $("#import-result");
  result.replaceChildren();
  const summary = job.summary;
  const counts = element("ul", undefined, "summary-counts");
  for (const key of ["new", "updated", "unchanged", "rejected", "failed"]) {
    const item = element("li");
    item.append(element("strong", String(summary[key])), document.createTextNode(key));
    counts.append(item);
  }
  // The sentences are the server's (core/jobs/import-outcome.ts), the same `mnemo import` prints.
  const outcome = summary.outcome ?? {};
  result.append(element("h3", job.filename));
  if (outcome.conversations) result.append(element("p", outcome.conversations, "summary-outcome"), counts);
  if (outcome.memories) {
    const line = element("p", outcome.memories, "summary-memories");
    const link = element("a", "See them");
    link.href = "/memories";
    line.append(". ", link);
    result.append(line);
  }
  if (summary.languageHint) result.append(element("p", summary.languageHint, "hint summary-language"));
  if (summary.problems.length > 0) {
    const list = element("ul");
    for (const problem of summary.problems) {
      const item = element("li", `${problem.conversation ? `${problem.conversation}: ` : ""}${problem.reason}`);
      if (problem.suggestion) item.append(element("br"), element("span", problem.suggestion, "hint"));
      list.append(item);
    }
    result.append(element("h3", "Problems"), list);
  }
  if (summary.skipped.length > 0) result.append(element("h3", "Left out on purpose"), skippedList(summary.skipped));
  if (summary.repaired.length > 0) {
    const list = element("ul");
    for (const repair of summary.repaired)
      list.append(element("li", `${repair.file}, record ${repair.record}: ${repair.fields.join(", ")} (“${repair.text}”)`));
    const note = element(
      "p",
      "Their text was not valid Unicode (half an emoji, bytes that are not UTF-8): imported with � in its place.",
      "hint",
    );
    result.append(element("h3", "Repaired"), note, list);
  }
  for (const id of summary.importIds) {
    const link = element("a", `See the conversations of import ${id}`);
    link.href = `/conversations?import=${encodeURIComponent(id)}`;
    const line = element("p");
    line.append(link);
    result.append(line);
  }
}

/** Files named for one reason left out; the rest are counted (300 subagent sessions are one line). */
const SHOWN_SKIPPED_FILES = 3;

/** What the import left out and why, one line a reason, as `mnemo import` prints it. */
function skippedList(skipped) {
  const reasons = new Map();
  for (const { reason, count, file } of skipped) {
    const seen = reasons.get(reason) ?? { count: 0, files: [] };
    seen.count += count;
    seen.files.push(file);
    reasons.set(reason, seen);
  }
  const list = element("ul", undefined, "summary-skipped");
  for (const [reason, { count, files }] of reasons) {
    const more = files.length - SHOWN_SKIPPED_FILES;
    const where =
      files.length === 1
        ? `in ${files[0]}`
        : `in ${files.length.toLocaleString("en-US")} files: ${files.slice(0, SHOWN_SKIPPED_FILES).join(", ")}${more > 0 ? ` and ${more.toLocaleString("en-US")} more` : ""}`;
    list.append(element("li", `${count.toLocaleString("en-US")} × ${reason} (${where})`));
  }
  return list;
}

/** A finished import whose file could not be read: nothing of it was imported, or indexed. */
function nothingRead(job) {
  return job.reading.conversations === 0 && job.summary.files.some((file) => file.error);
}

/** What a finished import did: a file that could not be read is not "imported and searchable". */
function doneStatus(job) {
  if (nothingRead(job)) return `Nothing was imported: ${job.filename} could not be read (see Problems).`;
  if (job.summary.problems.length > 0)
    return `Done, with problems: what ${job.filename} holds is imported and searchable, except what Problems lists.`;
  return `Done: ${job.filename} is imported and searchable.`;
}

const LOST_SERVER =
  "Lost contact with the server: is mnemo still running? Once it is, reload this page: Recent imports says how the import went.";

/** A GET of the page's own server, or null when it cannot be reached (stopped, or the network is down): fetch rejects then. */
async function fetchOrNull(url) {
  try {
    return await fetch(url, { headers: { "X-Requested-With": "mnemo" } });
  } catch {
    return null;
  }
}

async function pollJob(job, button) {
  let most = 0;
  for (;;) {
    if (job.state === "waiting") status("Waiting for another import to finish…");
    if (job.state === "reading" || job.state === "indexing" || job.state === "done") {
      const { bytesRead, totalBytes, conversations } = job.reading;
      setStep("reading", totalBytes ? bytesRead / totalBytes : 0, `${conversations} conversations`);
      if (job.state === "reading") status(`Reading the export: ${conversations} conversations so far`);
    }
    if (job.state === "indexing" || job.state === "done") {
      const { ready, pending } = job.indexing;
      most = Math.max(most, pending);
      setStep("indexing", most ? 1 - pending / most : 1, `${ready} ready, ${pending} to go`);
      if (job.state === "indexing") status(`Indexing: ${pending} conversations to go`);
    }
    if (job.state === "done") {
      setStep("reading", 1, `${job.reading.conversations} conversations`);
      if (nothingRead(job)) setStep("indexing", 0, "nothing to index");
      else setStep("indexing", 1, "done");
      status(doneStatus(job));
      showSummary(job);
      button.disabled = false;
      return;
    }
    if (job.state === "failed") {
      status(`The import failed: ${job.error ? job.error.message : "see the server's log"}`);
      button.disabled = false;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    const response = await fetchOrNull(`/import/jobs/${encodeURIComponent(job.id)}`);
    if (!response) {
      status(LOST_SERVER);
      button.disabled = false;
      return;
    }
    if (!response.ok) {
      status(`Lost track of the import (${response.status}): see Recent imports after reloading.`);
      button.disabled = false;
      return;
    }
    job = await response.json();
  }
}

/** The Import page: the file goes as the request body, with the upload's progress, then the job's. */
function importForm() {
  const form = $("form[data-import]");
  if (!form) return;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = form.elements.file.files[0];
    if (!file) return;
    const button = $("button[type=submit]", form);
    button.disabled = true;
    $("#import-progress").hidden = false;
    $("#import-result").replaceChildren();
    for (const step of ["upload", "reading", "indexing"]) setStep(step, 0, "");
    status(`Uploading ${file.name}…`);
    // The size too: a file over the server's limit is refused before it is sent, and one cut short is not imported in part.
    // Its time too: a conversation without a date takes it, so the same file uploaded again changes nothing.
    const params = new URLSearchParams({ filename: file.name, size: String(file.size), lastModified: String(file.lastModified) });
    const platform = form.elements.platform.value.trim();
    if (platform) params.set("platform", platform);
    const request = new XMLHttpRequest();
    request.open("POST", `/import/upload?${params}`);
    request.setRequestHeader("X-CSRF-Token", form.elements._csrf.value);
    request.setRequestHeader("X-Requested-With", "mnemo");
    request.setRequestHeader("Content-Type", "application/octet-stream");
    request.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) setStep("upload", e.loaded / e.total, `${mb(e.loaded)} of ${mb(e.total)}`);
    });
    request.addEventListener("load", () => {
      let body;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        body = { error: `The server answered ${request.status}` };
      }
      if (request.status !== 200) {
        status(`The upload failed: ${body.error}${body.suggestion ? ` ${body.suggestion}` : ""}`);
        button.disabled = false;
        return;
      }
      setStep("upload", 1, mb(body.bytesReceived));
      followImports();
      pollJob(body, button);
    });
    request.addEventListener("error", () => {
      status("The upload failed: the server could not be reached.");
      button.disabled = false;
    });
    request.send(file);
  });
}

/**
 * Recent imports, live: while one is running, the section is fetched again every second and put in
 * place (not while the keyboard is inside it, which would lose its focus), until none runs.
 */
let following = false;
async function followImports() {
  if (following) return;
  following = true;
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const section = $("#recent-imports");
      if (!section) return;
      const response = await fetchOrNull("/import/recent");
      if (!response?.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("recent-imports");
      if (!fresh) return;
      if (!section.contains(document.activeElement)) section.replaceWith(document.adoptNode(fresh));
      if (!fresh.hasAttribute("data-running")) return;
    }
  } finally {
    following = false;
  }
}

function liveImports() {
  if ($("#recent-imports[data-running]")) followImports();
}

selectAll();
copyButtons();
focusHit();
importForm();
liveImports();
