// Every format of the registry, imported through each face a person imports with: the CLI (`mnemo
// import`, reading the files itself), the REST upload (POST /api/chat-history/imports of a running
// `mnemo serve`) and the web app's Import page (its upload, posted as the page's script posts it).
// Each fixture of the table that says what its import gives (test/importers/fixture-table.ts) is
// checked the same way on each face: its format, its conversations and their messages as stored,
// the app's platform id, and search finding its words in it; recall cites it.
//
// It needs seconds, not minutes, for what cannot be shared: one `mnemo import` of every file (each
// run opens the store and loads the model, so one run for all), two `users add`, one `mnemo
// serve` for all formats and all faces (the bundled model loads once), and the indexing of every
// conversation three times over (each face imports into a user of its own, so each import stores
// its conversations anew).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importerOf, IMPORTERS } from "../../src/importers/registry.js";
import { isolatedEnv, ROOT, runCli, serveStore, tempDir, type ServedStore } from "../helpers.js";
import { importedFixtures, type Imported } from "./fixture-table.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");
const ROWS = importedFixtures();
const FACES = ["the CLI", "the REST upload", "the web import page"] as const;
type Face = (typeof FACES)[number];

/** What one face's import of one file gave, and whose store it went to. */
interface FileImport {
  format: string | null;
  conversations: number;
  /** The internal ids of the conversations it stored, in the file's order. */
  conversationIds: string[];
  token: string;
}

interface Summary {
  files: { path: string; format: string | null; conversations: number; error?: string }[];
  new: number;
  updated: number;
  unchanged: number;
  failed: number;
  rejected: number;
  problems: { reason: string }[];
  conversationIds: string[];
}

interface Job {
  id: string;
  state: string;
  summary?: Summary;
}

let served: ServedStore;
let importPage = "";
const imported = new Map<Face, Map<string, FileImport>>();

beforeAll(async () => {
  const store = path.join(tempDir(), "store");
  const local = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  // The CLI reads every file itself into the default user's store; `mnemo serve` indexes it below.
  const files = ROWS.map(([file]) => path.join(EXPORTS, file));
  const cli = await runCli(["--json", "import", "--no-wait", ...files], { env: local });
  expect(cli.code, cli.stderr).toBe(0);
  const tokens = await Promise.all(["rest", "web"].map(async (name) => addUser(name, local)));
  served = await serveStore({ store });
  imported.set("the CLI", byFile(JSON.parse(cli.stdout) as Summary, served.token));
  const [rest, web] = await Promise.all([restImports(tokens[0]!), webImports(tokens[1]!)]);
  imported.set("the REST upload", rest);
  imported.set("the web import page", web);
  await indexed(served.token);
}, 300_000);

afterAll(async () => {
  await served?.stop();
});

async function addUser(name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const added = await runCli(["--json", "users", "add", name], { env });
  expect(added.code, added.stderr).toBe(0);
  return (JSON.parse(added.stdout) as { token: string }).token;
}

/** One run's summary, per file: its files in order, and its stored ids in the same order (nothing failed, so one per conversation). */
function byFile(summary: Summary, token: string): Map<string, FileImport> {
  expect(summary.problems, "nothing failed, so the ids line up with the files").toEqual([]);
  const out = new Map<string, FileImport>();
  let next = 0;
  summary.files.forEach((file, i) => {
    const conversationIds = summary.conversationIds.slice(next, next + file.conversations);
    next += file.conversations;
    out.set(ROWS[i]![0], { format: file.format, conversations: file.conversations, conversationIds, token });
  });
  return out;
}

/** Each file posted to the REST upload as the user `rest`, all at once, and their jobs followed to the end. */
async function restImports(token: string): Promise<Map<string, FileImport>> {
  const auth = { authorization: `Bearer ${token}` };
  const jobs = await Promise.all(
    ROWS.map(async ([file]) => {
      const body = fs.readFileSync(path.join(EXPORTS, file));
      const query = new URLSearchParams({ filename: path.basename(file), size: String(body.length) });
      const posted = await fetch(`${served.url}/api/chat-history/imports?${query}`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/octet-stream" },
        body,
      });
      expect(posted.status, file).toBe(200);
      return ((await posted.json()) as Job).id;
    }),
  );
  return finished(jobs, (id) => fetch(`${served.url}/api/chat-history/imports/${id}`, { headers: auth }), token);
}

/**
 * The user `web` signed in as `mnemo ui` signs in (a one-time link bought with the token), the Import
 * page read for its CSRF token, and each file posted to its upload as the page's script posts it.
 */
