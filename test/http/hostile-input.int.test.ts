import net from "node:net";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { request } from "undici";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import { startServer, type RunningServer } from "../../src/http/listen.js";
import { ROUTES, type Route } from "../../src/http/routes.js";
import { openTestApp } from "../helpers.js";

/**
 * Any request, however hostile, gets a 2xx or a 4xx whose `error` names the field at fault, never
 * a 5xx, and a refused request changes nothing stored. Every route of the route table is sent
 * generated bodies, query strings and path parameters (fast-check), so a route added later is
 * covered too. Runs stay few per route, to keep the suite fast; a failure prints its seed.
 */

const RUNS = Number(process.env["MNEMO_PROPERTY_RUNS"] ?? 12);

let app: App;
let server: RunningServer;
let token: string;
let memoryId: string;
let conversationId: string;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the server answered
  body: any;
}

async function send(method: string, path: string, body?: Uint8Array | string): Promise<Answer> {
  const response = await request(`${server.url}${path}`, {
    method: method.toUpperCase() as "GET",
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body ?? null,
  });
  const text = await response.body.text();
  let answer: Answer;
  try {
    answer = { status: response.statusCode, body: JSON.parse(text) };
  } catch {
    answer = { status: response.statusCode, body: text };
  }
  // The route fuzz may rotate the token: keep the new one, so later requests still reach past the auth check
  if (path.startsWith("/api/token/rotate") && answer.status === 200) token = answer.body.token;
  return answer;
}

/** What a request could change, without what the index worker changes on its own (statuses, chunks). */
async function stored(): Promise<string> {
  const { store } = app.context;
  const [memories, history, buckets, platforms, conversations, messages] = await Promise.all([
    store.select("memories", "true", { columns: ["id", "text", "bucketId", "version", "updatedAt"] }),
    store.select("memoryHistory", "true", { columns: ["id"] }),
    store.select("buckets", "true", { columns: ["userId", "id", "name", "description"] }),
    store.select("platforms", "true", { columns: ["id", "displayName"] }),
    store.select("conversations", "true", { columns: ["id", "title", "pinned", "excluded", "contentHash", "revision"] }),
    store.select("messages", "true", { columns: ["id"] }),
  ]);
  const sorted = (rows: object[]) => rows.map((row) => JSON.stringify(row)).sort();
  return JSON.stringify([memories, history, buckets, platforms, conversations, messages].map(sorted));
}

