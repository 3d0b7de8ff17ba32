import fs from "node:fs";
import net from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";
import { api, startUi, type UiServer } from "./browser.js";

/**
 * The web app's routes against hostile requests, over real HTTP to `mnemo ui`'s server: body
 * limits, redirects, form text, sessions, upload parameters and what the log says.
 */

let server: UiServer;
let origin: URL;

beforeAll(async () => {
  server = await startUi({ spawn: true });
  origin = new URL(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

interface Browser {
  cookie: string;
  csrf: string;
}

/** A browser signed in through a one-time link (as `mnemo ui` opens it), with its CSRF token. */
async function signIn(loginPath?: string): Promise<Browser> {
  const link = loginPath ?? (await freshLoginPath());
  const signedIn = await request(`${server.url}${link}`);
  await signedIn.body.dump();
  const setCookie = String(signedIn.headers["set-cookie"] ?? "");
  const cookie = setCookie.split(";")[0]!;
  expect(cookie).toMatch(/^mnemo_session_\d+=/);
  const page = await request(`${server.url}/memories`, { headers: { cookie } });
  const html = await page.body.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(csrf).toBeTruthy();
  return { cookie, csrf: csrf! };
}

/** A one-time link bought from the running server with the default user's token, as `mnemo ui` does. */
async function freshLoginPath(token = server.token()): Promise<string> {
  const response = await request(`${server.url}/auth/code`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  expect(response.statusCode).toBe(200);
  return ((await response.body.json()) as { path: string }).path;
}

/** A form posted as a browser of ours posts it. */
async function post(browser: Browser, path: string, body: string | Buffer, type = "application/x-www-form-urlencoded") {
  const response = await request(`${server.url}${path}`, {
    method: "POST",
    headers: { cookie: browser.cookie, origin: server.url, "content-type": type },
    body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, location: response.headers["location"] as string | undefined, text };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** The flash message the next page shows (the one the redirect leads to). */
async function flash(browser: Browser): Promise<string> {
  const page = await request(`${server.url}/memories`, { headers: { cookie: browser.cookie } });
  const html = await page.body.text();
  // Above the page, or under the field it is about (a refused form's).
  return (/<(?:div|p)[^>]* role="(?:alert|status)" class="flash [\w -]+">([^<]*)</.exec(html)?.[1] ?? "").replaceAll("&quot;", '"');
}

async function memoryTexts(): Promise<string[]> {
  const { body } = await api<{ memories: string[] }>(server, "GET", "/api/v2/memory?count=1000");
  return body.memories;
}

/** The server's resident memory in MB (its own process). */
function rssMb(): number {
  const status = fs.readFileSync(`/proc/${server.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

/**
 * Sends the request head and then body bytes over a plain socket until the server has answered
 * (or `bodyBytes` are sent), and returns the answer. For bodies no HTTP client would send whole: a
 * declared 300 MB, an endless chunked stream.
 */
function rawPost(
  path: string,
  headers: Record<string, string>,
  bodyBytes: number,
  chunked: boolean,
): Promise<{ status: number; text: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(origin.port), origin.hostname);
    let sent = 0;
    let answer = Buffer.alloc(0);
    let answered = false;
    const chunk = Buffer.alloc(256 * 1024, "a");
    const head = [`POST ${path} HTTP/1.1`, `Host: ${origin.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    if (chunked) head.push("Transfer-Encoding: chunked");
    socket.on("data", (data: Buffer) => {
      answer = Buffer.concat([answer, data]);
      const end = answer.indexOf("\r\n\r\n");
      if (answered || end === -1) return;
      const length = Number(/content-length: (\d+)/i.exec(answer.subarray(0, end).toString("latin1"))?.[1] ?? 0);
      if (answer.length < end + 4 + length) return;
      answered = true;
      const text = answer.toString("utf8");
      resolve({ status: Number(text.split(" ")[1]), text, sent });
      socket.destroy();
    });
    socket.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < bodyBytes) {
        const piece = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk;
        sent += chunk.length;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
    };
    socket.write(`${head.join("\r\n")}\r\n\r\n`, pump);
  });
}

describe("body limits, checked before a session or a sign-in reads the body", () => {
  it("refuses 300 MB declared to /login at once, and a chunked body past 1 MB, without the server growing", async () => {
    const before = rssMb();
    const declared = await rawPost(
      "/login",
      { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(300 * 1024 ** 2) },
      1024 ** 2,
      false,
    );
    expect(declared.status).toBe(413);
    // Chunked, without a length: the server reads up to its limit and answers; we would send 300 MB.
    const chunked = await rawPost("/login", { "Content-Type": "application/x-www-form-urlencoded" }, 300 * 1024 ** 2, true);
    expect(chunked.status).toBe(413);
    expect(chunked.sent).toBeLessThan(100 * 1024 ** 2);
    expect(rssMb() - before).toBeLessThan(100);
  });

  it("refuses a signed-in form over 1 MB, and a multipart image form over 15 MB, storing nothing", async () => {
    const browser = await signIn();
    const headers = { Cookie: browser.cookie, Origin: server.url };
    const urlencoded = { ...headers, "Content-Type": "application/x-www-form-urlencoded" };
    const declared = await rawPost("/memories", { ...urlencoded, "Content-Length": String(2 * 1024 ** 2) }, 2 * 1024 ** 2, false);
    expect(declared.status).toBe(413);
    expect(declared.text).toContain("The form is over the 1 MB limit of a form");
    expect((await rawPost("/memories", urlencoded, 4 * 1024 ** 2, true)).status).toBe(413);
    const multipart = { ...headers, "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(16 * 1024 ** 2) };
    expect((await rawPost("/memories/image", multipart, 0, false)).status).toBe(413);
    expect(await memoryTexts()).toEqual([]);
  });

  it("answers an API request without a token 401 before reading its body", async () => {
    const response = await rawPost(
      "/api/memory",
      { "Content-Type": "application/json", "Content-Length": String(300 * 1024 ** 2) },
      1024 ** 2,
      false,
    );
    expect(response.status).toBe(401);
  });
});

describe("methods a page does not take", () => {
  it("answers OPTIONS 204 with the methods a page takes, and another method 405 naming them, as the API does (both were a JSON 404)", async () => {
    const ask = async (method: string, path: string) => {
      const answer = await request(`${server.url}${path}`, { method, headers: { accept: "text/html" } });
      return { status: answer.statusCode, allow: answer.headers["allow"], body: await answer.body.text() };
    };
    expect(await ask("OPTIONS", "/")).toEqual({ status: 204, allow: "GET, OPTIONS", body: "" });
    expect(await ask("OPTIONS", "/memories")).toMatchObject({ status: 204, allow: "GET, POST, OPTIONS" });
    expect(await ask("OPTIONS", "/memories/mem_1/history")).toMatchObject({ status: 204, allow: "GET, OPTIONS" });
    expect(await ask("OPTIONS", "/trash/delete")).toMatchObject({ status: 204, allow: "POST, GET, OPTIONS" });
    const post = await ask("POST", "/");
    expect([post.status, post.allow, JSON.parse(post.body)]).toEqual([405, "GET, OPTIONS", { error: "/ does not take POST: use GET" }]);
    const put = await ask("PUT", "/memories/mem_1/history");
    expect([put.status, put.allow, JSON.parse(put.body)]).toEqual([
      405,
      "GET, OPTIONS",
      { error: "/memories/mem_1/history does not take PUT: use GET" },
    ]);
    expect((await ask("DELETE", "/logout")).allow).toBe("POST, OPTIONS");
    // No page there: still not found.
    expect((await ask("OPTIONS", "/no/such/page")).status).toBe(404);
  });
});

describe("deleting for good what is not in the trash", () => {
  it("says nothing was deleted and why, where it said 'Deleted 0 items for good.'", async () => {
    const browser = await signIn();
    const answer = await post(browser, "/trash/delete", `_csrf=${browser.csrf}&confirmed=yes&ids=trs_01M8KMYCMQNBQPA53118TKM5YV`);
    expect(answer.status).toBe(303);
    expect(await flash(browser)).toBe(
      "Nothing was deleted: none of it is in the trash any more (restored or deleted already, or past its 30 days).",
    );
  });

  it("says how many of those chosen were no longer there, where it said only 'Deleted 1 item for good.'", async () => {
    const browser = await signIn();
    const stored = await api<{ memoryId: string }>(server, "POST", "/api/memory", { text: "2025-02-01 Chosen on the trash page" });
    const moved = await api<{ items: { id: string }[] }>(server, "POST", "/api/trash", { memoryIds: [stored.body.memoryId] });
    const ids = [moved.body.items[0]!.id, "trs_01M8KMYCMQNBQPA53118TKM5YV"];
    const answer = await post(browser, "/trash/delete", `_csrf=${browser.csrf}&confirmed=yes&ids=${ids[0]}&ids=${ids[1]}`);
    expect(answer.status).toBe(303);
    expect(await flash(browser)).toBe("Deleted 1 item for good. 1 item was no longer in the trash.");
  });
});

describe("redirects after an action go only to a path of this server", () => {
  /** The known ways to make a "local" path leave the site, and other things that are no path. */
  const BYPASSES = [
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "/\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "\t//evil.example",
    " //evil.example",
    "/.//evil.example",
    "/%2e//evil.example",
    "/x/..//evil.example",
    "https://evil.example",
    "http:evil.example",
    "https:/evil.example",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//user:pass@evil.example",
    "/memories\r\nSet-Cookie: stolen=1",
    "/memories\u0000",
    "",
  ];

  /** Where a browser goes for this Location: it must be this server. */
  function landsHere(location: string | undefined): boolean {
    if (!location) return false;
    // A browser drops tabs and line breaks and reads "\" as "/" before it resolves a Location.
    const asBrowserReads = location.replace(/[\t\n\r]/g, "");
    return new URL(asBrowserReads, server.url).origin === origin.origin && !/[\u0000-\u001f\\]/.test(location);
  }

  it("never redirects a form's `back` off the site, on success or on error, and answers with a redirect, not a 500", async () => {
    const browser = await signIn();
    for (const back of BYPASSES) {
      const failed = await post(browser, "/memories/bulk", form({ _csrf: browser.csrf, action: "move", back }));
      expect(failed.status, JSON.stringify(back)).toBe(303);
      expect(landsHere(failed.location), `${JSON.stringify(back)} → ${failed.location}`).toBe(true);
      const stored = await post(browser, "/buckets", form({ _csrf: browser.csrf, name: `b${BYPASSES.indexOf(back)}`, back }));
      expect(stored.status, JSON.stringify(back)).toBe(303);
      expect(landsHere(stored.location), `${JSON.stringify(back)} → ${stored.location}`).toBe(true);
    }
    // Same-origin paths of every shape go where they say.
    for (const back of ["/conversations?title=a%26b&page=2", "/conversations/conv_1#hit", "/memories?q=%2F%2Fevil"]) {
      expect((await post(browser, "/memories/bulk", form({ _csrf: browser.csrf, back }))).location).toBe(back);
    }
  });

  it("never sends a signed-in browser off the site from the login page's `next`", async () => {
    for (const next of BYPASSES) {
      const response = await request(`${server.url}/login`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/x-www-form-urlencoded" },
        body: form({ token: server.token(), next }),
      });
      await response.body.dump();
      expect(response.statusCode, JSON.stringify(next)).toBe(303);
      expect(landsHere(response.headers["location"] as string), JSON.stringify(next)).toBe(true);
    }
  });

  it("stores a memory once when its `back` holds a line break (it answered 500, so a retry stored it twice)", async () => {
    const browser = await signIn();
    const text = "2025-04-01 Stored once despite a bad back";
    const response = await post(browser, "/memories", form({ _csrf: browser.csrf, text, back: "/memories\nX-Evil: 1" }));
    expect(response.status).toBe(303);
    expect(response.location).toBe("/memories");
    expect((await memoryTexts()).filter((stored) => stored === text)).toHaveLength(1);
  });
});

describe("form text is Unicode or refused, as the API refuses it", () => {
  it("refuses bytes that are not UTF-8 and a lone surrogate in a form field, naming the field, and stores nothing", async () => {
    const browser = await signIn();
    for (const [bytes, what] of [
      ["%FF%FEbad", "not UTF-8"],
      ["%ED%A0%80alone", "a lone surrogate, encoded"],
      ["%C3", "a cut sequence"],
    ] as const) {
      const response = await post(browser, "/memories", `_csrf=${browser.csrf}&back=%2Fmemories&text=2025-04-02%20${bytes}`);
      expect(response.status, what).toBe(303);
      expect(await flash(browser), what).toMatch(/^Text: is not valid Unicode text/);
    }
    expect((await memoryTexts()).some((text) => text.includes("\uFFFD"))).toBe(false);
  });

  it("refuses them in a multipart form's text and in a file's name", async () => {
    const browser = await signIn();
    const png = fs.readFileSync(new URL("../../fixtures/images/red-square.png", import.meta.url));
    const multipart = (description: Buffer, filename: Buffer) =>
      Buffer.concat([
        Buffer.from(`--b\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${browser.csrf}\r\n`),
        Buffer.from('--b\r\nContent-Disposition: form-data; name="description"\r\n\r\n'),
        description,
        Buffer.from('\r\n--b\r\nContent-Disposition: form-data; name="image"; filename="'),
        filename,
        Buffer.from('"\r\nContent-Type: image/png\r\n\r\n'),
        png,
        Buffer.from("\r\n--b--\r\n"),
      ]);
    const bad = Buffer.from([0x61, 0xff, 0x62]);
    const type = "multipart/form-data; boundary=b";
    expect((await post(browser, "/memories/image", multipart(bad, Buffer.from("a.png")), type)).status).toBe(303);
    expect(await flash(browser)).toMatch(/^Description: is not valid Unicode text/);
    expect(
      (await post(browser, "/memories/image", multipart(Buffer.from("ok"), Buffer.concat([bad, Buffer.from(".png")])), type)).status,
    ).toBe(303);
    expect(await flash(browser)).toMatch(/^Image: has a file name that is not valid Unicode text/);
    // Well-formed, with a name in UTF-8 as browsers send it: stored.
    expect((await post(browser, "/memories/image", multipart(Buffer.from("Café sign"), Buffer.from("café.png")), type)).status).toBe(303);
    expect(await flash(browser)).toBe("Image memory added.");
  });

  it("says a malformed multipart body is one, and logs no internal error for it", async () => {
    const browser = await signIn();
    const garbage = await post(browser, "/memories/image", "--b\r\nno headers here", "multipart/form-data; boundary=b");
    expect(garbage.status).toBe(303);
    expect(await flash(browser)).toMatch(/is not a well-formed form/);
    const noBoundary = await post(browser, "/memories/image", "whatever", "multipart/form-data");
    expect(noBoundary.status).toBe(303);
    expect(server.log()).not.toContain("internal error");
  });
});

describe("query parameters typed into the address", () => {
  /** The page's status and what it says is wrong (its alert), or "" when nothing is. */
  async function pageAt(browser: Browser, path: string): Promise<{ status: number; alert: string; html: string }> {
    const response = await request(`${server.url}${path}`, { headers: { cookie: browser.cookie } });
    const html = await response.body.text();
    const alert = (/role="alert"[^>]*>([^<]*)</.exec(html)?.[1] ?? "").replaceAll("&quot;", '"');
    return { status: response.statusCode, alert, html };
  }

  it("says in words what is wrong with a number that is none, and reads a page that is none as the first, never NaN", async () => {
    const browser = await signIn();
    const said = {
      "/memories?bucket=abc": 'Bucket: must be a number, not "abc"',
      "/search?q=tram&limit=abc": 'Results: must be a number, not "abc"',
      "/recall?q=tram&maxTokens=12x": 'Max tokens: must be a number, not "12x"',
      // Said at the form's field by the page's own label, not as an error page in the API's words.
      "/search?q=%E2%80%8B":
        "Words or a question: must not be empty: it holds only invisible characters (such as zero-width spaces or control characters)",
      [`/recall?q=${"a".repeat(4001)}`]: "What do you want to remember?: must be at most 4000 characters",
      "/recall?q=tram&platform=myspace": 'Platform: must be one of "chatgpt", "claude", "typingmind", not "myspace"',
    };
    for (const [path, alert] of Object.entries(said)) {
      const page = await pageAt(browser, path);
      expect(page, path).toMatchObject({ status: 400, alert });
      // Search and Recall say it at the form, which stays to correct it.
      if (!path.startsWith("/memories")) expect(page.html, path).toContain('<p id="form-error" role="alert"');
    }
    for (const path of [
      "/memories?page=abc",
      "/memories?page=99999999999999999999",
      "/trash?page=-3",
      "/conversations?page=abc",
      "/search?limit=abc",
      "/recall?maxTokens=abc",
    ]) {
      expect(await pageAt(browser, path), path).toMatchObject({ status: 200, alert: "" });
    }
    for (const path of [...Object.keys(said), "/search?limit=abc", "/memories?page=99999999999999999999"]) {
      expect((await pageAt(browser, path)).html, path).not.toMatch(/NaN|9007199254740991/);
    }
  });
});

describe("a session lasts only as long as its user and their token", () => {
  it("ends when the user is removed, and when their token is rotated elsewhere", async () => {
    const added = JSON.parse((await runCli(["--json", "users", "add", "carol"], { env: server.env })).stdout) as { token: string };
    const browser = await signIn(await freshLoginPath(added.token));
    const page = async () => {
      const response = await request(`${server.url}/memories`, { headers: { cookie: browser.cookie } });
      await response.body.dump();
      return response.statusCode;
    };
    expect(await page()).toBe(200);
    await runCli(["--yes", "users", "remove", "carol"], { env: server.env });
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // a session's user is checked every 2 s, as a token is
    expect(await page()).toBe(303);

    const own = await signIn();
    await runCli(["token", "--rotate"], { env: server.env });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const after = await request(`${server.url}/memories`, { headers: { cookie: own.cookie } });
    await after.body.dump();
    expect(after.statusCode).toBe(303);
    expect(after.headers["location"]).toBe("/login?next=%2Fmemories");
  });
});

describe("the upload's parameters", () => {
  async function upload(browser: Browser, query: string, body = '{"hello": 1}') {
    const response = await request(`${server.url}/import/upload?${query}`, {
      method: "POST",
      headers: { cookie: browser.cookie, origin: server.url, "x-csrf-token": browser.csrf, "x-requested-with": "mnemo" },
      body,
    });
    return { status: response.statusCode, body: (await response.body.json()) as { error?: string; state?: string } };
  }

  it("refuses a size that is negative, not a whole number, over the limit, or not the body's, and a platform that is no id", async () => {
    const browser = await signIn();
    expect(await upload(browser, "filename=a.json&size=-1")).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^Export file: /) },
    });
    expect(await upload(browser, "filename=a.json&size=5e9")).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^Export file: must be at most/) },
    });
    expect(await upload(browser, "filename=a.json&size=1.5")).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^Export file: /) },
    });
    expect(await upload(browser, "filename=a.json&size=100")).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining("ended after 12 of the 100 bytes") },
    });
    expect(await upload(browser, "filename=a.json&platform=no%20spaces")).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^platform: /) },
    });
    expect(await upload(browser, "filename=a.json&platform=%FF")).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^platform: is not valid Unicode/) },
    });
    expect(await upload(browser, "filename=a.json&size=12")).toMatchObject({ status: 200, body: { state: expect.any(String) } });
    const api = await request(`${server.url}/api/chat-history/imports?size=-1`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token()}` },
      body: "{}",
    });
    expect(api.statusCode).toBe(400);
    await api.body.dump();
  });

  it("logs a client that goes away mid-upload as that, not as an internal error with a stack", async () => {
    const browser = await signIn();
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(origin.port), origin.hostname, () => {
        socket.write(
          [
            "POST /import/upload?filename=cut.json HTTP/1.1",
            `Host: ${origin.host}`,
            `Cookie: ${browser.cookie}`,
            `Origin: ${server.url}`,
            `X-CSRF-Token: ${browser.csrf}`,
            "Content-Length: 1000000",
            "",
            "[{",
          ].join("\r\n"),
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 300);
      });
    });
    await expect
      .poll(() => server.log(), { timeout: 5_000 })
      .toContain("POST /import/upload: the client closed the connection before its body was complete");
    expect(server.log()).not.toContain("internal error");
    // The uploads before this one go once their imports end: one at a time, each waiting for its index,
    // and the first starting the process that reads uploads (seconds, more on a busy machine). Then none is left.
    const unfinished = async () => {
      const response = await request(`${server.url}/api/chat-history/imports`, { headers: { authorization: `Bearer ${server.token()}` } });
      const { jobs } = (await response.body.json()) as { jobs: { finishedAt?: string }[] };
      return jobs.filter((job) => job.finishedAt === undefined).length;
    };
    await expect.poll(unfinished, { timeout: 60_000, interval: 250 }).toBe(0);
    expect(fs.readdirSync(`${server.dataDir}/uploads`)).toEqual([]);
  });
});