async function webImports(token: string): Promise<Map<string, FileImport>> {
  const bought = await fetch(`${served.url}/auth/code`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  const { path: link } = (await bought.json()) as { path: string };
  const signedIn = await fetch(`${served.url}${link}`, { redirect: "manual" });
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
  expect(cookie).toMatch(/^mnemo_session_\d+=/);
  importPage = await (await fetch(`${served.url}/import`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(importPage)?.[1] ?? "";
  const browser = { cookie, origin: served.url, "x-requested-with": "mnemo" };
  const jobs = await Promise.all(
    ROWS.map(async ([file]) => {
      const body = fs.readFileSync(path.join(EXPORTS, file));
      const query = new URLSearchParams({ filename: path.basename(file), size: String(body.length) });
      const posted = await fetch(`${served.url}/import/upload?${query}`, {
        method: "POST",
        headers: { ...browser, "x-csrf-token": csrf, "content-type": "application/octet-stream" },
        body,
      });
      expect(posted.status, file).toBe(200);
      return ((await posted.json()) as Job).id;
    }),
  );
  return finished(jobs, (id) => fetch(`${served.url}/import/jobs/${encodeURIComponent(id)}`, { headers: browser }), token);
}

/**
 * The jobs (one per row, in the rows' order) polled until each is done, as what each file gave. One
 * at a time, in order, as the server runs them: polling all of them at once asked hundreds of times
 * a second about jobs still waiting their turn.
 */
async function finished(ids: string[], get: (id: string) => Promise<Response>, token: string): Promise<Map<string, FileImport>> {
  const out = new Map<string, FileImport>();
  for (const [i, id] of ids.entries()) {
    let job = (await (await get(id)).json()) as Job;
    while (job.state !== "done" && job.state !== "failed") {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await (await get(id)).json()) as Job;
    }
    const [file] = ROWS[i]!;
    const summary = job.summary!;
    expect(summary.failed + summary.rejected, file).toBe(0);
    expect(summary.new + summary.updated + summary.unchanged, file).toBe(summary.files[0]!.conversations);
    out.set(file, { ...summary.files[0]!, conversationIds: summary.conversationIds, token });
  }
  return out;
}

async function api<T>(method: string, route: string, token: string, body?: unknown): Promise<T> {
  const response = await fetch(`${served.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, `${method} ${route}`).toBe(200);
  return (await response.json()) as T;
}

/** Waits until none of the user's conversations is queued or processing (the hook's timeout bounds it). */
async function indexed(token: string): Promise<void> {
  for (;;) {
    const { counts } = await api<{ counts: { queued: number; processing: number } }>("GET", "/api/chat-history/status", token);
    if (counts.queued + counts.processing === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("every format of the registry", () => {
  it("has a fixture imported here", () => {
    const formats = new Set(ROWS.map(([, row]) => row.format));
    expect(IMPORTERS.map((importer) => importer.id).filter((id) => !formats.has(id))).toEqual([]);
  });

  it("is named on the web's Import page", () => {
    for (const importer of IMPORTERS) expect(importPage).toContain(`<strong>${importer.name.replaceAll("'", "&#39;")}</strong>`);
  });
});

describe.each(FACES)("imported through %s", (face) => {
  it.each(ROWS)("%s: its conversations and messages as stored, on the app's platform, found by search", async (file, row: Imported) => {
    const got = imported.get(face)!.get(file)!;
    expect(got.format).toBe(row.format);
    expect(got.conversations).toBe(row.conversations);
    expect(new Set(got.conversationIds).size).toBe(row.conversations);
    type Detail = { platform: string; status: string; messages: unknown[] };
    const details = await Promise.all(
      got.conversationIds.map((id) =>
        api<Detail>("GET", `/api/chat-history/conversation?conversationId=${encodeURIComponent(id)}`, got.token),
      ),
    );
    expect(details.reduce((sum, detail) => sum + detail.messages.length, 0)).toBe(row.messages);
    expect(details.map((detail) => detail.status)).toEqual(details.map(() => "ready"));
    if (importerOf(row.format).chatApp) expect(new Set(details.map((detail) => detail.platform))).toEqual(new Set([row.format]));

    const { results } = await api<{ results: { conversationId: string }[] }>("POST", "/api/chat-history/search", got.token, {
      query: row.finds,
      limit: 10,
    });
    expect(
      results.some((hit) => got.conversationIds.includes(hit.conversationId)),
      `search for "${row.finds}"`,
    ).toBe(true);
  });
});

// Recall reads the store whatever face filled it: asked once per format, of what the CLI imported.
describe("recall", () => {
  it.each(ROWS)("%s: cites a conversation of it", async (file, row: Imported) => {
    const got = imported.get("the CLI")!.get(file)!;
    const recalled = await api<{ sources: { conversationId: string }[] }>("POST", "/api/chat-history/inject", got.token, {
      query: row.finds,
    });
    const cited = recalled.sources.some((source) => got.conversationIds.includes(source.conversationId));
    expect(cited, `recall of "${row.finds}"`).toBe(true);
  });
});
