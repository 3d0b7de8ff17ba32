// The web app's From and To are the days on the clock its pages show times on (the server's), not
// UTC's: a server in Auckland, in a process of its own since a zone is the process's (a few seconds).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, type ServedStore, serveStore, tempDir } from "../helpers.js";

let served: ServedStore;
let cookie: string;

beforeAll(async () => {
  const store = path.join(tempDir(), "store");
  served = await serveStore({
    spawn: true,
    serverEnv: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled", MNEMO_RERANKER: "none", TZ: "Pacific/Auckland" }),
  });
  // Asked at 17:30 UTC on 2024-07-11: 05:30 on 2024-07-12 in Auckland.
  const upload = fs.readFileSync(path.join(ROOT, "fixtures", "exports", "upload", "single.json"), "utf8");
  const ingest = await fetch(`${served.url}/api/chat-history/ingest/custom-online`, {
    method: "POST",
    headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
    body: upload,
  });
  expect(ingest.status, await ingest.text()).toBe(200);
  for (;;) {
    const status = await fetch(`${served.url}/api/chat-history/status`, { headers: { authorization: `Bearer ${served.token}` } });
    const { counts } = (await status.json()) as { counts: { queued: number; processing: number } };
    if (counts.queued + counts.processing === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const login = await fetch(`${served.url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: served.url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: served.token, next: "/" }),
  });
  cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
}, 60_000);

afterAll(async () => served?.stop());

const pageText = async (route: string) => {
  const response = await fetch(`${served.url}${route}`, { headers: { cookie } });
  expect(response.status, route).toBe(200);
  return (await response.text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
};

describe("From and To in the web app", () => {
  it("are the days the pages show times on: Search, Recall and Conversations alike", async () => {
    const q = encodeURIComponent("yellow tomato leaves");
    expect(await pageText(`/search?q=${q}&from=2024-07-12&to=2024-07-12`)).toMatch(/Tomato plants with yellow leaves 2024-07-12 05:3\d/);
    expect(await pageText(`/search?q=${q}&from=2024-07-11&to=2024-07-11`)).toContain(
      "Nothing in your conversations from 2024-07-11 to 2024-07-11 is about this.",
    );
    expect(await pageText(`/recall?q=${q}&to=2024-07-11`)).toContain("Nothing in your chat history until 2024-07-11 is about this.");
    expect(await pageText(`/recall?q=${q}&from=2024-07-12`)).toContain("Tomato plants with yellow leaves");
    expect(await pageText("/conversations?from=2024-07-12&to=2024-07-12")).toContain("Tomato plants with yellow leaves");
    expect(await pageText("/conversations?from=2024-07-11&to=2024-07-11")).not.toContain("Tomato plants with yellow leaves");
  });
});