/** The answer is 2xx, or 4xx with an error that names the field (400); never 5xx. */
function checkAnswer(answer: Answer, what: string): void {
  const told = `${what} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  expect(answer.status, told).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(typeof answer.body?.error, told).toBe("string");
  if (answer.status === 400) {
    expect(typeof answer.body.field, told).toBe("string");
    expect(answer.body.error).toContain(answer.body.field);
  }
}

// ---- generators ----

/** Text a parser, a query language or a store might trip on. */
const SYNTAX = [
  '"',
  '""',
  '" OR ""="',
  "'",
  "\\",
  "%",
  "_",
  "*",
  "?",
  "~",
  "^",
  ":",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "/",
  "+",
  "-",
  "!",
  "&&",
  "||",
  "AND",
  "OR",
  "NOT",
  "TO",
  "IN",
];
const LONE_SURROGATES = ["\ud800", "\udfff", "a\udc00b", "\ud83d"];
const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom(...SYNTAX, ...LONE_SURROGATES, "", " ", "\u0000", "\u202e", "é", "🦊", "null", "0", "-1", "1e309", "true"),
  fc.array(fc.constantFrom(...SYNTAX, "tram", "28", " "), { maxLength: 6 }).map((parts) => parts.join("")),
  fc.string({ maxLength: 3 }).map((s) => s.repeat(2_000)),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  fc.integer(),
  fc.constantFrom(0, -1, 1, 2, 100, 101, 2_000, 2_001, 2 ** 31, -(2 ** 53), 1.5, 1e308),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 4 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** The field names of a body or query schema (both forms of a union). */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodUnion) return [...new Set((schema.options as z.ZodType[]).flatMap(fieldsOf))];
  return [];
}

/** Objects holding some of the schema's fields, with any values, and now and then a field it does not know. */
function hostileObject(fields: string[]): fc.Arbitrary<Record<string, unknown>> {
  const known =
    fields.length === 0 ? fc.constant({}) : fc.record(Object.fromEntries(fields.map((f) => [f, hostileValue])), { requiredKeys: [] });
  return fc
    .tuple(known, fc.option(fc.dictionary(hostileText, hostileValue, { maxKeys: 2 }), { nil: undefined }))
    .map(([a, b]) => ({ ...b, ...a }));
}

/** Bodies that are close to valid, so that the checks behind the schema get reached too. */
function nearValid(route: Route): fc.Arbitrary<unknown> | undefined {
  switch (`${route.method} ${route.path}`) {
    case "post /api/memory":
      return fc.record({ text: hostileText, bucketId: fc.option(fc.constantFrom(1, 2, 99, 0), { nil: undefined }) });
    case "post /api/v2/memory/update":
      return fc.oneof(
        fc.record(
          { memoryId: fc.constantFrom(memoryId, "mem_00000000000000000000000000"), text: hostileText },
          { requiredKeys: ["memoryId"] },
        ),
        fc.record({
          memoryIds: fc.array(fc.constantFrom(memoryId, "x", "mem_00000000000000000000000000"), { maxLength: 3 }),
          bucketName: hostileText,
        }),
      );
    case "post /api/chat-history/ingest/custom-online":
      return fc.record({
        platform: fc.option(hostileText, { nil: undefined }),
        platformDisplayName: fc.option(hostileText, { nil: undefined }),
        conversation: fc.record({
          id: hostileText,
          title: hostileText,
          createdAt: fc.constantFrom("2024-03-01T09:00:00Z", "2024-02-30T00:00:00Z", "yesterday", ""),
          messages: fc.array(fc.record({ id: hostileText, role: fc.constantFrom("human", "assistant", "system"), content: hostileText }), {
            maxLength: 3,
          }),
        }),
      });
    case "post /api/chat-history/search":
      return fc.record({
        query: hostileText,
        limit: fc.option(fc.integer({ min: -1, max: 101 }), { nil: undefined }),
        provider: fc.option(hostileText, { nil: undefined }),
      });
    case "post /api/chat-history/inject":
      return fc.record({ query: hostileText, maxTokens: fc.option(fc.integer({ min: -1, max: 2001 }), { nil: undefined }) });
    case "post /api/buckets":
      return fc.record({ name: hostileText, description: fc.option(hostileText, { nil: undefined }) });
    default:
      return undefined;
  }
}

/** A body as bytes: JSON of a generated value, broken JSON, or JSON with bytes that are not UTF-8 in a string. */
function hostileBody(route: Route): fc.Arbitrary<Uint8Array | string | undefined> {
  const value = fc.oneof(hostileObject(fieldsOf(route.body)), nearValid(route) ?? hostileObject(fieldsOf(route.body)), hostileValue);
  return fc.oneof(
    { weight: 8, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") },
    fc.constantFrom(undefined, "", "{", "[1,]", '{"a":1}}', "\ufeff{}", "[".repeat(100_000)),
    fc
      .tuple(
        fc.constantFrom(...fieldsOf(route.body), "x"),
        fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe9, 0x74, 0xe9], [0xf4, 0x90, 0x80, 0x80]),
      )
      .map(([field, bytes]) => Buffer.concat([Buffer.from(`{"${field}":"a`), Buffer.from(bytes), Buffer.from('b"}')])),
  );
}

const encodedValue = fc.oneof(
  { weight: 4, arbitrary: hostileText.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/gu, "?"))) },
  fc.constantFrom("%FF", "%ED%A0%80", "%C3", "caf%E9", "%", "%%", "%zz", "100%", "a+b", "%00", "true", "1", "-1", "1e3", ""),
);

function hostileQuery(route: Route): fc.Arbitrary<string> {
  const names = [...fieldsOf(route.query), "x"];
  return fc
    .array(fc.tuple(fc.constantFrom(...names), encodedValue), { maxLength: 5 })
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([name, value]) => `${name}=${value}`).join("&")}`));
}

const hostilePath = (route: Route) =>
  fc
    .tuple(fc.oneof(encodedValue, fc.constant(memoryId)), hostileQuery(route))
    .map(([param, query]) => route.path.replace(/\{\w+\}/, param || "x") + query);

beforeAll(async () => {
  app = await openTestApp();
  await app.users.add("eve");
  token = await app.users.rotateToken("eve");
  server = await startServer(app, { host: "127.0.0.1", port: 0, log: () => undefined });
  memoryId = (await send("post", "/api/memory", JSON.stringify({ text: "tram 28 climbs to Alfama in Lisbon" }))).body.memoryId;
  const upload = await send(
    "post",
    "/api/chat-history/ingest/custom-online",
    JSON.stringify({
      conversation: {
        id: "c1",
        title: "Lisbon trip",
        createdAt: "2024-03-01T09:00:00Z",
        messages: [
          { id: "m1", role: "human", content: "Which tram goes up to the castle? Is it tram 28?" },
          { id: "m2", role: "assistant", content: "Yes: tram 28 climbs through Alfama." },
        ],
      },
    }),
  );
  conversationId = upload.body.conversationId;
  expect(conversationId).toBeTruthy();
});
afterAll(async () => {
  await server.close();
  await app.close();
});

describe("a search query is words, never query syntax", () => {
  // Every character LanceDB's full-text parser (tantivy's and Lucene's syntax) gives a meaning:
  // phrases, required and excluded terms, boolean words, groups, ranges, boosts, fuzziness,
  // wildcards, fields, escapes, regexes; then each ASCII punctuation character alone.
  const queries = [
    '"tram 28"',
    '""',
    '" OR ""="',
    '"tram"',
    '"tram',
    'tram"',
    "'tram 28'",
    "+tram -castle",
    "tram AND castle OR NOT lisbon",
    "tram && castle || !lisbon",
    "(tram OR castle)",
    "[a TO z]",
    "{a TO z}",
    "tram^2",
    "tram~2",
    '"tram castle"~3',
    "tra* t?am",
    "text:tram",
    "tram\\:28",
    "/tr.m/",
    "IN [tram castle]",
    ">5 <=3",
    ...Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
  ];
  const memoryQueries = (query: string) => [
    ["get", `/api/memory?query=${encodeURIComponent(query)}`],
    ["get", `/api/v2/memory?query=${encodeURIComponent(query)}`],
  ];

  it("answers every one on GET /api/memory, GET /api/v2/memory, search and recall, finding the tram where it names it", async () => {
    for (const query of queries) {
      for (const [method, path] of memoryQueries(query)) checkAnswer(await send(method!, path!), `${path}`);
      for (const path of ["/api/chat-history/search", "/api/chat-history/inject"]) {
        checkAnswer(await send("post", path, JSON.stringify({ query })), `${path} ${query}`);
      }
    }
    const quoted = await send("get", `/api/memory?query=${encodeURIComponent('"tram 28"')}`);
    expect(quoted.status).toBe(200);
    expect(quoted.body[0].text).toContain("tram 28");
    const search = await send("post", "/api/chat-history/search", JSON.stringify({ query: '"tram 28"', skipRerank: true }));
    expect(search.status).toBe(200);
  });
});

describe("a body's Content-Type", () => {
  const post = async (contentType: string | undefined, body: string) => {
    const headers = { authorization: `Bearer ${token}`, ...(contentType === undefined ? {} : { "content-type": contentType }) };
    const response = await request(`${server.url}/api/memory`, { method: "POST", headers, body });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, string> };
  };

  it("reads JSON declared as another type (fetch's text/plain, curl -d's form) as JSON; what is not JSON, or not UTF-8, is a 400 naming it", async () => {
    for (const contentType of ["application/x-www-form-urlencoded", "text/plain;charset=UTF-8"]) {
      const taken = await post(contentType, JSON.stringify({ text: `sent as ${contentType}` }));
      expect(taken.status, contentType).toBe(200);
    }
    const before = await stored();
    const form = await post("application/x-www-form-urlencoded", "text=hello");
    expect([form.status, form.body["error"]]).toEqual([400, "body: is not valid JSON (it was sent as application/x-www-form-urlencoded)"]);
    expect(form.body["suggestion"]).toContain("Content-Type: application/json");
    const latin1 = await post("application/json; charset=iso-8859-1", '{"text":"latin"}');
    expect([latin1.status, latin1.body["error"]]).toEqual([400, "Content-Type: charset iso-8859-1 is not UTF-8, the one charset of JSON"]);
    expect(await stored()).toBe(before);
  });

  it("refuses a compressed body with a 400 naming Content-Encoding, where its bytes were read as JSON; takes identity", async () => {
    const before = await stored();
    const send = async (encoding: string, body: Buffer) => {
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", "content-encoding": encoding };
      const response = await request(`${server.url}/api/memory`, { method: "POST", headers, body });
      return { status: response.statusCode, body: (await response.body.json()) as Record<string, string> };
    };
    const gzipped = await send("gzip", gzipSync('{"text":"compressed"}'));
    expect([gzipped.status, gzipped.body["field"]]).toEqual([400, "Content-Encoding"]);
    expect((await send("br", Buffer.from('{"text":"claims a coding"}'))).status).toBe(400);
    expect(await stored()).toBe(before);
    expect((await send("identity", Buffer.from('{"text":"sent as it is"}'))).status).toBe(200);
  });

  it("takes JSON with or without a charset, a +json type, any case, or no Content-Type at all", async () => {
    for (const contentType of [
      "application/json",
      "application/json; charset=utf-8",
      'Application/JSON;charset="UTF-8"',
      "application/vnd.api+json",
      undefined,
    ]) {
      const stored = await post(contentType, JSON.stringify({ text: `typed ${contentType}` }));
      expect(stored.status, String(contentType)).toBe(200);
    }
  });
});

describe("text that is not Unicode is refused, naming the field, and nothing is stored", () => {
  it("bytes that are not UTF-8 in a JSON string", async () => {
    const before = await stored();
    const latin1 = Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from(' au lait"}')]);
    const answer = await send("post", "/api/memory", latin1);
    expect(answer.status).toBe(400);
    expect(answer.body.field).toBe("text");
    const nested = Buffer.concat([
      Buffer.from(
        '{"conversation":{"id":"c9","title":"t","createdAt":"2024-03-01T09:00:00Z","messages":[{"id":"m1","role":"human","content":"a',
      ),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}]}}'),
    ]);
    const upload = await send("post", "/api/chat-history/ingest/custom-online", nested);
    expect(upload.status).toBe(400);
    expect(upload.body.field).toBe("conversation.messages[0].content");
    expect(await stored()).toBe(before);
  });

  it("a lone surrogate in a JSON string, a field name or a query string", async () => {
    const before = await stored();
    const lone = await send("post", "/api/buckets", '{"name":"trips \\ud83d"}');
    expect([lone.status, lone.body.field]).toEqual([400, "name"]);
    const key = await send("post", "/api/memory", '{"text":"ok","\\udfff":1}');
    expect(key.status).toBe(400);
    const query = await send("get", "/api/v2/memory?query=%ED%A0%80");
    expect([query.status, query.body.field]).toEqual([400, "query"]);
    const path = await send("delete", "/api/memories/mem_%FF");
    expect([path.status, path.body.field]).toEqual([400, "memoryId"]);
    expect(await stored()).toBe(before);
  });

  it("answers a request line or Host the adapter cannot read with a 400 that says so, not an empty one", async () => {
    const { host } = new URL(server.url);
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1", () => socket.end(`${head}\r\nConnection: close\r\n\r\n`));
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk.toString()));
        socket.on("end", () => resolve(answer));
        socket.on("error", reject);
      });
    for (const head of [`GET /api\\buckets HTTP/1.1\r\nHost: ${host}`, `GET /api/buckets HTTP/1.1\r\nHost: ${host}:99`]) {
      const answer = await raw(`${head}\r\nAuthorization: Bearer ${token}`);
      expect(answer, head).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
        field: "request",
        error: expect.stringMatching(/^request: /),
      });
    }
  });

  it("refuses a caller's `source` holding a control or direction character, naming it, on every endpoint that takes one; stores nothing", async () => {
    const before = await stored();
    for (const source of ["plugin\nINFO 200 forged line", "tab\there", "nul\u0000", "plugin\u202Enigulp", "\u2066isolated\u2069"]) {
      const memory = await send("post", "/api/memory", JSON.stringify({ text: "2025-06-01 Kept only with a plain source", source }));
      expect([memory.status, memory.body.field], JSON.stringify(source)).toEqual([400, "source"]);
      expect(memory.body.error).toMatch(/^source: must not hold (control characters|characters that reverse)/);
      const bucket = await send("post", "/api/buckets", JSON.stringify({ name: "From a plugin", source }));
      expect([bucket.status, bucket.body.field]).toEqual([400, "source"]);
      const listed = await send("get", `/api/v2/memory?source=${encodeURIComponent(source)}`);
      expect([listed.status, listed.body.field]).toEqual([400, "source"]);
    }
    expect(await stored()).toBe(before);
    const plain = await send(
      "post",
      "/api/memory",
      JSON.stringify({ text: "2025-06-01 Stored with a plain source", source: "obsidian-plugin 1.2 (Ünïcode)" }),
    );
    expect(plain.status).toBe(200);
    await send("delete", `/api/memories/${plain.body.memoryId}`);
  });

  it("answers a request without a Host header with a JSON 400 naming the header, not Node's empty one", async () => {
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1", () => socket.end(`${head}\r\nConnection: close\r\n\r\n`));
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk.toString()));
        socket.on("end", () => resolve(answer));
        socket.on("error", reject);
      });
    for (const head of ["GET /healthz HTTP/1.1", `GET /api/buckets HTTP/1.1\r\nAuthorization: Bearer ${token}`, "GET /memories HTTP/1.0"]) {
      const answer = await raw(head);
      expect(answer, head).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), head).toMatchObject({
        field: "Host",
        error: expect.stringMatching(/^Host: the header is missing/),
        suggestion: expect.stringContaining("Host: 127.0.0.1"),
      });
    }
  });

  it("takes a query of 4,000 characters of Chinese in the URL (36 KB percent-encoded), and names the 4,001st", async () => {
    const query = (characters: number) => send("get", `/api/v2/memory?query=${encodeURIComponent("漢".repeat(characters))}`);
    expect((await query(4000)).status).toBe(200);
    const over = await query(4001);
    expect([over.status, over.body.field]).toEqual([400, "query"]);
    const huge = await send("get", `/api/v2/memory?query=${"a".repeat(70_000)}`);
    expect([huge.status, huge.body.error]).toEqual([
      431,
      "The request's URL and headers are over 64 KB: a query string is at most 4,000 characters of text",
    ]);
  });

  it("a query parameter given twice is refused naming it, not read as its first value", async () => {
    const twice = await send("get", "/api/memory?latest=true&count=1&count=50");
    expect([twice.status, twice.body.field, twice.body.error]).toEqual([400, "count", "count: is given 2 times; give it once"]);
    const once = await send("get", "/api/memory?latest=true&count=1");
    expect(once.status).toBe(200);
  });

  it("POST /api/trash/empty refuses a query parameter or a field it does not read, naming it: ids sent so emptied the whole trash", async () => {
    const text = "2025-01-01 Kept in the trash while a client guesses";
    const trashed = await send(
      "post",
      "/api/trash",
      JSON.stringify({ memoryIds: [(await send("post", "/api/memory", JSON.stringify({ text }))).body.memoryId] }),
    );
    const entry = trashed.body.items[0].id as string;
    const inQuery = await send("post", `/api/trash/empty?ids=${entry}`);
    expect([inQuery.status, inQuery.body]).toEqual([
      400,
      {
        error: "ids: is not a query parameter of /api/trash/empty, which takes none",
        field: "ids",
        suggestion: "Send the request's fields in its JSON body.",
      },
    ]);
    const misnamed = await send("post", "/api/trash/empty", JSON.stringify({ id: [entry] }));
    expect([misnamed.status, misnamed.body]).toEqual([
      400,
      { error: "id: is not a field of this request, which takes ids, source", field: "id", suggestion: "Send id as ids." },
    ]);
    expect((await send("get", "/api/trash?pageSize=200")).body.items.map((item: { id: string }) => item.id)).toContain(entry);
    expect((await send("post", "/api/trash/empty", JSON.stringify({ ids: [entry] }))).body).toEqual({ deleted: 1, notFound: [] });
    // Other endpoints ignore a query parameter they do not read: a client's cache-buster (`_=…`) is one.
    expect((await send("get", "/api/chat-history/count?v=2")).status).toBe(200);
    expect((await send("get", "/api/memory?latest=true&_=1732890000")).status).toBe(200);
  });

  it("every small body refuses a field it does not take, naming it and the fields it takes, and changes nothing; an upload takes extra fields", async () => {
    const before = await stored();
    // Reads take what they do not know: the spec leaves recall's platform hint unnamed, and clients send it.
    const reads = ["uploadConversation", "recall", "search"];
    const small = ROUTES.filter((route) => route.body && !reads.includes(route.name));
    expect(small.map((route) => route.name)).toEqual(expect.arrayContaining(["storeMemory", "updateMemories", "emptyTrash"]));
    for (const route of small) {
      const taken = Object.keys((route.body as z.ZodObject).shape);
      // `source` beside it is taken by every one: clients send their name with every request.
      const answer = await send(route.method, route.path.replace(/\{\w+\}/, "1"), JSON.stringify({ bucket_idx: 1, source: "a-plugin" }));
      expect([route.name, answer.status, answer.body.field, answer.body.error]).toEqual([
        route.name,
        400,
        "bucket_idx",
        `bucket_idx: is not a field of this request, which takes ${taken.join(", ")}`,
      ]);
    }
    expect(await stored()).toBe(before);
    // A bucketName on a store went to General, the caller believing it in its bucket: refused, with the way to do it.
    const named = await send("post", "/api/memory", JSON.stringify({ text: "2025-01-01 For Work", bucketName: "Work" }));
    expect([named.status, named.body.error, named.body.suggestion]).toEqual([
      400,
      "bucketName: is not a field of this request, which takes text, bucketId, source, ifSimilar",
      expect.stringMatching(
        /^To store into a bucket by name, create it with POST \/api\/buckets .* POST \/api\/v2\/memory\/update and bucketName/,
      ),
    ]);
    const typos = await send("post", "/api/v2/memory/update", JSON.stringify({ memoryid: memoryId, bucket_id: 2 }));
    expect([typos.status, typos.body.field, typos.body.suggestion]).toEqual([
      400,
      "memoryid, bucket_id",
      "Send memoryid as memoryId, bucket_id as bucketId.",
    ]);
    expect(await stored()).toBe(before);
    const exported = {
      platform: "custom",
      exportedBy: "some tool",
      conversation: {
        id: "extra-1",
        title: "Extra",
        createdAt: "2024-03-01T09:00:00Z",
        model: "x",
        messages: [{ id: "e1", role: "human", content: "Hi", tokens: 1 }],
      },
    };
    expect((await send("post", "/api/chat-history/ingest/custom-online", JSON.stringify(exported))).status).toBe(200);
    const hinted = await send("post", "/api/chat-history/inject", JSON.stringify({ query: "extra", maxTokens: 200, targetPlatform: "x" }));
    expect(hinted.status).toBe(200);
    expect((await send("post", "/api/chat-history/search", JSON.stringify({ query: "extra", includeContext: true }))).status).toBe(200);
  });

  it("quotes an id it cannot find cut to 60 characters, where the trash and an import's progress sent back all of it", async () => {
    const long = "x".repeat(5000);
    const restore = await send("post", "/api/trash/restore", JSON.stringify({ ids: [long] }));
    expect([restore.status, restore.body.error]).toEqual([404, `"${"x".repeat(59)}…" is not in the trash`]);
    const job = await send("get", `/api/chat-history/imports/${long}`);
    expect([job.status, job.body.error]).toEqual([404, `import "${"x".repeat(59)}…" not found`]);
  });

  it("points a path no endpoint has to the endpoints that end as it does", async () => {
    const guessed = await send("get", "/api/memories/abc/history");
    expect([guessed.status, guessed.body]).toEqual([
      404,
      {
        error: "No such endpoint: GET /api/memories/abc/history",
        suggestion: "Did you mean GET /api/v2/memory/{memoryId}/history? GET /openapi.json lists every endpoint.",
      },
    ]);
    expect((await send("get", "/api/nope")).body).toEqual({ error: "No such endpoint: GET /api/nope" });
    // An address outside the API (a page's typo) is not pointed at the API.
    expect((await send("get", "/memory")).body).toEqual({ error: "No such endpoint: GET /memory" });
  });

  it("counts a limit in characters as a person does: 200 emoji are a 200-character name, 201 are one too many", async () => {
    const upload = (displayName: string, id: string) =>
      JSON.stringify({
        platform: "emoji-app",
        platformDisplayName: displayName,
        conversation: {
          id,
          title: "🦊".repeat(1000),
          createdAt: "2025-01-01T00:00:00Z",
          messages: [{ id: "m1", role: "human", content: "hi" }],
        },
      });
    const ingest = "/api/chat-history/ingest/custom-online";
    expect((await send("post", ingest, upload("🦊".repeat(200), "🦊".repeat(500)))).status).toBe(200);
    const over = await send("post", ingest, upload("🦊".repeat(201), "fox"));
    expect([over.status, over.body.error]).toEqual([400, "platformDisplayName: must be at most 200 characters"]);
    const bucket = await send("post", "/api/buckets", JSON.stringify({ name: "🦊".repeat(100) }));
    expect(bucket.status).toBe(200);
    const memory = await send("post", "/api/memory", JSON.stringify({ text: "🦊".repeat(20_000) }));
    expect(memory.status).toBe(200);
    expect((await send("post", "/api/memory", JSON.stringify({ text: "🦊".repeat(20_001) }))).body.error).toBe(
      "text: must be at most 20000 characters",
    );
  });

  it("takes well-formed text of every plane, and a U+FFFD that was sent as one", async () => {
    const text = "café 🦊 \ufffd 日本語";
    const answer = await send("post", "/api/memory", JSON.stringify({ text }));
    expect(answer.status).toBe(200);
    const latest = await send("get", "/api/memory?latest=true&count=1&v=1");
    expect(latest.body[0]).toContain(text);
  });
});

describe("any input gets 2xx or 4xx naming the field, and a refused one changes nothing stored", () => {
  for (const route of ROUTES) {
    it(`${route.method.toUpperCase()} ${route.path}`, async () => {
      const requests = fc.tuple(hostilePath(route), route.body ? hostileBody(route) : fc.constant(undefined));
      await holds(
        fc.asyncProperty(requests, async ([path, body]) => {
          const writes = route.method !== "get";
          const before = writes ? await stored() : "";
          const answer = await send(route.method, path, body);
          const shownBody = typeof body === "string" ? body : body ? `bytes ${Buffer.from(body).toString("hex")}` : "";
          const what = `${route.method.toUpperCase()} ${path.slice(0, 300)} ${shownBody.slice(0, 300)}`;
          checkAnswer(answer, what);
          if (writes && answer.status >= 400) expect(await stored(), `${what} changed the store`).toBe(before);
        }),
      );
    });
  }
});

describe("POST /mcp: any tool call, with any arguments, gets an answer and no 5xx; a refused one changes nothing", () => {
  it("every tool, generated arguments", async () => {
    const listed = await mcp({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const tools = (listed.body.result.tools as { name: string; inputSchema: { properties?: Record<string, unknown> } }[]).map((tool) => ({
      name: tool.name,
      fields: Object.keys(tool.inputSchema.properties ?? {}),
    }));
    expect(tools.length).toBeGreaterThan(5);
    const calls = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom(...tools).chain((tool) => hostileObject(tool.fields).map((args) => ({ name: tool.name, args }))),
      },
      fc.record({ name: hostileText, args: hostileObject([]) }),
    );
    const bodies = fc.oneof(
      {
        weight: 8,
        arbitrary: calls.map(({ name, args }) =>
          JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } }),
        ),
      },
      hostileValue.map((value) => JSON.stringify(value) ?? "null"),
      fc.constantFrom(
        "{",
        "",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_memory","arguments":{"text":"caf\xe9"}}}',
      ),
    );
    await holds(
      fc.asyncProperty(bodies, async (body) => {
        const before = await stored();
        const answer = await mcp(body);
        const told = `POST /mcp ${body.slice(0, 300)} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
        expect(answer.status, told).toBeLessThan(500);
        const refused = answer.status >= 400 || answer.body?.error !== undefined || answer.body?.result?.isError === true;
        if (refused) expect(await stored(), `${told} changed the store`).toBe(before);
      }),
    );
  });

  it("refuses bytes that are not UTF-8 as a tool error naming the argument, instead of storing U+FFFD", async () => {
    const before = await stored();
    const bytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_memory","arguments":{"text":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}}}'),
    ]);
    const answer = await mcp(bytes);
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).toBe(true);
    expect(JSON.stringify(answer.body.result.content)).toMatch(/text: is not valid Unicode/);
    expect(await stored()).toBe(before);
  });
});

async function mcp(body: unknown): Promise<Answer> {
  const response = await request(`${server.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await response.body.text();
  try {
    return { status: response.statusCode, body: JSON.parse(text) };
  } catch {
    return { status: response.statusCode, body: text };
  }
}

/** fc.assert, with a failure told in a few lines: a counterexample can be megabytes of text. */
async function holds<T>(property: fc.IAsyncProperty<T>): Promise<void> {
  const run = await fc.check(property, { numRuns: RUNS });
  if (!run.failed) return;
  const short = (text: string) => (text.length > 600 ? `${text.slice(0, 600)}… (${text.length} characters)` : text);
  const problem = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
  throw new Error(
    `seed ${run.seed}, path ${run.counterexamplePath}: ${short(problem)}\ncounterexample: ${short(JSON.stringify(run.counterexample))}`,
  );
}
